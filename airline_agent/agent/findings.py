"""What the grounding check reports of a reply (agent/grounding.py finds them).

Its own module: the events carry findings, and importing the events (every front end
does, at start) need not compile the check's patterns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FindingKind = Literal[
    "reservation_id",
    "flight_number",
    "user_id",
    "payment_id",
    "amount",
    "date",
    "time",
    "claimed_action",
    "tool_call_as_text",
]


@dataclass(frozen=True)
class Finding:
    """One unsupported value or claim of a reply, and why it is unsupported."""

    value: str  # as written in the reply: "HAT002", "$100", "I looked up", a call's text
    kind: FindingKind
    why: str

    def describe(self) -> str:
        return f"{self.value} ({self.why})"
