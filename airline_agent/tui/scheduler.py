"""When the events of a turn go on screen: in slices, one pane per frame, never in front
of a key, a reply's first words held a moment for the rest.

The turn's worker produces events faster than a terminal can show them (a scripted
scenario: thousands a second). Shown one by one, every event would lay the screen out;
shown all at once, a key pressed meanwhile would wait behind seconds of drawing. So:

- **Backlog, backpressure.** The worker `put`s each event; the scheduler shows them in
  slices of at most `slice_seconds`, after the screen has painted (and read keys). The
  worker waits while `max_behind` events are not shown yet.
- **Pane turns.** A frame shows the new chat messages, or the new trace entries, or the
  new usage rows: a frame that changes all three draws the whole screen (tens of
  milliseconds, and a key pressed meanwhile waits for it); one pane at a time is a third
  of that, the panes a frame or two apart.
- **Key hold.** A key press parks the events until its effect is painted: that frame
  shows the key's effect alone instead of beside a slice of pane updates.
- **First-text wait.** The first text of a reply, with nothing after it yet, waits
  `first_text_wait` for the rest: in a fast scenario (or a burst from the server) the end
  is there by then and the reply is shown whole; otherwise it streams, its first words
  that much later.

The scheduler decides only *when*; its host (the main screen) decides *how* an event is
shown (`PaneHost`). It times nothing itself but slices: the host's timers and refreshes
are Textual's, or a test's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from airline_agent.agent.events import AssistantMessage, ReasoningDelta, TextDelta

if TYPE_CHECKING:
    from airline_agent.tui.feed import ShownEvent
    from airline_agent.tui.trace import TraceEntry

MAX_BEHIND = 64  # events produced but not yet shown before the worker waits
SLICE_SECONDS = 0.012  # showing events before the screen paints and reads keys again
KEY_HOLD_SECONDS = 0.1  # longest the events wait for a key's frame (a key no binding took)
FIRST_TEXT_WAIT = 0.03  # a reply's first text, alone, waits this long for the rest
FRAME_FALLBACK = 0.05  # the next pane's turn at the latest this long after the last
PANE_ORDER = ("chat", "trace", "usage")

Callback = Callable[[], object] | Callable[[], Awaitable[object]]


class PaneHost(Protocol):
    """What the scheduler needs of the screen it shows events on."""

    async def show_event(self, event: ShownEvent, *, in_chat: bool) -> list[TraceEntry]:
        """The event goes on screen now: in the chat unless `in_chat` is False (its whole
        reply is coming); returns the trace entries it makes, shown in the trace's turn."""
        ...

    def show_trace(self, entries: list[TraceEntry]) -> None: ...

    def show_usage(self, events: list[ShownEvent]) -> None: ...

    def chat_streaming(self, request: int) -> bool:
        """Text or reasoning of this request is already on screen, streaming."""
        ...

    # Timing, as any Textual message pump offers it.
    def set_timer(self, delay: float, callback: Callback) -> object: ...

    def call_after_refresh(self, callback: Callback) -> bool: ...

    def call_next(self, callback: Callback) -> None: ...


