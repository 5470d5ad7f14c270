"""The debugger: the loop stepped and stopped on the wire, a request body or a tool call's
arguments edited before anything is sent or run, and a conversation forked at any step
with the database exactly as it was then.

The stack builds one (`stack.py`, `debug=True`) and gives it to the session as its hooks
(`use_hooks`; agent/hooks.py): the loop calls it at its points and knows nothing else of
it. Without one the loop holds nowhere and keeps no timeline. It owns:

- **Breakpoints** (agent/breakpoints.py), plain data read at each of the loop's points,
  so a toggle made while a turn runs counts from the next point on: `step` (stepping: hold before
  every request and every tool call), `request` (before every request), `write` (before
  any write tool call), `finding` (after a reply with a grounding finding), `error` (after
  an error result, or a request that failed).
- **Holds**: where a breakpoint says, the loop yields a `RequestHeld` (before a request is
  sent: nothing reaches the server until `send()`), a `ToolCallHeld` (before a call runs:
  `run()`), or a `TurnEndHeld` (a finding or an error in the turn's last steps: `go()`),
  and waits for the consumer's answer, as it waits for an approval. A finding or an error
  holds at the next of these points. `run_to_turn_end()` stops stepping until the turn
  ends (the other breakpoints still hold).
- **Branches**: the conversation as it began is branch 1; `fork(step)` makes a new branch
  whose conversation is the conversation right after that step (agent/steps.py numbers
  them; the state comes from the step's checkpoint) and whose database is the database
  as it was then, the original left as it is; `switch(branch)` makes a branch the one the
  session goes on with (`run_turn`, or `resume_turn` for a turn cut in the middle). Each
  branch keeps the events that make its record (no text deltas), for the trace and for
  saving it as a scenario.

How a fork gets its database: a deterministic replay. Before the conversation's first
write runs, its database is copied once (SQLite's backup API: `start_database`); each
write that changed rows is recorded with its arguments and the rows it changed. A fork
at step N copies that start and runs the writes up to N again through the tools (guard
off: each already passed the guard once), checking that each changes exactly the rows it
changed the first time; if one does not (another process changed the database under a
live conversation), the fork is refused, saying so. A conversation that has written
nothing yet forks to a copy of its database as it is. Keeping a step costs a checkpoint
(references and a few numbers), not a copy of the database. A fork is slow (a copy, and
the writes again): a front end calls `fork` off its event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from airline_agent.agent.breakpoints import Breakpoints
from airline_agent.agent.cancelled import cancelled_turn
from airline_agent.agent.conversation import Conversation
from airline_agent.agent.debugger_errors import BranchBusy, ForkFailed
from airline_agent.agent.events import (
    AgentEvent,
    AssistantMessage,
    CustomerBound,
    ErrorOccurred,
    GroundingWarning,
    HoldReason,
    LimitReached,
    PromptProgress,
    ReasoningDelta,
    RequestHeld,
    RequestSent,
    ResponseStalled,
    TextDelta,
    ToolCallDelta,
    ToolCallHeld,
    ToolFinished,
    TurnEndHeld,
    TurnFinished,
    TurnResumed,
    TurnStarted,
)
from airline_agent.agent.hooks import OutgoingCall, OutgoingRequest
from airline_agent.agent.steps import RecordedWrite, UnknownStep
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import RowChange
from airline_agent.tools.toolbox import Toolbox

# Events not kept in a branch's record: holds (a question of the moment) and the pieces
# of an answer as it streams (its `AssistantMessage` holds it whole).
_NOT_RECORDED = (
    RequestHeld,
    ToolCallHeld,
    TurnEndHeld,
    TextDelta,
    ReasoningDelta,
    ToolCallDelta,
    PromptProgress,
    ResponseStalled,
)
_STEP_EVENTS = (TurnStarted, RequestSent, AssistantMessage, ToolFinished)  # each has `.step`


class DebuggedSession(Protocol):
    """What a debugger steers of the session it is attached to (agent/loop.py's
    `AgentSession`): a branch switch gives it the branch's conversation and tools."""

    conversation: Conversation
    toolbox: Toolbox


