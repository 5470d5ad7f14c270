"""Watching an MCP server (`tui --watch FILE`): its sessions as `airline-agent mcp --events
FILE` writes them, shown as they happen.

Nothing runs here: each line of the log is read back into the loop's event
(`mcp_server.event_log.read_record`, the format's one owner) and shown as a live chat's
would be — the client's call as the model's, its approval, its result with the rows it
changed, the customer it bound. What a line cannot be read as is skipped and counted,
never shown half. The file is followed by a `LogTail` in a worker thread (the screen's);
what it reads is taken on the UI's loop by tui/watched_lines.py (which reads the
agent's events: loaded with the first lines, not with the first screen).
"""

from __future__ import annotations

from pathlib import Path

from airline_agent.tui.feed import Feed, Mode
from airline_agent.tui.log_tail import LogTail
from airline_agent.tui.status import DatabaseOrigin, Status

SERVERS_DATABASE = DatabaseOrigin("user", "the MCP server's")


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
        self.skipped_shown = 0  # lines skipped, as the status line last said
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
