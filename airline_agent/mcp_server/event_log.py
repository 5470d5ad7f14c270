"""`--events FILE`: the server's sessions as they happen, one JSON line per event, for
`airline-agent tui --watch FILE` (or `tail -f`).

Each line is one of the loop's events as an MCP session yields it (`session` explains
which), with `session` (its number) and `type` added: `session_opened`, `tool_call`
(the call as the client sent it), `approval` (the preview shown and the answer),
`tool_started`, `tool_finished` (result, error code, time, and the rows changed, before
→ after), `customer_bound`, `session_closed`. Lines are appended and flushed one by
one, so a reader never sees half a line; what is written is redacted.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessage,
    CustomerBound,
    ToolFinished,
    ToolStarted,
)
from airline_agent.redaction import Redactor


def event_record(session: int, event: AgentEvent) -> dict[str, Any] | None:
    """One event as its line's object; None for events the log does not carry."""
    match event:
        case AssistantMessage(tool_calls=(call, *_)):
            body: dict[str, Any] = {
                "type": "tool_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": call.arguments,
            }
        case ApprovalRequested(calls=(pending, *_)):
            answered = event.decision.done() and event.decision.result().approved
            body = {
                "type": "approval",
                "call_id": pending.call_id,
                "name": pending.name,
                "preview": pending.preview,
                "approved": bool(answered and answered.get(pending.call_id)),
            }
        case ToolStarted():
            body = {"type": "tool_started", **_loop_fields_left_out(asdict(event))}
        case ToolFinished():
            body = {"type": "tool_finished", **_loop_fields_left_out(asdict(event))}
        case CustomerBound():
            body = {"type": "customer_bound", **asdict(event)}
        case _:
            return None
    return {"session": session, **body}


def _loop_fields_left_out(fields: dict[str, Any]) -> dict[str, Any]:
    """The loop's step number and debugger edit mean nothing here (no loop runs)."""
    return {key: value for key, value in fields.items() if key not in ("step", "edit")}


class EventLog:
    """An append-only JSONL file shared by every session of a server."""

    def __init__(self, path: Path, redactor: Redactor) -> None:
        self.path = path
        self._redactor = redactor
        self._lock = threading.Lock()
        self._file: IO[str] | None = None

    def open(self) -> EventLog:
        # Appended, never truncated: one file can hold several runs of the server.
        self._file = self.path.open("a", encoding="utf-8")
        return self

    def write(self, record: dict[str, Any]) -> None:
        if self._file is None:
            return
        line = json.dumps(self._redactor.redact_json(record), default=str) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def event(self, session: int, event: AgentEvent) -> None:
        record = event_record(session, event)
        if record is not None:
            self.write(record)

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