class BranchDatabases(Protocol):
    """What a debugger needs of the stack: databases for its branches, each opened and
    given tools as the stack does it (stack.py). Each raises ForkFailed, saying why, for a
    database that cannot be copied (one that is not a SQLite file)."""

    def file_copy(self, toolbox: Toolbox) -> Path:
        """A copy of the toolbox's database as it is now, kept until `close`."""
        ...

    def copy(self, source: Path | Toolbox, like: Toolbox) -> Toolbox:
        """A new database of the branch's own, a copy of `source` (a `file_copy`, or a
        toolbox's database as it is now), with tools like `like`'s (clock, guard, scrub)."""
        ...

    def replaying(self, toolbox: Toolbox) -> Toolbox:
        """The same database and clock, guard off: for writes that already passed it."""
        ...

    def discard(self, toolbox: Toolbox) -> None:
        """Close a branch's database and remove its files."""
        ...

    def close(self) -> None: ...


@dataclass
class Branch:
    """One line of the conversation: its state, its database (through its tools) and the
    events of its record, in order."""

    number: int  # 1: the conversation as it began; 2, 3, …: forks, in the order made
    conversation: Conversation
    toolbox: Toolbox
    parent: int | None = None
    forked_at: int | None = None  # the parent's step it was forked after
    events: list[AgentEvent] = field(default_factory=list, repr=False)
    owns_database: bool = False  # a copy made for it, removed with it
    # Where each step's part of `events` ends: the step's event and what follows from it
    # (a grounding warning, a customer bound, a limit, the turn's end).
    _ends: dict[int, int] = field(default_factory=dict, repr=False)
    _last_step: int | None = field(default=None, repr=False)

    @property
    def database_file(self) -> Path | None:
        sqlite_file = self.toolbox.database.sqlite_file
        return sqlite_file.path if sqlite_file is not None else None

    def describe(self) -> str:
        """'branch 1 (as the conversation began)', 'branch 3: from branch 1 after step 7'."""
        if self.parent is None:
            return f"branch {self.number} (as the conversation began)"
        return f"branch {self.number}: from branch {self.parent} after step {self.forked_at}"

    def record(self, event: AgentEvent) -> None:
        self.events.append(event)
        if isinstance(event, _STEP_EVENTS) and event.step > 0:
            self._ends[event.step] = len(self.events)
            self._last_step = event.step
        elif self._follows_last_step(event):
            self._ends[self._last_step] = len(self.events)  # type: ignore[index]
        else:
            self._last_step = None

    def _follows_last_step(self, event: AgentEvent) -> bool:
        if self._last_step is None or self._ends.get(self._last_step) != len(self.events) - 1:
            return False
        if isinstance(event, TurnFinished):
            return event.reason != "cancelled"  # a cancel is no step's doing
        return isinstance(event, GroundingWarning | CustomerBound | LimitReached)

    def events_until(self, step: int) -> list[AgentEvent]:
        """The record as it was right after `step` (a fork may ask from a thread while a
        turn goes on: the marks are copied first, in one step)."""
        ends = [end for number, end in self._ends.copy().items() if number <= step]
        return self.events[: max(ends, default=0)]


