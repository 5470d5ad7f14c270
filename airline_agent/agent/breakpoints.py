"""Where the debugger holds the loop by itself (agent/debugger.py): plain data, read at each
point, so a toggle made while a turn runs counts from the next point on. A front end
keeps its own across runs (the TUI's status line lists those on) without the debugger."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Breakpoints:
    """Where the loop holds by itself (all off: nowhere)."""

    step: bool = False  # before every request and every tool call
    request: bool = False  # before every request
    write: bool = False  # before any write tool call
    finding: bool = False  # after a reply with a grounding finding
    error: bool = False  # after an error result, or a request that failed

    @property
    def any(self) -> bool:
        return self.step or self.request or self.write or self.finding or self.error
