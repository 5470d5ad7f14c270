"""What lines of a watched MCP event log (tui/watched_log.py) add to the panes: each read
back into the loop's event (`mcp_server.event_log.read_record`), the sessions' notes for the
chat. Loaded with what shows a feed's events (screens/later.py), not with the first screen."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from airline_agent.agent.events import AgentEvent, AssistantMessage, CustomerBound
from airline_agent.mcp_server.event_log import LoggedEvent, SessionMark, UnreadableLine, read_record
from airline_agent.tui.formatting import clip_lines

if TYPE_CHECKING:
    from airline_agent.tui.watched_log import WatchedLog

# A name from the log shown in the chat's notes and the status line (a customer's id, a
# tool's) is cut here: the log is anyone's file, and a name of megabytes would fill them.
NAME_CHARS = 80


@dataclass
class Watched:
    """What some lines of the log add: events for the panes, notes for the chat."""

    events: list[AgentEvent] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def take(log: WatchedLog, lines: list[str], *, present: bool) -> Watched:
    """What `lines` (read just now from the watched `log`; `present`: the file is there)
    add to the panes."""
    watched = Watched()
    if not present and not log.appeared:
        log.waited = True
    if present and not log.appeared:
        log.appeared = True
        if log.waited:
            watched.notes.append(f"{log.path} is there now: its sessions follow.")
    for line in lines:
        if not line.strip():
            continue
        try:
            record = read_record(line)
        except UnreadableLine:
            log.unreadable += 1
            continue
        log.session = record.session
        match record:
            case SessionMark(session=number, kind="session_opened"):
                log.calls.setdefault(number, 0)
                watched.notes.append(f"MCP session {number} opened.")
            case SessionMark(session=number):
                calls = log.calls.get(number, 0)
                watched.notes.append(
                    f"MCP session {number} closed after {calls} call{'s' * (calls != 1)}."
                )
            case LoggedEvent(session=number, event=event):
                _observed(log, number, event, watched)
    if lines or watched.notes or log.skipped != log.skipped_shown:
        log.skipped_shown = log.skipped
        log.status.changed()
    return watched


def _observed(log: WatchedLog, session: int, event: AgentEvent, watched: Watched) -> None:
    if isinstance(event, AssistantMessage):
        log.calls[session] = log.calls.get(session, 0) + 1
    elif isinstance(event, CustomerBound):
        customer = log.customers[session] = clip_lines(event.customer, NAME_CHARS)
        tool = clip_lines(event.tool, NAME_CHARS)
        watched.notes.append(f"MCP session {session} acts for {customer} ({tool}).")
    log.events.append(event)
    watched.events.append(event)