class Debugger:
    """Breakpoints, holds and branches of one session's conversation (module docstring);
    the session's hooks (agent/hooks.py's `LoopHooks`)."""

    def __init__(self, session: DebuggedSession, databases: BranchDatabases) -> None:
        self.session = session
        self.databases = databases
        self.breakpoints = Breakpoints()
        self.branches: list[Branch] = []
        self.current: Branch | None = None
        self.running = False  # a turn runs (on `current`)
        self._root_toolbox = session.toolbox
        self._start: Path | None = None  # the database before the conversation's first write
        self._start_refused: str | None = None  # why it could not be copied
        self._to_turn_end = False
        self._pending: list[HoldReason] = []

    # -- the loop's side: its hooks ------------------------------------------------------

    def conversation_started(self, conversation: Conversation) -> None:
        """A new conversation: branch 1, on the stack's own database, keeping every step
        from step 0; every branch of the last one is dropped, its database removed."""
        conversation.keep_timeline()
        guard = self.session.toolbox.guard
        self._drop_branches()
        self._root_toolbox.guard = guard
        self.session.toolbox = self._root_toolbox
        self.current = Branch(1, conversation, self._root_toolbox)
        self.branches = [self.current]

    async def watch_turn(
        self, events: AsyncGenerator[AgentEvent, None]
    ) -> AsyncGenerator[AgentEvent, None]:
        """A turn's events as they pass: kept in the branch's record, findings and errors
        noted for the next hold. A turn closed before its end is recorded as cancelled."""
        branch = self.current
        assert branch is not None  # a conversation has started
        self.running = True
        open_turn = False
        try:
            async for event in events:
                if isinstance(event, TurnStarted | TurnResumed):
                    open_turn = True
                elif isinstance(event, TurnFinished) and event.reason != "cancelled":
                    open_turn = False
                self._observe(branch, event)
                yield event
            open_turn = False
        finally:
            await events.aclose()
            self.running = False
            self._to_turn_end = False
            self._pending.clear()
            if open_turn:
                branch.record(cancelled_turn(branch.events))

    def _observe(self, branch: Branch, event: AgentEvent) -> None:
        if isinstance(event, _NOT_RECORDED):
            return
        stops = self.breakpoints
        if isinstance(event, GroundingWarning) and stops.finding:
            self._note("finding")
        elif stops.error and (
            isinstance(event, ErrorOccurred)
            or (isinstance(event, ToolFinished) and event.error is not None)
        ):
            self._note("error")
        branch.record(event)

    def _note(self, reason: HoldReason) -> None:
        if reason not in self._pending:
            self._pending.append(reason)

    def _reasons(self, *, request: bool = False, write: bool = False) -> tuple[HoldReason, ...]:
        """Why the loop holds at this point (empty: it goes on); the noted ones are used."""
        stops = self.breakpoints
        reasons = list(self._pending)
        if stops.step and not self._to_turn_end:
            reasons.append("step")
        if request and stops.request:
            reasons.append("request")
        if write and stops.write:
            reasons.append("write")
        self._pending.clear()
        return tuple(dict.fromkeys(reasons))

    async def before_request(self, request: OutgoingRequest) -> AsyncIterator[AgentEvent]:
        """Held if a breakpoint says so: nothing is sent until the consumer answers, with
        the body as assembled or with its edit."""
        reasons = self._reasons(request=True)
        if not reasons:
            return
        conversation = request.conversation
        held = RequestHeld(
            turn=conversation.turns,
            request=conversation.requests + 1,
            step=conversation.steps + 1,
            body=request.body,
            reasons=reasons,
            release=asyncio.get_running_loop().create_future(),
        )
        yield held
        release = await held.release
        if release.edited is not None and release.wire is not None:
            request.replace_body(release.edited, release.wire)

    async def before_call(self, call: OutgoingCall) -> AsyncIterator[AgentEvent]:
        """Before a write, the first in the conversation, its database is copied (the
        start every fork replays on); then the call is held if a breakpoint says so, and
        goes on with the model's arguments or with the consumer's."""
        if call.write:
            await self._copy_start()
        reasons = self._reasons(write=call.write)
        if not reasons:
            return
        plan, conversation = call.plan, call.conversation
        refusal = None if plan.will_run else str((plan.error or {}).get("error", "INTERNAL_ERROR"))
        held = ToolCallHeld(
            request=conversation.requests,
            step=conversation.steps + 1,
            call=plan.call,
            write=call.write,
            refusal=refusal,
            reasons=reasons,
            release=asyncio.get_running_loop().create_future(),
        )
        yield held
        release = await held.release
        if release.arguments is not None:
            call.replace_arguments(release.arguments)

    async def before_turn_ends(self, conversation: Conversation) -> AsyncIterator[AgentEvent]:
        """A finding or an error noted in the turn's last steps holds its end."""
        if not self._pending:
            return
        reasons = tuple(self._pending)
        self._pending.clear()
        loop = asyncio.get_running_loop()
        held = TurnEndHeld(conversation.turns, conversation.steps, reasons, loop.create_future())
        yield held
        await held.release

    async def _copy_start(self) -> None:
        """Before a write tool runs: the first time in this conversation, its database is
        copied as it is (the start every fork replays on)."""
        if self._start is not None or self._start_refused is not None:
            return
        try:
            self._start = await asyncio.to_thread(self.databases.file_copy, self.session.toolbox)
        except ForkFailed as refused:  # a database that is no SQLite file: no forks
            self._start_refused = str(refused)

    # -- the front end's side -------------------------------------------------------------

    def run_to_turn_end(self) -> None:
        """Stop stepping until the running turn ends (the other breakpoints still hold);
        the consumer then releases the hold it is at."""
        self._to_turn_end = True

    @property
    def start_database(self) -> Path | None:
        """The database as the conversation began, copied before its first write; None
        while nothing has been written (the database is then as it began)."""
        return self._start

    def branch(self, number: int) -> Branch:
        for branch in self.branches:
            if branch.number == number:
                return branch
        raise LookupError(f"there is no branch {number}")

    def fork(self, step: int, of: Branch | None = None) -> Branch:
        """A new branch: `of`'s conversation (default: the current branch) right after
        `step`, on a copy of the database as it was then; `of` is left as it is. Slow (a
        copy of the database, and the writes up to `step` again): call it off the UI's
        event loop. Raises ForkFailed, saying why, when it cannot be made."""
        source = of or self.current
        if source is None:
            raise ForkFailed("there is no conversation to fork yet")
        try:
            conversation = source.conversation.restored(step)
        except UnknownStep as unknown:
            raise ForkFailed(str(unknown)) from None
        assert conversation.timeline is not None  # restored keeps it
        toolbox = self._database_at(source, conversation.timeline.writes)
        branch = Branch(
            max((b.number for b in self.branches), default=0) + 1,
            conversation,
            toolbox,
            parent=source.number,
            forked_at=step,
            owns_database=True,
        )
        for event in source.events_until(step):
            branch.record(event)
        _close_a_finished_turn(branch)
        self.branches.append(branch)
        return branch

    def switch(self, branch: Branch) -> None:
        """Go on with `branch`: the session's conversation and tools become its own."""
        if self.running:
            raise BranchBusy("a turn is running: cancel it or let it end before switching")
        branch.toolbox.guard = self.session.toolbox.guard  # the guard is the session's
        self.session.conversation = branch.conversation
        self.session.toolbox = branch.toolbox
        self.current = branch

    def close(self) -> None:
        """Every branch's database and the start copy removed (the stack's own stays)."""
        self._drop_branches()
        self.databases.close()

    def _drop_branches(self) -> None:
        for branch in self.branches:
            if branch.owns_database:
                self.databases.discard(branch.toolbox)
        self.branches, self.current = [], None
        self._start = self._start_refused = None
        self._pending.clear()

    def _database_at(self, source: Branch, writes: list[RecordedWrite]) -> Toolbox:
        if self._start_refused is not None:
            raise ForkFailed(self._start_refused)
        if self._start is None:
            if writes:
                raise ForkFailed("the database was not copied before the first write")
            # Nothing written yet, in any branch: every database is as the conversation began.
            return self.databases.copy(source.toolbox, like=source.toolbox)
        toolbox = self.databases.copy(self._start, like=source.toolbox)
        try:
            _replay(self.databases.replaying(toolbox), writes)
        except BaseException:
            self.databases.discard(toolbox)
            raise
        return toolbox