class EventScheduler:
    """Shows a turn's events on a `PaneHost` (see the module's docstring)."""

    def __init__(self, host: PaneHost, *, clock: Callable[[], float] = time.perf_counter) -> None:
        self.host = host
        self.clock = clock
        self.max_behind = MAX_BEHIND
        self.slice_seconds = SLICE_SECONDS
        self.key_hold_seconds = KEY_HOLD_SECONDS
        self.first_text_wait = FIRST_TEXT_WAIT
        self.frame_fallback = FRAME_FALLBACK
        self._backlog: list[ShownEvent] = []  # not shown in the chat yet, in order
        self._trace_waiting: list[TraceEntry] = []
        self._usage_waiting: list[ShownEvent] = []
        self._slice_scheduled = False  # a slice is scheduled (or under way)
        self._pane_turn = 0  # index into PANE_ORDER: whose changes the next frame shows
        self._waiting_for_frame = False
        self._caught_up = asyncio.Event()
        self._text_seen_at: dict[int, float] = {}  # request → when its first text was held
        self._key_pending = False
        self._key_number = 0  # which key is held: a released key's timer lets no other go
        self._parked = False

    # -- what the worker and the screen call ------------------------------------------
    async def put(self, event: ShownEvent) -> None:
        """From the turn's worker: show this event; returns when the worker may go on
        (at once, or when the screen has caught up with `max_behind` events)."""
        self.put_nowait(event)
        if len(self._backlog) >= self.max_behind:
            self._caught_up.clear()
            await self._caught_up.wait()
        else:
            # The loop can run many events without awaiting anything (scripted model,
            # sync tools): yield so key presses and frames get through.
            await asyncio.sleep(0)

    def put_nowait(self, event: ShownEvent) -> None:
        """Show this event after what is waiting (no backpressure: from the screen)."""
        self._backlog.append(event)
        self._schedule_slice()

    def new_turn(self) -> None:
        """A turn starts: its replies' first texts have not been seen."""
        self._text_seen_at.clear()

    def clear(self) -> None:
        """A new conversation: nothing waiting is shown any more."""
        self._backlog.clear()
        self._trace_waiting.clear()
        self._usage_waiting.clear()
        self._caught_up.set()

    @property
    def backlog(self) -> int:
        """Events produced but not shown yet in every pane (and a slice to come)."""
        return self._not_shown() + self._slice_scheduled

    @property
    def held_text(self) -> int | None:
        """The request whose first text waits for the rest of its reply, if one does."""
        head = self._backlog[0] if self._backlog else None
        if isinstance(head, TextDelta | ReasoningDelta) and head.request in self._text_seen_at:
            return head.request
        return None

    def frame_painted(self, _: object = None) -> None:
        """The screen laid itself out (Textual's layout signal): the next pane's turn."""
        if self._waiting_for_frame:
            self._waiting_for_frame = False
            self.host.call_next(self._show_backlog)

    def hold_for_key(self) -> None:
        """A key arrived (the app calls this first): no new events until it is shown."""
        if not self._key_pending:
            self._key_pending = True
            self._key_number += 1
            number = self._key_number
            self.host.set_timer(self.key_hold_seconds, lambda: self._release_events(number))

    def key_handled(self) -> None:
        """The key went through the bindings: events again once its frame is painted.

        Two refreshes: the frame under way when the key was handled may have started
        before the key's changes reached the screen; the next one has them.
        """
        if self._key_pending:
            number = self._key_number
            self.host.call_after_refresh(
                lambda: self.host.call_after_refresh(lambda: self._release_events(number))
            )

    # -- slices -----------------------------------------------------------------------
    def _schedule_slice(self) -> None:
        if not self._slice_scheduled:
            # After the next frame: the screen paints (and handles keys) between slices
            # instead of never going idle while a fast turn plays.
            self._slice_scheduled = True
            self.host.call_after_refresh(self._show_backlog)

    def _not_shown(self) -> int:
        return len(self._backlog) + len(self._trace_waiting) + len(self._usage_waiting)

    def _after_next_frame(self) -> None:
        """The next pane's turn once the screen has painted this one.

        Not `call_after_refresh`: that runs at once when the screen has not yet heard of
        the pane's change (its refresh reaches the screen a message later), and the next
        pane would join this frame. Every pane change lays the screen out, so the layout
        signal marks its frame; a timer covers a change that needed none.
        """
        self._waiting_for_frame = True
        self.host.set_timer(self.frame_fallback, self.frame_painted)

    def _pane_to_show(self) -> str | None:
        """The next pane in turn that has something new to show."""
        waiting = {
            "chat": bool(self._backlog),
            "trace": bool(self._trace_waiting),
            "usage": bool(self._usage_waiting),
        }
        for step in range(len(PANE_ORDER)):
            pane = PANE_ORDER[(self._pane_turn + step) % len(PANE_ORDER)]
            if waiting[pane]:
                self._pane_turn = (PANE_ORDER.index(pane) + 1) % len(PANE_ORDER)
                return pane
        return None

    def _release_events(self, number: int) -> None:
        if number != self._key_number or not self._key_pending:
            return  # an earlier key's timer or frame: the current key is still held
        self._key_pending = False
        if self._parked:
            self._parked = False
            self.host.call_after_refresh(self._show_backlog)

    async def _show_backlog(self) -> None:
        if self._key_pending:
            self._parked = True  # `_release_events` schedules this again
            return
        pane = self._pane_to_show()
        if pane == "trace":
            entries, self._trace_waiting = self._trace_waiting, []
            self.host.show_trace(entries)
        elif pane == "usage":
            events, self._usage_waiting = self._usage_waiting, []
            self.host.show_usage(events)
        if pane != "chat":
            if self._not_shown():
                self._after_next_frame()
            else:
                self._slice_scheduled = False
            return
        held = 0.0
        try:
            held = await self._show_chat_slice()
        finally:
            self._after_chat_slice(held)

    def _after_chat_slice(self, held: float) -> None:
        if held > 0 and not (self._trace_waiting or self._usage_waiting):
            # Shown after the wait, or as soon as anything follows it (the worker
            # schedules the next slice for its next event): whole if that is its end.
            self._slice_scheduled = False
            self.host.set_timer(held, lambda: self.host.call_after_refresh(self._show_backlog))
        elif self._not_shown():
            self._after_next_frame()
        else:
            self._slice_scheduled = False

    async def _show_chat_slice(self) -> float:
        """The chat's turn: what arrived since its last turn goes on screen together (one
        layout for many events, streamed text joined first), but for `slice_seconds` at
        most, so a key never waits behind a long batch. Returns how much longer the text
        at the head of the backlog waits for the rest of its reply (0: none waits)."""
        deadline = self.clock() + self.slice_seconds
        held = 0.0
        try:
            while self._backlog and self.clock() < deadline and not self._key_pending:
                if isinstance(self._backlog[0], TextDelta | ReasoningDelta):
                    self._backlog[:] = coalesce_deltas(self._backlog)
                    held = self._first_text_wait()
                    if held > 0:
                        break
                event = self._backlog.pop(0)
                if len(self._backlog) < self.max_behind:
                    self._caught_up.set()
                in_chat = not self._whole_reply_waiting(event)
                self._trace_waiting.extend(await self.host.show_event(event, in_chat=in_chat))
                self._usage_waiting.append(event)
        finally:
            if len(self._backlog) < self.max_behind:
                self._caught_up.set()
        return held

    def _first_text_wait(self) -> float:
        """How much longer the text at the head of the backlog waits (0: show it now).

        Only the first text of a reply, with nothing after it yet, waits; once a reply
        streams, or anything follows its text, it is shown at once.
        """
        text = self._backlog[0]
        assert isinstance(text, TextDelta | ReasoningDelta)
        if len(self._backlog) > 1 or self.host.chat_streaming(text.request):
            return 0.0
        now = self.clock()
        first_seen = self._text_seen_at.setdefault(text.request, now)
        return max(0.0, first_seen + self.first_text_wait - now)

    def _whole_reply_waiting(self, event: ShownEvent) -> bool:
        """A delta whose complete response is also waiting to be shown (fast playback, a
        burst from the server): the chat shows that reply whole when it comes, instead of
        streaming it through a live Markdown only to replace it a moment later."""
        if not isinstance(event, TextDelta | ReasoningDelta):
            return False
        if self.host.chat_streaming(event.request):
            return False  # part of it is on screen already: the rest streams after it
        return any(
            isinstance(waiting, AssistantMessage) and waiting.request == event.request
            for waiting in self._backlog
        )


def coalesce_deltas(events: list[ShownEvent]) -> list[ShownEvent]:
    """Adjacent text (or reasoning) deltas of one request joined into one, so the chat
    appends once per batch instead of once per token."""
    joined: list[ShownEvent] = []
    for event in events:
        last = joined[-1] if joined else None
        if (
            isinstance(event, TextDelta | ReasoningDelta)
            and isinstance(last, TextDelta | ReasoningDelta)
            and type(last) is type(event)
            and last.request == event.request
        ):
            joined[-1] = replace(last, text=last.text + event.text)
        else:
            joined.append(event)
    return joined
