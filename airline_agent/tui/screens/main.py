"""The main screen: status line, chat | trace | usage, footer; runs turns in workers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, ProgressBar
from textual.worker import Worker, WorkerState

from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessage,
    ReasoningDelta,
    TextDelta,
    TurnFinished,
    TurnStarted,
    Usage,
)
from airline_agent.tui.collector import (
    defer_full_collections,
    freeze_startup_heap,
    resume_full_collections,
)
from airline_agent.tui.messages import (
    SeedingProgress,
    TurnEnded,
    coalesce_deltas,
)
from airline_agent.tui.request_log import RequestLog
from airline_agent.tui.screens.picker import ScenarioPicker
from airline_agent.tui.trace import TraceBuilder, TraceEntry
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.status_bar import StatusBar
from airline_agent.tui.widgets.trace_pane import TracePane
from airline_agent.tui.widgets.usage_pane import UsagePane

if TYPE_CHECKING:
    from airline_agent.tui.controller import SessionController

# Modal screens are imported where they open: the first frame does not wait for them.


MAX_BEHIND = 64  # events produced but not yet shown before the worker waits
SLICE_SECONDS = 0.012  # showing events before the screen paints and reads keys again
KEY_HOLD_SECONDS = 0.1  # longest the events wait for a key's frame (a key no binding took)
# The first text of a reply, with nothing after it yet, waits this long for the rest: in
# a fast scenario (or a burst from the server) the end is there by then and the reply is
# shown whole; otherwise it streams, its first words this much later.
FIRST_TEXT_WAIT = 0.03
PANE_ORDER = ("chat", "trace", "usage")
FRAME_FALLBACK = 0.05  # the next pane's turn at the latest this long after the last


class MainScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "step", "Next step"),
        Binding("a", "autoplay", "Auto-play"),
        Binding("l", "library", "Library"),
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("i", "inspect", "Inspector"),
        Binding("u", "switch_customer", "Customer"),
        Binding("n", "new_conversation", "New"),
        Binding("g", "toggle_guard", "Guard"),
        Binding("r", "reset_database", "Reset db"),
        Binding("s", "save_scenario", "Save scenario"),
        Binding("t", "save_transcript", "Transcript"),
    ]

    def __init__(self, controller: SessionController, *, pace: float = 0.25) -> None:
        super().__init__()
        self.controller = controller
        self.pace = pace  # seconds between events while auto-playing: readable, not slow
        self.autoplay = False
        self.requests = RequestLog()
        self.trace_builder = TraceBuilder()
        self.turn_worker: Worker | None = None
        self.current_turn = 0
        # Events the turn worker produced, shown in slices by `_show_backlog`.
        # Backpressure: the worker waits while the screen is `MAX_BEHIND` events behind,
        # so key presses never queue behind a flood of events.
        self._backlog: list[AgentEvent] = []
        self._flush_posted = False
        self._text_seen_at: dict[int, float] = {}  # request → when its first text was held
        # The panes take turns: a frame shows the new chat messages, or the new trace
        # entries, or the new usage rows. A frame that changes all three panes draws
        # the whole screen (tens of milliseconds, and a key pressed meanwhile waits for
        # it); one pane at a time is a third of that, the panes a frame or two apart.
        self._trace_waiting: list[TraceEntry] = []
        self._usage_waiting: list[AgentEvent] = []
        self._pane_turn = 0  # index into PANE_ORDER: whose changes the next frame shows
        self._waiting_for_frame = False
        self._caught_up = asyncio.Event()
        # A key press parks the events until its effect is painted: that frame then
        # shows the key's effect alone instead of beside a slice of pane updates.
        self._key_pending = False
        self._key_number = 0  # which key is held: a released key's timer lets no other go
        self._parked = False
        self.ready = controller.mode == "offline"

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        yield ProgressBar(id="seeding", show_eta=False)
        with Horizontal(id="panes"):
            yield ChatPane(id="chat")
            yield TracePane(id="trace")
            yield UsagePane(id="usage")
        yield Footer()

    # -- panes ---------------------------------------------------------------------
    @property
    def chat(self) -> ChatPane:
        return self.query_one(ChatPane)

    @property
    def trace(self) -> TracePane:
        return self.query_one(TracePane)

    @property
    def usage(self) -> UsagePane:
        return self.query_one(UsagePane)

    def refresh_status(self, busy: str = "") -> None:
        self.query_one(StatusBar).status = self.controller.status.with_(busy=busy)

    def on_mount(self) -> None:
        self.screen_layout_refresh_signal.subscribe(self, self._frame_painted)
        self.query_one("#seeding").display = False
        self.refresh_status()
        live = self.controller.mode == "live"
        self.chat.input.disabled = not live
        if not live:
            self.chat.input.placeholder = "Offline: space plays the next step, a auto-plays"
        if live:
            self.prepare()
        else:
            self.trace.focus()

    # -- start-up: settings, then open (and seed) the database, in workers ----------
    async def _settled(self) -> bool:
        """The full settings are read; False (and the app closing) if one is unusable."""
        try:
            await self.controller.settle()
        except Exception as error:
            from airline_agent.config import SettingsError

            if not isinstance(error, SettingsError):
                raise
            self.app.fail(str(error))  # type: ignore[attr-defined]
            return False
        self.refresh_status()
        return True

    @work(exclusive=True, group="settings")
    async def settle_settings(self) -> None:
        await self._settled()

    @work(exclusive=True, group="database")
    async def prepare(self) -> None:
        if not await self._settled():
            return
        self.refresh_status("opening database…")
        try:
            await self.controller.prepare(self._progress)
        except Exception as error:
            self.refresh_status()
            await self.chat.add_message("error", f"Could not open the session: {error}")
            return
        finally:
            self.query_one("#seeding").display = False
        self.ready = True
        self.refresh_status()
        self.chat.input.focus()

    def _progress(self, stage: str, done: int, total: int) -> None:
        self.post_message(SeedingProgress(stage, done, total))

    def on_seeding_progress(self, message: SeedingProgress) -> None:
        bar = self.query_one("#seeding", ProgressBar)
        bar.display = True
        bar.update(total=message.total or None, progress=message.done)
        self.refresh_status(f"building database: {message.stage}…")

    # -- turns ----------------------------------------------------------------------
    @property
    def turn_running(self) -> bool:
        return self.turn_worker is not None and self.turn_worker.state in (
            WorkerState.PENDING,
            WorkerState.RUNNING,
        )

    def start_turn(self, text: str) -> None:
        freeze_startup_heap()
        defer_full_collections()  # resumed when the conversation comes to rest
        self.refresh_status("agent working… esc cancels")
        self._text_seen_at.clear()
        self.turn_worker = self.run_turn(text)

    @work(exclusive=True, group="turn")
    async def run_turn(self, text: str) -> None:
        try:
            async for event in self.controller.run_turn(text):
                self._backlog.append(event)
                if not self._flush_posted:
                    # After the next frame: the screen paints (and handles keys) between
                    # batches instead of never going idle while a fast turn plays.
                    self._flush_posted = True
                    self.call_after_refresh(self._show_backlog)
                if len(self._backlog) >= MAX_BEHIND:
                    self._caught_up.clear()
                    await self._caught_up.wait()
                else:
                    # The loop can run many events without awaiting anything (scripted
                    # model, sync tools): yield so key presses and frames get through.
                    await asyncio.sleep(0)
                if self.autoplay and self.pace:
                    await asyncio.sleep(self.pace)
        except asyncio.CancelledError:
            self.post_message(TurnEnded("cancelled"))
            raise
        except Exception as error:
            self.post_message(TurnEnded("failed", str(error)))
        else:
            self.post_message(TurnEnded("finished"))

    @property
    def backlog(self) -> int:
        """Events the worker produced that the panes do not show yet (and a slice to come)."""
        return self._not_shown() + self._flush_posted

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
        self.set_timer(FRAME_FALLBACK, self._frame_painted)

    def _frame_painted(self, _: object = None) -> None:
        if self._waiting_for_frame:
            self._waiting_for_frame = False
            self.call_next(self._show_backlog)

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

    def hold_for_key(self) -> None:
        """A key arrived (the app calls this first): no new events until it is shown."""
        if not self._key_pending:
            self._key_pending = True
            self._key_number += 1
            number = self._key_number
            self.set_timer(KEY_HOLD_SECONDS, lambda: self._release_events(number))

    def key_handled(self) -> None:
        """The key went through the bindings: events again once its frame is painted.

        Two refreshes: the frame under way when the key was handled may have started
        before the key's changes reached the screen; the next one has them.
        """
        if self._key_pending:
            number = self._key_number
            self.call_after_refresh(
                lambda: self.call_after_refresh(lambda: self._release_events(number))
            )

    def _release_events(self, number: int) -> None:
        if number != self._key_number or not self._key_pending:
            return  # an earlier key's timer or frame: the current key is still held
        self._key_pending = False
        if self._parked:
            self._parked = False
            self.call_after_refresh(self._show_backlog)

    async def _show_backlog(self) -> None:
        if self._key_pending:
            self._parked = True  # `_release_events` schedules this again
            return
        pane = self._pane_to_show()
        if pane == "trace":
            entries, self._trace_waiting = self._trace_waiting, []
            self.trace.add_entries(entries)
        elif pane == "usage":
            events, self._usage_waiting = self._usage_waiting, []
            self.usage.show_all(events)
        if pane != "chat":
            if self._not_shown():
                self._after_next_frame()
            else:
                self._flush_posted = False
            return
        # The chat's turn: what arrived since its last turn goes on screen together (one
        # layout for many events, streamed text joined first), but for `SLICE_SECONDS`
        # at most, so a key never waits behind a long batch.
        deadline = time.perf_counter() + SLICE_SECONDS
        held = 0.0  # seconds the first text of a reply still waits for the rest
        try:
            while self._backlog and time.perf_counter() < deadline and not self._key_pending:
                if isinstance(self._backlog[0], TextDelta | ReasoningDelta):
                    self._backlog[:] = coalesce_deltas(self._backlog)
                    held = self._first_text_wait()
                    if held > 0:
                        break
                event = self._backlog.pop(0)
                if len(self._backlog) < MAX_BEHIND:
                    self._caught_up.set()
                await self._show(event)
        finally:
            if held > 0 and not (self._trace_waiting or self._usage_waiting):
                # Shown after the wait, or as soon as anything follows it (the worker
                # schedules the next slice for its next event): whole if that is its end.
                self._flush_posted = False
                self.set_timer(held, lambda: self.call_after_refresh(self._show_backlog))
            elif self._not_shown():
                self._after_next_frame()
            else:
                self._flush_posted = False
            if len(self._backlog) < MAX_BEHIND:
                self._caught_up.set()

    async def _show(self, event: AgentEvent) -> None:
        from airline_agent.tui.screens.approval import ApprovalScreen

        if isinstance(event, TurnStarted):
            self.current_turn = event.turn
        self.requests.record(event)
        if not self._whole_reply_waiting(event):
            await self.chat.show(event)
        self._trace_waiting.extend(self.trace_builder.feed(event))
        self._usage_waiting.append(event)
        if isinstance(event, ApprovalRequested) and not event.decision.done():
            self.app.push_screen(ApprovalScreen(event.calls), callback=event.decide)

    def _first_text_wait(self) -> float:
        """How much longer the text at the head of the backlog waits (0: show it now).

        Only the first text of a reply, with nothing after it yet, waits; once a reply
        streams, or anything follows its text, it is shown at once.
        """
        text = self._backlog[0]
        assert isinstance(text, TextDelta | ReasoningDelta)
        if len(self._backlog) > 1 or self.chat.streaming(text.request):
            return 0.0
        now = time.perf_counter()
        first_seen = self._text_seen_at.setdefault(text.request, now)
        return max(0.0, first_seen + FIRST_TEXT_WAIT - now)

    def _whole_reply_waiting(self, event: AgentEvent) -> bool:
        """A delta whose complete response is also waiting to be shown (fast playback, a
        burst from the server): the chat shows that reply whole when it comes, instead of
        streaming it through a live Markdown only to replace it a moment later."""
        if not isinstance(event, TextDelta | ReasoningDelta):
            return False
        if self.chat.streaming(event.request):
            return False  # part of it is on screen already: the rest streams after it
        return any(
            isinstance(waiting, AssistantMessage) and waiting.request == event.request
            for waiting in self._backlog
        )

    async def on_turn_ended(self, message: TurnEnded) -> None:
        self.refresh_status()
        if message.how == "cancelled":
            await self.chat.turn_cancelled()
            cancelled = TurnFinished(self.current_turn, "cancelled", Usage(), None)
            self._trace_waiting.extend(self.trace_builder.feed(cancelled))
            if not self._flush_posted:
                self._flush_posted = True
                self.call_after_refresh(self._show_backlog)
        elif message.how == "failed":
            await self.chat.add_message("error", f"The turn failed: {message.detail}")
        if self.autoplay and message.how == "finished":
            if self.controller.steps_left:
                self.set_timer(max(self.pace * 4, 0.01), self.action_step)
                return  # still playing
            self.autoplay = False
            self.notify("End of the scenario. l opens the library.")
        resume_full_collections()

    @on(ChatPane.Submitted)
    def send_customer_message(self, message: ChatPane.Submitted) -> None:
        if self.controller.mode != "live":
            return
        if not self.ready:
            self.notify("The database is still being prepared.", severity="warning")
        elif self.turn_running:
            self.notify("The agent is still answering (esc cancels).", severity="warning")
        else:
            self.start_turn(message.text)

    @on(TracePane.EntryChosen)
    def open_entry(self, message: TracePane.EntryChosen) -> None:
        from airline_agent.tui.screens.details import EntryDetailsScreen
        from airline_agent.tui.screens.inspector import InspectorScreen

        entry = message.entry
        if entry.producer == "api" and entry.request is not None:
            self.app.push_screen(
                InspectorScreen(self.requests, entry.request, secret=self.controller.secret)
            )
        else:
            self.app.push_screen(EntryDetailsScreen(entry, secret=self.controller.secret))

    # -- actions --------------------------------------------------------------------
    def action_step(self) -> None:
        if self.controller.mode == "live":
            self.notify("Live mode: type as the customer. Scenarios: l.")
            return
        if self.turn_running:
            return
        text = self.controller.next_customer_message()
        if text is None:
            self.autoplay = False
            if self.controller.scenario_name is None:
                self.action_library()
            else:
                self.notify("End of the scenario. l opens the library, r plays it again.")
            return
        self.start_turn(text)

    def action_autoplay(self) -> None:
        self.autoplay = not self.autoplay
        self.notify(f"Auto-play {'on' if self.autoplay else 'off'}.")
        if self.autoplay and not self.turn_running:
            self.action_step()

    def action_library(self) -> None:
        reason = ""
        if self.controller.mode == "offline":
            reason = (
                "Offline: no model configured (set AIRLINE_AGENT_MODEL or --model for live chat). "
                "Scenarios run through the real loop and tools with scripted model responses."
            )
        self.app.push_screen(
            ScenarioPicker(
                self.controller.scenario_choices,
                quick=self.controller.quick_choices,
                offline_reason=reason,
            ),
            callback=self._scenario_chosen,
        )

    def _scenario_chosen(self, name: str | None) -> None:
        if name:
            self.play_scenario(name)

    @work(exclusive=True, group="turn")
    async def play_scenario(self, name: str) -> None:
        self.autoplay = False
        if not await self._settled():
            return
        self.refresh_status(f"preparing scenario {name}…")
        try:
            await self.controller.start_scenario(name, self._progress)
        except Exception as error:
            self.refresh_status()
            await self.chat.add_message("error", f"Could not start {name}: {error}")
            return
        finally:
            self.query_one("#seeding").display = False
        await self.clear_panes()
        self.refresh_status()
        self.notify(f"{name}: space plays the next step, a auto-plays.")

    async def clear_panes(self) -> None:
        self.requests.clear()
        self._trace_waiting.clear()
        self._usage_waiting.clear()
        self.trace_builder.new_conversation()
        self.trace.clear()
        self.usage.clear()
        await self.chat.clear()

    def action_cancel_turn(self) -> None:
        if self.turn_running and self.turn_worker is not None:
            self.autoplay = False
            self.turn_worker.cancel()
        elif self.focused is self.chat.input:
            self.trace.focus()  # leave the input so the letter keys work

    def action_inspect(self) -> None:
        from airline_agent.tui.screens.inspector import InspectorScreen

        last = self.requests.numbers()[-1] if self.requests.exchanges else None
        self.app.push_screen(InspectorScreen(self.requests, last, secret=self.controller.secret))

    def action_switch_customer(self) -> None:
        from airline_agent.tui.screens.prompt import PromptScreen

        def chosen(customer: str | None) -> None:
            if customer is None or self.turn_running:
                return
            self.controller.set_customer(customer or None)
            self.run_worker(self.clear_panes(), group="ui")
            self.refresh_status()
            self.notify(f"New conversation as {customer or 'an unidentified customer'}.")

        self.app.push_screen(
            PromptScreen(
                "Act for which customer? (user id, empty: not identified)",
                self.controller.status.customer or "",
                "emma_kim_9957",
            ),
            callback=chosen,
        )

    def action_new_conversation(self) -> None:
        if self.turn_running:
            self.notify("Cancel the running turn first (esc).", severity="warning")
            return
        self.controller.new_conversation()
        self.run_worker(self.clear_panes(), group="ui")
        self.notify("New conversation.")

    def action_toggle_guard(self) -> None:
        self.controller.set_guard(not self.controller.status.guard)
        # The status line shows "guard on" / "guard OFF" in colour; a toast as well would
        # cost a full layout of the screen on every toggle (a slower key while playing).
        self.refresh_status()

    @work(exclusive=True, group="turn")
    async def action_reset_database(self) -> None:
        self.autoplay = False
        self.refresh_status("resetting the database…")
        try:
            await self.controller.reset_database(self._progress)
        except Exception as error:
            await self.chat.add_message("error", f"Could not reset the database: {error}")
            return
        finally:
            self.query_one("#seeding").display = False
            self.refresh_status()
        await self.clear_panes()
        self.notify("Database reset to its seeded state; new conversation.")

    def _save_path(self, suffix: str) -> Path:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        return Path("recordings") / f"conversation-{stamp}{suffix}"

    def action_save_scenario(self) -> None:
        self._ask_and_save(
            "Save the conversation as a scenario file:", ".yaml", self.controller.save_scenario
        )

    def action_save_transcript(self) -> None:
        self._ask_and_save(
            "Save the transcript (JSONL + Markdown) in directory:",
            "",
            self.controller.save_transcript,
        )

    def _ask_and_save(self, question: str, suffix: str, save: Callable[[Path], object]) -> None:
        """Ask where (a dated name under recordings/ proposed), then save there."""
        from airline_agent.tui.screens.prompt import PromptScreen

        if not self.controller.events:  # before asking where, not after
            self.notify("Nothing to save yet.", severity="warning")
            return

        def chosen(path: str | None) -> None:
            if path:
                self._save(lambda: save(Path(path)))

        self.app.push_screen(PromptScreen(question, str(self._save_path(suffix))), callback=chosen)

    def _save(self, save: Callable[[], object]) -> None:
        try:
            saved = save()
        except Exception as error:
            self.notify(f"Could not save: {error}", severity="error")
            return
        paths = saved if isinstance(saved, list) else [saved]
        self.notify("Saved " + ", ".join(str(path) for path in paths))
