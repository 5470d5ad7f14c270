"""The event scheduler on its own: a host that records what it is asked to show, with
refreshes and timers on the event loop (no screen, no Textual)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from airline_agent.agent.events import (
    AssistantMessage,
    ReasoningDelta,
    TextDelta,
    TurnStarted,
    Usage,
    UsageReported,
)
from airline_agent.tui.scheduler import EventScheduler, coalesce_deltas
from airline_agent.tui.trace import TraceEntry

if TYPE_CHECKING:
    from airline_agent.tui.feed import ShownEvent

DEADLINE = 10.0


@dataclass
class Shown:
    pane: str  # "chat", "trace", "usage"
    what: list[object]
    in_chat: bool = True


@dataclass
class RecordingHost:
    """Refreshes run in order on one pump (as a message pump does); every pane change
    marks a frame a moment later (the layout signal); `gate` holds `show_event`."""

    shown: list[Shown] = field(default_factory=list)
    streaming: set[int] = field(default_factory=set)
    gate: asyncio.Event | None = None
    scheduler: EventScheduler | None = None
    _queue: asyncio.Queue = field(default_factory=asyncio.Queue)

    def start(self, clock: Callable[[], float] | None = None) -> EventScheduler:
        """The scheduler on this host; `clock` times its slices (the real clock if None)."""
        self.scheduler = (
            EventScheduler(self) if clock is None else EventScheduler(self, clock=clock)
        )
        self._pump = asyncio.get_running_loop().create_task(self._run())
        return self.scheduler

    async def _run(self) -> None:
        while True:
            callback = await self._queue.get()
            result = callback()
            if inspect.isawaitable(result):
                await result

    async def idle(self) -> None:
        """Until every refresh asked for so far has been taken up (timers not counted;
        one held at the gate counts as taken up)."""
        for _ in range(20):
            await until(self._queue.empty)
            await asyncio.sleep(0)

    # -- PaneHost -------------------------------------------------------------------
    async def show_event(self, event: ShownEvent, *, in_chat: bool) -> list[TraceEntry]:
        if self.gate is not None:
            await self.gate.wait()
        self.shown.append(Shown("chat", [event], in_chat))
        if in_chat and isinstance(event, TextDelta):
            self.streaming.add(event.request)
        return [TraceEntry("framework", type(event).__name__)]

    def show_trace(self, entries: list[TraceEntry]) -> None:
        self.shown.append(Shown("trace", list(entries)))
        self._frame()

    def show_usage(self, events: list[ShownEvent]) -> None:
        self.shown.append(Shown("usage", list(events)))
        self._frame()

    def chat_streaming(self, request: int) -> bool:
        return request in self.streaming

    def set_timer(self, delay: float, callback: Callable[[], object]) -> object:
        return asyncio.get_running_loop().call_later(delay, self._queue.put_nowait, callback)

    def call_after_refresh(self, callback: Callable[[], object]) -> bool:
        asyncio.get_running_loop().call_soon(self._queue.put_nowait, callback)
        return True

    def call_next(self, callback: Callable[[], object]) -> None:
        self._queue.put_nowait(callback)

    def _frame(self) -> None:
        assert self.scheduler is not None
        asyncio.get_running_loop().call_soon(self.scheduler.frame_painted)

    # -- reading what was shown ---------------------------------------------------------
    def chat_events(self) -> list[object]:
        return [s.what[0] for s in self.shown if s.pane == "chat"]


async def until(predicate: Callable[[], object]) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while not predicate():
        assert loop.time() < deadline, f"timed out waiting for {predicate}"
        await asyncio.sleep(0.005)


def _turn() -> list[ShownEvent]:
    return [
        TurnStarted(1, "Hello?"),
        UsageReported(1, Usage(100, 5), None, "scripted", 12.0),
        AssistantMessage(1, "Hello.", (), None, "stop", 12.0),
    ]


class SteppedClock:
    """A clock that moves only by `step` each time it is read (issue 19 item 27: with the
    real clock, a busy machine ended the 12 ms slice after one or two events)."""

    def __init__(self, step: float = 0.0) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


async def test_the_panes_take_turns_one_pane_per_frame() -> None:
    host = RecordingHost()
    scheduler = host.start(clock=SteppedClock())  # the slice never runs out here
    for event in _turn():
        scheduler.put_nowait(event)
    await until(lambda: scheduler.backlog == 0)
    panes = [s.pane for s in host.shown]
    # The slice shows every event in the chat, then the trace has its frame, then usage.
    assert panes == ["chat", "chat", "chat", "trace", "usage"]
    assert [e.title for e in host.shown[3].what] == [  # type: ignore[attr-defined]
        "TurnStarted",
        "UsageReported",
        "AssistantMessage",
    ]
    assert host.shown[4].what == _turn()


async def test_a_slice_ends_when_its_time_is_up_and_the_rest_follows() -> None:
    host = RecordingHost()
    # Read once for the deadline, then before each event: the third reading is past it.
    scheduler = host.start(clock=SteppedClock(step=0.005))
    scheduler.slice_seconds = 0.012
    for event in _turn():
        scheduler.put_nowait(event)
    await until(lambda: scheduler.backlog == 0)
    panes = [s.pane for s in host.shown]
    # Two events in the first slice, then the trace's and the usage's frames, then the
    # third event in the chat's next turn, and its trace and usage after it.
    assert panes == ["chat", "chat", "trace", "usage", "chat", "trace", "usage"]
    assert host.chat_events() == _turn()


async def test_the_worker_waits_while_max_behind_events_are_not_shown() -> None:
    host = RecordingHost(gate=asyncio.Event())  # the screen shows nothing for now
    scheduler = host.start()
    scheduler.max_behind = 3
    events = [TurnStarted(n, f"message {n}") for n in range(1, 6)]

    async def worker() -> None:
        for event in events:
            await scheduler.put(event)

    producing = asyncio.get_running_loop().create_task(worker())
    await until(lambda: scheduler.backlog >= 3)
    await host.idle()
    assert not producing.done()  # held at the third event
    assert scheduler.backlog == 3 + 1  # and a slice scheduled
    assert host.gate is not None
    host.gate.set()
    await asyncio.wait_for(producing, DEADLINE)
    await until(lambda: scheduler.backlog == 0)
    assert host.chat_events() == events


async def test_a_key_parks_the_events_until_its_frame_is_painted() -> None:
    host = RecordingHost()
    scheduler = host.start()
    scheduler.key_hold_seconds = 60.0  # only the key's own frame releases them here
    scheduler.hold_for_key()
    scheduler.put_nowait(TurnStarted(1, "Hello?"))
    await host.idle()
    assert host.shown == []  # the key's frame first
    assert scheduler.backlog == 1 + 1
    scheduler.key_handled()  # released two refreshes later
    await until(lambda: scheduler.backlog == 0)
    assert host.chat_events() == [TurnStarted(1, "Hello?")]


async def test_a_held_key_is_released_by_its_timer_when_no_binding_took_it() -> None:
    host = RecordingHost()
    scheduler = host.start()
    scheduler.key_hold_seconds = 0.05
    scheduler.hold_for_key()  # and never key_handled: a key no binding took
    scheduler.put_nowait(TurnStarted(1, "Hello?"))
    await until(lambda: scheduler.backlog == 0)
    assert host.chat_events() == [TurnStarted(1, "Hello?")]


async def test_a_first_text_whose_reply_ends_within_the_wait_is_shown_whole() -> None:
    host = RecordingHost()
    scheduler = host.start()
    scheduler.first_text_wait = 60.0  # longer than the test
    scheduler.put_nowait(TextDelta(1, "Hello, "))
    await host.idle()
    assert host.shown == []  # the first text waits for the rest
    scheduler.put_nowait(TextDelta(1, "how can I help?"))
    scheduler.put_nowait(AssistantMessage(1, "Hello, how can I help?", (), None, "stop", 5.0))
    await until(lambda: len(host.chat_events()) == 2)
    delta, whole = (s for s in host.shown if s.pane == "chat")
    assert delta.what == [TextDelta(1, "Hello, how can I help?")]  # joined, not streamed
    assert delta.in_chat is False  # the reply is shown whole instead
    assert whole.in_chat and isinstance(whole.what[0], AssistantMessage)


async def test_a_first_text_alone_streams_after_the_wait() -> None:
    host = RecordingHost()
    scheduler = host.start()
    scheduler.first_text_wait = 0.05
    scheduler.put_nowait(TextDelta(1, "Hello, "))
    await until(lambda: host.chat_events() == [TextDelta(1, "Hello, ")])
    scheduler.put_nowait(TextDelta(1, "how can I help?"))  # streaming now: at once
    await until(lambda: len(host.chat_events()) == 2)
    assert [s.in_chat for s in host.shown if s.pane == "chat"] == [True, True]


async def test_clear_drops_what_is_waiting() -> None:
    host = RecordingHost()
    scheduler = host.start()
    scheduler.key_hold_seconds = 60.0
    scheduler.hold_for_key()
    for event in _turn():
        scheduler.put_nowait(event)
    await host.idle()
    scheduler.clear()
    scheduler.key_handled()
    await until(lambda: scheduler.backlog == 0)
    assert host.shown == []


def test_adjacent_deltas_of_one_request_are_joined() -> None:
    events: list[ShownEvent] = [
        TextDelta(1, "a"),
        TextDelta(1, "b"),
        ReasoningDelta(1, "r"),
        ReasoningDelta(1, "s"),
        TextDelta(2, "c"),
        TextDelta(1, "d"),
    ]
    assert coalesce_deltas(events) == [
        TextDelta(1, "ab"),
        ReasoningDelta(1, "rs"),
        TextDelta(2, "c"),
        TextDelta(1, "d"),
    ]