def _replay(toolbox: Toolbox, writes: list[RecordedWrite]) -> None:
    """The writes again, in order, each checked to change exactly the rows it changed (in
    any order: the guard's reads, off here, order a write's flush differently)."""
    for write in writes:
        outcome = toolbox.call(write.name, write.arguments, ToolConversation())
        if outcome.error is not None or _by_row(outcome.changes) != _by_row(write.changes):
            what = outcome.error or "other rows than it changed then"
            raise ForkFailed(
                f"step {write.step} ({write.name}) does not do again what it did ({what}): "
                "the database changed under the conversation, so no copy would be the "
                "database as it was; nothing was forked"
            )


def _by_row(changes: tuple[RowChange, ...]) -> dict[tuple[str, str], RowChange]:
    return {(change.table, change.key): change for change in changes}


def _close_a_finished_turn(branch: Branch) -> None:
    """A fork right after a turn's last step: that turn is over, not cut."""
    conversation = branch.conversation
    turn = conversation.cut_turn
    if turn is None:
        return
    if branch.events and isinstance(branch.events[-1], TurnFinished):
        conversation.cut_turn = None
        return
    last = conversation.history[-1] if conversation.history else None
    answered = last is not None and last["role"] == "assistant" and not last.get("tool_calls")
    if answered and turn.requests:
        conversation.cut_turn = None
        branch.record(TurnFinished(turn.number, "answered", turn.spend.usage, turn.spend.cost))
