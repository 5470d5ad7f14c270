"""Watching an MCP server (`tui --watch FILE`): its sessions as `airline-agent mcp --events
FILE` writes them, shown as they happen.

Nothing runs here: each line of the log is read back into the loop's event
(`mcp_server.event_log.read_record`, the format's one owner) and shown as a live chat's
would be — the client's call as the model's, its approval, its result with the rows it
changed, the customer it bound. What a line cannot be read as is skipped and counted,
never shown half. The file is followed by a `LogTail` in a worker thread (the screen's);
what it reads is taken here, on the UI's loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from airline_agent.agent.events import AgentEvent, AssistantMessage, CustomerBound
from airline_agent.mcp_server.event_log import LoggedEvent, SessionMark, UnreadableLine, read_record
from airline_agent.tui.feed import Feed, Mode
from airline_agent.tui.formatting import clip_lines
from airline_agent.tui.log_tail import LogTail
from airline_agent.tui.status import DatabaseOrigin, Status

SERVERS_DATABASE = DatabaseOrigin("user", "the MCP server's")
# A name from the log shown in the chat's notes and the status line (a customer's id, a
# tool's) is cut here: the log is anyone's file, and a name of megabytes would fill them.
NAME_CHARS = 80


@dataclass
class Watched:
    """What some lines of the log add: events for the panes, notes for the chat."""

    events: list[AgentEvent] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class WatchedLog(Feed):
    mode: Mode = "watch"

    def __init__(self, status: Status, path: Path) -> None:
        super().__init__(status, guard=True, clock="")
        self.path = path
        self.tail = LogTail(path)  # read by the screen's worker thread only
        self.session: int | None = None  # the session of the latest line
        self.calls: dict[int, int] = {}  # tool calls by session
        self.customers: dict[int, str] = {}  # whom each session acts for, once bound
        self.unreadable = 0  # lines skipped: no record of the log
        self._skipped_shown = 0  # lines skipped, as the status line last said
        self.appeared = False  # the file was found (until then: waited for)
        self.waited = False  # it was not there at first

    # -- the facts the status line shows ------------------------------------------------
    @property
    def source(self) -> str:
        if self.waited and not self.appeared:
            return f"watching {self.path} · waiting for it to appear"
        parts = [f"watching {self.path}"]
        if self.session is not None:
            calls = self.calls.get(self.session, 0)
            parts += [f"session {self.session}", f"{calls} call{'s' * (calls != 1)}"]
        skipped = self.skipped
        if skipped:
            parts.append(f"{skipped} line{'s' * (skipped != 1)} skipped")
        return " · ".join(parts)

    @property
    def skipped(self) -> int:
        return self.unreadable + self.tail.overlong

    @property
    def customer(self) -> str | None:
        return self.customers.get(self.session) if self.session is not None else None

    @property
    def origin(self) -> DatabaseOrigin:
        return SERVERS_DATABASE

    @property
    def approval(self) -> str:
        return "the server's"

    @property
    def rules_known(self) -> bool:
        return False  # the guard, approvals and clock are the server's, not shown here

    # -- the log --------------------------------------------------------------------------
    def take(self, lines: list[str], *, present: bool) -> Watched:
        """What `lines` (read just now; `present`: the file is there) add to the panes."""
        watched = Watched()
        if not present and not self.appeared:
            self.waited = True
        if present and not self.appeared:
            self.appeared = True
            if self.waited:
                watched.notes.append(f"{self.path} is there now: its sessions follow.")
        for line in lines:
            if not line.strip():
                continue
            try:
                record = read_record(line)
            except UnreadableLine:
                self.unreadable += 1
                continue
            self.session = record.session
            match record:
                case SessionMark(session=number, kind="session_opened"):
                    self.calls.setdefault(number, 0)
                    watched.notes.append(f"MCP session {number} opened.")
                case SessionMark(session=number):
                    calls = self.calls.get(number, 0)
                    watched.notes.append(
                        f"MCP session {number} closed after {calls} call{'s' * (calls != 1)}."
                    )
                case LoggedEvent(session=number, event=event):
                    self._observed(number, event, watched)
        if lines or watched.notes or self.skipped != self._skipped_shown:
            self._skipped_shown = self.skipped
            self.status.changed()
        return watched

    def _observed(self, session: int, event: AgentEvent, watched: Watched) -> None:
        if isinstance(event, AssistantMessage):
            self.calls[session] = self.calls.get(session, 0) + 1
        elif isinstance(event, CustomerBound):
            customer = self.customers[session] = clip_lines(event.customer, NAME_CHARS)
            tool = clip_lines(event.tool, NAME_CHARS)
            watched.notes.append(f"MCP session {session} acts for {customer} ({tool}).")
        self.events.append(event)
        watched.events.append(event)
