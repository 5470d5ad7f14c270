"""What the TUI runs conversations with: a live run (live_run.py) or a scenario's
playback (playback.py); this base is a run with nothing to play yet (offline, before a
scenario is chosen).

`Run` holds what every run does alike: a stack built by `airline_agent.stack`, the events
of the conversation so far (what is saved and what the inspector reads), a turn's
bookkeeping — a turn cancelled before its end is recorded as a
`TurnFinished(reason="cancelled")`, the one record of it the screen, the recorder and the
transcript all read — and saving. It owns the facts the status line shows of it, each
where it is decided: the guard is its toolbox's (the switch the tools obey), the
customer its conversation's (the loop binds one and says so); before its stack exists,
the guard and customer it will open with. Subclasses say where the database comes from,
how a reset works and what else a turn yields (a playback's `ScenarioDiverged`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from airline_agent.agent.cancelled import cancelled_turn
from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    CustomerBound,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
)
from airline_agent.tui.status import DatabaseOrigin, Status

if TYPE_CHECKING:
    from airline_agent.agent.conversation import Conversation
    from airline_agent.agent.loop import AgentSession
    from airline_agent.config import Settings
    from airline_agent.redaction import Redactor
    from airline_agent.settings_peek import PendingSettings
    from airline_agent.stack import Stack

Mode = Literal["live", "offline"]
NO_SCENARIO = "offline: no scenario"
EACH_SCENARIO = DatabaseOrigin("scenario", "a fresh copy per scenario")


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


# What a run's turn yields: the loop's events, and a playback's divergences.
ShownEvent = AgentEvent | ScenarioDiverged


class Run:
    """One way of running conversations (see the module's docstring)."""

    mode: Mode = "offline"
    resetting = False  # a reset of its database is under way (live `r`): no turn starts

    def __init__(
        self, status: Status, *, guard: bool, clock: str, customer: str | None = None
    ) -> None:
        self.status = status  # told of every change of a fact it shows
        self.events: list[AgentEvent] = []  # the conversation so far
        self.stack: Stack | None = None
        self._guard = guard  # until the stack exists; from then on its toolbox's
        self._customer = customer  # whom the first conversation is to act for
        self._clock = clock

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
        """The SQLite file the run's tools work on (None: not open, or not SQLite)."""
        from airline_agent.scenarios.live import sqlite_file

        if self.stack is None:
            return None
        return sqlite_file(self.stack.database.engine.url)

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
    def divergence(self) -> str | None:
        return None

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
    async def run_turn(self, text: str) -> AsyncGenerator[ShownEvent, None]:
        """The turn's events as the screen shows them. Closed early (`aclose`, or the
        task cancelled inside it), the turn is recorded as cancelled at once."""
        await self._before_turn()
        events = self._turn_events(text)
        try:
            async for event in events:
                if not self._cancels_here(event):
                    async for shown in self._take(event):
                        yield shown
                    continue
                # A playback of a turn that was cancelled when recorded: cancelled here.
                if isinstance(event, ApprovalRequested):
                    event.decision.cancel()  # a question nobody will answer: no modal
                if not isinstance(event, ToolStarted | ToolFinished):
                    self.events.append(event)  # a request or a question the customer saw
                    yield event
                break
        except (asyncio.CancelledError, GeneratorExit):
            if turn_open(self.events):
                self.events.append(cancelled_turn(self.events))
            raise
        finally:
            await events.aclose()  # the loop settles its history (open calls answered)
        if turn_open(self.events):
            async for shown in self._take(cancelled_turn(self.events)):
                yield shown

    async def _take(self, event: AgentEvent) -> AsyncGenerator[ShownEvent, None]:
        """One event of the turn: observed and kept; then what follows it."""
        extra = self._observe(event)
        self.events.append(event)
        if isinstance(event, CustomerBound):
            self.status.changed()  # the conversation acts for its customer now
        yield event
        for shown in extra:
            yield shown

    def _turn_events(self, text: str) -> AsyncGenerator[AgentEvent, None]:
        """Where the turn's events come from: the stack's loop."""
        if self.agent is None:
            raise RuntimeError("nothing is open to run a turn on")
        return self.agent.run_turn(text)

    async def _before_turn(self) -> None:
        """Before the loop sees the customer's message (live: copy the database)."""

    def _cancels_here(self, event: AgentEvent) -> bool:
        """Whether the turn is to be cancelled at this event (a playback's recording of
        a cancelled turn ends there)."""
        return False

    def _observe(self, event: AgentEvent) -> list[ScenarioDiverged]:
        """Each event of the turn before anyone else sees it; what to yield after it."""
        return []

    def last_cancelled(self) -> TurnFinished | None:
        """The record of the turn just cancelled, if the last turn was."""
        last = self.events[-1] if self.events else None
        if isinstance(last, TurnFinished) and last.reason == "cancelled":
            return last
        return None

    # -- the conversation -----------------------------------------------------------
    def new_conversation(self) -> None:
        """Nothing of the last conversation survives: a customer it bound neither."""
        self.events.clear()
        if self.agent is not None:
            self.agent.new_conversation()
        self.status.changed()

    def act_for(self, customer: str | None) -> None:
        """A new conversation, acting for `customer` from its start (None: nobody)."""
        self.events.clear()
        if self.agent is not None:
            self.agent.new_conversation(customer=customer)
        else:
            self._customer = customer
        self.status.changed()

    def close(self) -> None:
        if self.stack is not None:
            self.stack.close()
            self.stack = None

    # -- saving -----------------------------------------------------------------------
    def save_scenario(self, path: Path, redactor: Redactor) -> tuple[Path, str | None]:
        """Saved as a scenario file; and a warning when its replay may drift."""
        raise NotImplementedError

    def save_transcript(self, directory: Path, name: str, redactor: Redactor) -> list[Path]:
        from airline_agent.scenarios.transcript import write_transcript

        return list(write_transcript(self.events, directory, slug(name), redactor))


def turn_open(events: list[AgentEvent]) -> bool:
    """A turn started and has not finished (a cancel must record its end)."""
    for event in reversed(events):
        if isinstance(event, TurnFinished):
            return False
        if isinstance(event, TurnStarted):
            return True
    return False


def slug(text: str) -> str:
    import re

    name = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return name or "conversation"
