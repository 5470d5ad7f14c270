"""One entry of the trace: who produced it, what it says, what it links to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

EntryProducer = Literal["developer", "customer", "model", "framework", "api"]


@dataclass(frozen=True)
class TraceEntry:
    producer: EntryProducer
    title: str
    body: str = ""  # a few lines under the title
    meta: str = ""  # right-hand facts: "ok · 3 ms", "412 ms"
    error: bool = False
    warning: bool = False
    request: int | None = None  # the request it belongs to (opens the inspector)
    details: dict[str, Any] = field(default_factory=dict)  # everything, for the details screen
    # The tool_call_ids it carries: a model's calls, a call's `role: tool` result, an
    # approval of calls. Entries sharing one are linked (the trace highlights them together).
    call_ids: tuple[str, ...] = ()
