"""What feeds the TUI's panes: a live chat (live_chat.py), a scenario's playback
(playback.py) or a watched MCP event log (watched_log.py); this base is a feed with
nothing to play yet (offline, before a scenario is chosen).

`Feed` holds what every feed does alike: a stack built by `airline_agent.stack`, the events
of the conversation so far (what is saved and what the inspector reads), the hooks of a
turn, and saving. A turn itself runs through tui/turns.py (`run_turn`: it matches on the
agent's events, which the first screen does not load) — a turn cancelled before its end
is recorded there as a `TurnFinished(reason="cancelled")`, the one record of it the
screen, the recorder and the transcript all read. It owns the facts the status line
shows of it, each where it is decided: the guard is its toolbox's (the switch the tools obey), the
customer its conversation's (the loop binds one and says so); before its stack exists,
the guard and customer it will open with. Subclasses say where the database comes from,
how a reset works and what else a turn yields (a playback's `ScenarioDiverged`).

Its stack has the debugger (agent/debugger.py): the feed keeps the hold its turn waits
at (`held`, until a key lets it go on, one step or to the end of the turn, or with your
edit), hands every stack it opens the same breakpoints (the user's toggles outlive a
scenario's restart), and keeps each branch's events as shown, so that switching branches
shows each as it was and saving saves the branch on screen.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from airline_agent.agent.breakpoints import Breakpoints
from airline_agent.agent.debugger_errors import ForkFailed
from airline_agent.late_imports import importing
from airline_agent.tui.status import DatabaseOrigin, DebugFacts, Status

if TYPE_CHECKING:
    from typing import TypeAlias

    from airline_agent.agent.conversation import Conversation
    from airline_agent.agent.debugger import Branch, Debugger
    from airline_agent.agent.events import AgentEvent, Held
    from airline_agent.agent.loop import AgentSession
    from airline_agent.config import Settings
    from airline_agent.redaction import Redactor
    from airline_agent.settings_peek import PendingSettings
    from airline_agent.stack import Stack

Mode = Literal["live", "offline", "watch"]
NO_SCENARIO = "offline: no scenario"
EACH_SCENARIO = DatabaseOrigin("scenario", "a fresh copy per scenario")
BreakpointName = Literal["request", "write", "finding", "error"]
# The breakpoints' names as the status line says them, in the order it says them.
BREAKPOINT_NAMES: tuple[tuple[BreakpointName, str], ...] = (
    ("request", "requests"),
    ("write", "writes"),
    ("finding", "findings"),
    ("error", "errors"),
)


@dataclass(frozen=True)
class ScenarioDiverged:
    """A playback's tool call gave other results than its scenario expects or recorded:
    from here on, the scripted replies may not match what happened."""

    turn: int
    where: str  # "turn 2, call 1 (update_reservation_flights)", "turn 2"
    brief: str  # "expected POLICY_VIOLATION, got ok"
    findings: tuple[str, ...]  # every finding, in full

    def summary(self) -> str:
        return f"diverged from the scenario: {self.brief}"


if TYPE_CHECKING:
    # What a feed's turn yields: the loop's events, and a playback's divergences.
    ShownEvent: TypeAlias = AgentEvent | ScenarioDiverged


class Feed:
    """One way of running conversations (see the module's docstring)."""

    mode: Mode = "offline"
    resetting = False  # a reset of its database is under way (live `r`): no turn starts

    def __init__(
        self,
        status: Status,
        *,
        guard: bool,
        clock: str,
        customer: str | None = None,
        breakpoints: Breakpoints | None = None,
    ) -> None:
        self.status = status  # told of every change of a fact it shows
        self.events: list[AgentEvent] = []  # the conversation so far (its branch's)
        self.stack: Stack | None = None
        # The user's toggles, the same object for every stack this feed opens (and, given
        # by the controller, for every feed).
        self.breakpoints = breakpoints or Breakpoints()
        self.held: Held | None = None  # where the running turn waits for a key
        self._guard = guard  # until the stack exists; from then on its toolbox's
        self._customer = customer  # whom the first conversation is to act for
        self._clock = clock
        self._branch_events: dict[int, list[AgentEvent]] = {}  # branches not on screen

    @property
    def agent(self) -> AgentSession | None:
        """The agent loop's session over the stack (None before the stack is open)."""
        return self.stack.session if self.stack is not None else None

    @property
    def conversation(self) -> Conversation | None:
        """The conversation going on: its customer, history, usage and cost."""
        return self.agent.conversation if self.agent is not None else None

    @property
    def ready(self) -> bool:
        """A turn can start: the stack is open and no reset is under way."""
        return self.stack is not None and not self.resetting

    def database_file(self) -> Path | None:
        """The SQLite file the feed's stack opened (None: not open, or not SQLite)."""
        if self.stack is None:
            return None
        return self.stack.database.path

    def working_database_file(self) -> Path | None:
        """The SQLite file the conversation on screen works on: its branch's (a fork's
        is a copy of its own)."""
        debugger = self.debugger
        if debugger is not None and debugger.current is not None:
            return debugger.current.database_file
        return self.database_file()

    @property
    def debugger(self) -> Debugger | None:
        return self.stack.debugger if self.stack is not None else None

    def _use_breakpoints(self) -> None:
        """The stack just opened holds where the feed's breakpoints say."""
        if self.debugger is not None:
            self.debugger.breakpoints = self.breakpoints

    @property
    def scenario_name(self) -> str | None:
        return None

    @property
    def steps_left(self) -> int:
        return 0

    def next_customer_message(self) -> str | None:
        """A playback's next customer message (its turn loaded); None: none to play."""
        return None

    # -- the facts the status line shows ------------------------------------------------
    @property
    def source(self) -> str:
        return NO_SCENARIO

    @property
    def origin(self) -> DatabaseOrigin:
        return EACH_SCENARIO  # offline, the user's database is never opened

    @property
    def approval(self) -> str:
        return "scenario"  # offline, each scenario says

    @property
    def clock(self) -> str:
        return self._clock

    @property
    def scenario_guard(self) -> bool | None:
        return None

    @property
    def rules_known(self) -> bool:
        """The guard, approvals and clock shown are this feed's (a watched server's are
        its own: not shown)."""
        return True

    @property
    def divergence(self) -> str | None:
        return None

    @property
    def debugging(self) -> DebugFacts:
        """What comes next when the turn is held or can go on, which breakpoints are on,
        which branch is shown."""
        on = tuple(words for name, words in BREAKPOINT_NAMES if getattr(self.breakpoints, name))
        debugger = self.debugger
        branch = None
        if debugger is not None and debugger.current is not None and len(debugger.branches) > 1:
            branch = f"branch {debugger.current.number}/{len(debugger.branches)}"
        return DebugFacts(self.upcoming(), on, branch)

    def upcoming(self) -> str | None:
        """The next step, in words, when a key makes it (None: none is waiting)."""
        held = self.held
        if held is not None:
            reasons = [reason for reason in held.reasons if reason != "step"]
            return held.next + (f" (break: {', '.join(reasons)})" if reasons else "")
        if self.can_resume and not self.turn_under_way:
            cut = self.conversation.cut_turn if self.conversation is not None else None
            return f"resume turn {cut.number}" if cut is not None else None
        return None

    @property
    def turn_under_way(self) -> bool:
        """A turn runs on the loop (held or not)."""
        debugger = self.debugger
        return debugger is not None and debugger.running

    @property
    def can_resume(self) -> bool:
        """The conversation is a fork cut in the middle of a turn: it can go on from there."""
        return self.agent is not None and self.agent.can_resume

    @property
    def guard(self) -> bool:
        return self.stack.toolbox.guard if self.stack is not None else self._guard

    @guard.setter
    def guard(self, on: bool) -> None:
        if self.stack is not None:
            self.stack.toolbox.guard = on
        else:
            self._guard = on
        self.status.changed()

    @property
    def customer(self) -> str | None:
        """Whom the conversation acts for: its own customer once it exists."""
        conversation = self.conversation
        return conversation.customer if conversation is not None else self._customer

    def settings_read(self, settings: Settings, peeked: Settings | PendingSettings | None) -> None:
        """The full settings are read (after the first frame): the peeked values were
        the same; a guard the user switched since is kept."""
        self._clock = settings.now
        if self.stack is None and (peeked is None or self._guard == peeked.guard):
            self._guard = settings.guard

    # -- turns ------------------------------------------------------------------------
    # A turn runs through tui/turns.py (`run_turn`): the code that matches on the agent's
    # events loads with a feed's first turn, not with the first screen.
    def turn_events(self, text: str | None) -> AsyncGenerator[AgentEvent, None]:
        """Where the turn's events come from: the stack's loop (None: resumed)."""
        if self.agent is None:
            raise RuntimeError("nothing is open to run a turn on")
        return self.agent.run_turn(text) if text is not None else self.agent.resume_turn()

    # -- holds ----------------------------------------------------------------------
    def toggle_breakpoint(self, name: BreakpointName) -> bool:
        """Switch one breakpoint on or off (the loop reads it at its next point); on?"""
        on = not getattr(self.breakpoints, name)
        setattr(self.breakpoints, name, on)
        self.status.changed()
        return on

    def set_stepping(self, stepping: bool) -> None:
        """Whether the turn holds before every request and tool call from here on (space
        steps; `>`, enter and auto-play go to the end of the turn)."""
        self.breakpoints.step = stepping

    def go_on(self, *, stepping: bool) -> bool:
        """The held turn goes on: one step (`stepping`: it holds again before the next
        request or tool call) or to the end of the turn (breakpoints still hold). False:
        nothing was held."""
        held = self.held
        if held is None:
            return False
        self.set_stepping(stepping)
        held.go()
        self.let_go()
        return True

    def let_go(self) -> None:
        if self.held is not None:
            self.held = None
            self.status.changed()

    async def before_turn(self) -> None:
        """Before the loop sees the customer's message (live: copy the database)."""

    def cancels_here(self, event: AgentEvent) -> bool:
        """Whether the turn is to be cancelled at this event (a playback's recording of
        a cancelled turn ends there)."""
        return False

    def divergences_at(self, event: AgentEvent) -> list[ScenarioDiverged]:
        """Each event of the turn before anyone else sees it; what to yield after it."""
        return []

    # -- the conversation -----------------------------------------------------------
    def new_conversation(self) -> None:
        """Nothing of the last conversation survives: a customer it bound neither, nor
        its branches."""
        self.events.clear()
        self._branch_events.clear()
        if self.agent is not None:
            self.agent.new_conversation()
        self.status.changed()

    def act_for(self, customer: str | None) -> None:
        """A new conversation, acting for `customer` from its start (None: nobody)."""
        self.events.clear()
        self._branch_events.clear()
        if self.agent is not None:
            self.agent.new_conversation(customer=customer)
        else:
            self._customer = customer
        self.status.changed()

    # -- branches ---------------------------------------------------------------------
    def fork(self, step: int) -> Branch:
        """A new branch of the conversation on screen, right after `step`, on a copy of
        the database as it was then (slow: call it in a thread). Raises ForkFailed,
        saying why."""
        debugger = self.debugger
        if debugger is None:
            raise ForkFailed("no conversation with a debugger is open here")
        return debugger.fork(step, of=debugger.current)

    def switch_branch(self, branch: Branch) -> None:
        """Go on with `branch`: its conversation, its database, its events as they were
        shown. Raises BranchBusy while a turn runs."""
        debugger = self.debugger
        assert debugger is not None, "branches are the debugger's"
        leaving = debugger.current
        debugger.switch(branch)
        if leaving is not None:
            self._branch_events[leaving.number] = self.events
            self._left_branch(leaving)
        kept: list[AgentEvent] | None = self._branch_events.pop(branch.number, None)
        self.events = kept or list(branch.events)
        self._entered_branch(branch, leaving)
        self.status.changed()

    def _left_branch(self, branch: Branch) -> None:
        """What a subclass keeps of the branch it leaves (a playback's position)."""

    def _entered_branch(self, branch: Branch, left: Branch | None) -> None:
        """What a subclass sets for the branch it goes on with."""

    def close(self) -> None:
        self.held = None
        self._branch_events.clear()
        if self.stack is not None:
            self.stack.close()
            self.stack = None

    # -- saving -----------------------------------------------------------------------
    def save_scenario(self, path: Path, redactor: Redactor) -> tuple[Path, str | None]:
        """Saved as a scenario file; and a warning when its replay may drift."""
        raise NotImplementedError

    def save_transcript(self, directory: Path, name: str, redactor: Redactor) -> list[Path]:
        # Only when saving: the transcript's writer (hashing, the output files) would hold
        # up the first screen.
        with importing("airline_agent.scenarios.transcript"):
            # Alone: another thread's door may be importing (late_imports.py).
            from airline_agent.scenarios.transcript import write_transcript

        return list(write_transcript(self.events, directory, slug(name), redactor))


def slug(text: str) -> str:

    name = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return name or "conversation"
