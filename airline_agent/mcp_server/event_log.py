"""`--events FILE`: the server's sessions as they happen, one JSON line per event, for
`airline-agent tui --watch FILE` (or `tail -f`).

Each line is one of the loop's events as an MCP session yields it (`session` explains
which), with `session` (its number) and `type` added: `session_opened`, `tool_call`
(the call as the client sent it), `approval` (the preview shown and the answer),
`tool_started`, `tool_finished` (result, error code, time, and the rows changed, before
→ after), `customer_bound`, `session_closed`. Lines are appended and flushed one by
one, so a reader never sees half a line; what is written is redacted.

`read_record` is the inverse, for the watcher: a line back into the loop's typed event
(`LoggedEvent`) or a session's start or end (`SessionMark`), so that a front end shows a
watched session with what it shows a live chat with. A line it cannot read (no JSON, an
unknown type, a field of the wrong type) raises `UnreadableLine`, saying why.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any, Literal

from airline_agent.agent.events import (
    AgentEvent,
    ApprovalDecision,
    ApprovalRequested,
    AssistantMessage,
    CustomerBound,
    PendingWrite,
    ToolCall,
    ToolFinished,
    ToolStarted,
)
from airline_agent.redaction import Redactor
from airline_agent.tools.outcome import RowChange

# One line's object: JSON, as `json.dumps` writes it and `json.loads` reads it back.
JsonObject = dict[str, object]


def event_record(session: int, event: AgentEvent) -> JsonObject | None:
    """One event as its line's object; None for events the log does not carry."""
    match event:
        case AssistantMessage(tool_calls=(call, *_)):
            body: JsonObject = {
                "type": "tool_call",
                "request": event.request,
                "call_id": call.call_id,
                "name": call.name,
                "arguments": call.arguments,
            }
        case ApprovalRequested(calls=(pending, *_)):
            answered = event.decision.done() and event.decision.result().approved
            body = {
                "type": "approval",
                "request": event.request,
                "call_id": pending.call_id,
                "name": pending.name,
                "preview": pending.preview,
                "approved": bool(answered and answered.get(pending.call_id)),
            }
        case ToolStarted():
            body = {"type": event.type, **_loop_fields_left_out(asdict(event))}
        case ToolFinished():
            body = {"type": event.type, **_loop_fields_left_out(asdict(event))}
        case CustomerBound():
            body = {"type": event.type, **asdict(event)}
        case _:
            return None
    return {"session": session, **body}


def _loop_fields_left_out(fields: dict[str, object]) -> JsonObject:
    """The loop's step number and debugger edit mean nothing here (no loop runs)."""
    return {key: value for key, value in fields.items() if key not in ("step", "edit")}


# -- reading a line back ------------------------------------------------------------------

SessionEdge = Literal["session_opened", "session_closed"]


@dataclass(frozen=True)
class SessionMark:
    """A session of the server began or ended."""

    session: int
    kind: SessionEdge


@dataclass(frozen=True)
class LoggedEvent:
    """One of the loop's events, as session `session` yielded it."""

    session: int
    event: AgentEvent


LogRecord = SessionMark | LoggedEvent


class UnreadableLine(ValueError):
    """A line that is no record of this log (why, in a few words)."""


def read_record(line: str) -> LogRecord:
    """The record of one line (see the module's docstring). An approval's answer is a
    future, as the loop's: call this on an event loop."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as error:
        raise UnreadableLine(f"not JSON ({error.__class__.__name__})") from None
    if not isinstance(record, dict):
        raise UnreadableLine("not a JSON object")
    session = record.get("session")
    if not isinstance(session, int) or isinstance(session, bool) or session < 0:
        raise UnreadableLine("no session number")
    kind = record.get("type")
    if kind in ("session_opened", "session_closed"):
        return SessionMark(session, kind)
    fields = _Fields(record)
    match kind:
        case "tool_call":
            call = ToolCall(fields.text("call_id"), fields.text("name"), fields.text("arguments"))
            event: AgentEvent = AssistantMessage(
                request=fields.number("request"),
                content=None,
                tool_calls=(call,),
                reasoning=None,
                finish_reason="tool_calls",
                latency_ms=0.0,
            )
        case "approval":
            event = _approval(fields)
        case ToolStarted.type:
            event = ToolStarted(
                fields.text("call_id"),
                fields.text("name"),
                fields.arguments(),
                fields.text("raw_arguments"),
            )
        case ToolFinished.type:
            code = record.get("error")
            if code is not None and not isinstance(code, str):
                raise UnreadableLine("error is no code")
            elapsed = record.get("elapsed_ms", 0.0)
            if not isinstance(elapsed, int | float) or isinstance(elapsed, bool):
                raise UnreadableLine("elapsed_ms is no number")
            event = ToolFinished(
                call_id=fields.text("call_id"),
                name=fields.text("name"),
                arguments=fields.arguments(),
                result=record.get("result"),
                error=code,
                elapsed_ms=float(elapsed),
                changes=fields.changes(),
            )
        case CustomerBound.type:
            event = CustomerBound(
                fields.text("customer"), fields.text("call_id"), fields.text("tool")
            )
        case _:
            raise UnreadableLine("unknown type")
    return LoggedEvent(session, event)


def _approval(fields: _Fields) -> ApprovalRequested:
    call_id = fields.text("call_id")
    approved = fields.record.get("approved")
    if not isinstance(approved, bool):
        raise UnreadableLine("approved is no yes or no")
    decision: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
    decision.set_result(ApprovalDecision({call_id: approved}))
    # The line keeps the preview the client's user saw, not the arguments (the call's
    # own line has them).
    pending = PendingWrite(call_id, fields.text("name"), {}, fields.text("preview"))
    return ApprovalRequested(fields.number("request"), (pending,), decision)


@dataclass(frozen=True)
class _Fields:
    """A record's fields, each checked for the type its event has."""

    record: JsonObject

    def text(self, name: str) -> str:
        value = self.record.get(name, "")
        if not isinstance(value, str):
            raise UnreadableLine(f"{name} is no text")
        return value

    def number(self, name: str) -> int:
        value = self.record.get(name, 0)  # lines written before it was logged: 0
        if not isinstance(value, int) or isinstance(value, bool):
            raise UnreadableLine(f"{name} is no number")
        return value

    def arguments(self) -> dict[str, Any] | None:
        value = self.record.get("arguments")
        if value is not None and not isinstance(value, dict):
            raise UnreadableLine("arguments are no object")
        return value

    def changes(self) -> tuple[RowChange, ...]:
        value = self.record.get("changes", [])
        if not isinstance(value, list):
            raise UnreadableLine("changes are no list")
        changes = []
        for change in value:
            if not isinstance(change, dict):
                raise UnreadableLine("a change is no object")
            table, key = change.get("table"), change.get("key")
            before, after = change.get("before"), change.get("after")
            if not isinstance(table, str) or not isinstance(key, str):
                raise UnreadableLine("a change names no table and key")
            if not all(row is None or isinstance(row, dict) for row in (before, after)):
                raise UnreadableLine("a changed row is no object")
            changes.append(RowChange(table, key, before, after))
        return tuple(changes)


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

    def write(self, record: JsonObject) -> None:
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
