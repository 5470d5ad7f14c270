"""The main screen: status line, chat | trace | usage, footer; runs turns in workers.

When a turn's events go on screen is the scheduler's business (tui/scheduler.py); how
each is shown, the screen's (`show_event` and friends, the scheduler's `PaneHost`). The
actions of the keys that ask something first (a library, a prompt, a confirmation, an
approval) are workers that await the modal's answer (screens/flows.py).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Container
from textual.screen import Screen
from textual.widgets import Footer, ProgressBar
from textual.worker import Worker, WorkerState

from airline_agent.agent.events import ApprovalRequested, TurnStarted
from airline_agent.tui.collector import (
    defer_full_collections,
    freeze_startup_heap,
    resume_full_collections,
)
from airline_agent.tui.messages import SeedingProgress, TurnEnded
from airline_agent.tui.pacing import (
    DEFAULT_PACE,
    describe_speed,
    event_pause,
    next_pace,
    turn_pause,
)
from airline_agent.tui.request_log import RequestLog
from airline_agent.tui.scheduler import EventScheduler
from airline_agent.tui.screens.flows import ModalFlows
from airline_agent.tui.screens.main_keys import MAIN_KEYS, OFFLINE_ONLY_ACTIONS
from airline_agent.tui.screens.pane_layout import PaneSwitcher
from airline_agent.tui.trace import TraceBuilder, TraceEntry
from airline_agent.tui.waiting import ResponseWait
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.status_bar import StatusBar
from airline_agent.tui.widgets.trace_pane import TracePane
from airline_agent.tui.widgets.usage_pane import UsagePane

if TYPE_CHECKING:
    from airline_agent.tui.controller import SessionController
    from airline_agent.tui.run import ShownEvent

# Modal screens are imported where they open: the first frame does not wait for them.


class MainScreen(ModalFlows, PaneSwitcher, Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = MAIN_KEYS

    def __init__(self, controller: SessionController, *, pace: float = DEFAULT_PACE) -> None:
        super().__init__()
        self.controller = controller
        # Auto-play's pauses are multiplied by this (pacing.py): 1 reads at a person's
        # pace, 0 is instant (tests, the benchmark); + and - change it.
        self.pace = pace
        self.autoplay = False
        self.requests = RequestLog()
        self.trace_builder = TraceBuilder()
        self.scheduler = EventScheduler(self)
        self.turn_worker: Worker | None = None
        self.current_turn = 0
        self.ready = controller.mode == "offline"
        self.waiting = ResponseWait(self.show_activity)  # live: seconds waited, prompt read
        self._waiting_keys: list[str] = []

    def compose(self) -> ComposeResult:
        yield StatusBar(self.controller.state, id="status")
        yield ProgressBar(id="seeding", show_eta=False)
        yield self.compose_pane_tabs()
        with Container(id="panes"):
            yield ChatPane(id="chat")
            yield TracePane(id="trace")
            yield UsagePane(id="usage")
        yield Footer(compact=True)

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

    def show_activity(self, activity: str = "") -> None:
        """What the session is doing now, in the status line ("" when at rest)."""
        self.controller.state.show_activity(activity)

    def on_mount(self) -> None:
        self.screen_layout_refresh_signal.subscribe(self, self.scheduler.frame_painted)
        self.query_one("#seeding").display = False
        self.apply_pane_layout()
        self.show_speed()
        self.show_input()
        self.use_redactor()
        self.set_interval(1.0, self.waiting.tick)
        if self.controller.mode == "live":
            self.prepare()

    def show_input(self) -> None:
        """Live, the input has the keys (typing never fires a binding); offline, the
        trace has them (space plays, the letters are keys)."""
        live = self.controller.mode == "live"
        self.chat.input.disabled = not live
        if live:
            self.chat.input.placeholder = "Write as the customer, enter to send"
            self.chat.input.focus()
        else:
            self.chat.input.placeholder = "Offline: space plays the next step, a auto-plays"
            if self.pane_layout != "single" or self.shown_pane == "trace":
                self.trace.focus()
        self.show_speed()
        self.refresh_bindings()  # space and a only offline

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Live, the scenario keys are not offered (they do nothing there); f2 only when
        one pane is shown at a time."""
        if action in OFFLINE_ONLY_ACTIONS and self.controller.mode == "live":
            return False
        return not (action == "next_pane" and self.pane_layout != "single")

    def show_speed(self) -> None:
        """Offline, the chat's frame says how fast auto-play goes (+ and - change it): the
        status line is full at 120 columns."""
        offline = self.controller.mode == "offline"
        self.chat.border_subtitle = f"{describe_speed(self.pace)} (+/-)" if offline else ""

    def action_faster(self) -> None:
        self.pace = next_pace(self.pace, faster=True)
        self.show_speed()

    def action_slower(self) -> None:
        self.pace = next_pace(self.pace, faster=False)
        self.show_speed()

    # -- the scheduler's host: how an event goes on screen ------------------------------
    async def show_event(self, event: ShownEvent, *, in_chat: bool) -> list[TraceEntry]:
        if isinstance(event, TurnStarted):
            self.current_turn = event.turn
        self.requests.record(event)
        if self.controller.mode == "live":  # a scripted reply is not waited for
            self.waiting.observe(event)
        if in_chat:
            await self.chat.show(event)
        if isinstance(event, ApprovalRequested) and not event.decision.done():
            self.ask_approval(event)
        return self.trace_builder.feed(event)

    def show_trace(self, entries: list[TraceEntry]) -> None:
        self.trace.add_entries(entries)

    def show_usage(self, events: list[ShownEvent]) -> None:
        self.usage.show(events, self.controller.conversation)

    def chat_streaming(self, request: int) -> bool:
        return self.chat.streaming(request)

    @property
    def backlog(self) -> int:
        """Events the worker produced that the panes do not show yet (and a slice to come)."""
        return self.scheduler.backlog

    def hold_for_key(self) -> None:
        self.scheduler.hold_for_key()

    def key_handled(self) -> None:
        self.scheduler.key_handled()

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
        self.use_redactor()
        return True

    def use_redactor(self) -> None:
        """The panes redact with the session's secrets (known once the settings are read)."""
        redactor = self.controller.redactor
        # Settings may be read before the panes are mounted; on_mount then sets them.
        for pane in [*self.query(ChatPane), *self.query(TracePane)]:
            pane.redactor = redactor

    @work(exclusive=True, group="settings")
    async def settle_settings(self) -> None:
        await self._settled()

    @work(exclusive=True, group="database")
    async def prepare(self) -> None:
        if not await self._settled():
            return
        self.show_activity("opening database…")
        try:
            await self.controller.prepare(self._progress)
        except Exception as error:
            await self.chat.add_message("error", f"Could not open the session: {error}")
            return
        finally:
            self.query_one("#seeding").display = False
            self.show_activity()
            self.show_input()  # after an error too: what the user types stays text
        self.ready = True

    def _progress(self, stage: str, done: int, total: int) -> None:
        self.post_message(SeedingProgress(stage, done, total))

    def on_seeding_progress(self, message: SeedingProgress) -> None:
        bar = self.query_one("#seeding", ProgressBar)
        bar.display = True
        bar.update(total=message.total or None, progress=message.done)
        self.show_activity(f"building database: {message.stage}…")

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
        self.show_activity("agent working… esc cancels")
        self.scheduler.new_turn()
        self.turn_worker = self.run_turn(text)

    @work(exclusive=True, group="turn")
    async def run_turn(self, text: str) -> None:
        events = self.controller.run_turn(text)
        try:
            async for event in events:
                await self.scheduler.put(event)
                if self.autoplay and (pause := event_pause(event, self.pace)):
                    await asyncio.sleep(pause)
        except asyncio.CancelledError:
            # Cancelled here (between events) or in the loop: either way the turn is
            # closed now, and the run records how it ended — the record the panes show.
            await events.aclose()
            cancelled = self.controller.last_cancelled()
            if cancelled is not None:
                self.scheduler.put_nowait(cancelled)
            self.post_message(TurnEnded("cancelled"))
            raise
        except Exception as error:
            self.post_message(TurnEnded("failed", str(error)))
        else:
            self.post_message(TurnEnded("finished"))

    async def on_turn_ended(self, message: TurnEnded) -> None:
        self.waiting.stop()
        self.show_activity()
        if message.how == "failed":
            await self.chat.add_message("error", f"The turn failed: {message.detail}")
        if self.autoplay and message.how == "finished":
            if self.controller.steps_left:
                self.set_timer(turn_pause(self.pace), self.action_step)
                return  # still playing
            self.autoplay = False
            self.notify("End of the scenario. l opens the library.")
        resume_full_collections()

    @on(ChatPane.Submitted)
    def send_customer_message(self, message: ChatPane.Submitted) -> None:
        if self.controller.mode != "live":
            return
        problem = self.controller.problem
        if problem is not None:
            self.notify(
                f"No live session: {problem}. l opens the scenario library.", severity="error"
            )
        elif not self.ready:
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
                InspectorScreen(self.requests, entry.request, redactor=self.controller.redactor)
            )
        else:
            self.app.push_screen(EntryDetailsScreen(entry, redactor=self.controller.redactor))

    async def clear_panes(self) -> None:
        self.requests.clear()
        self.scheduler.clear()
        self.trace_builder.new_conversation()
        self.trace.clear()
        self.usage.clear(self.controller.conversation)
        await self.chat.clear()

    async def show_conversation(self) -> None:
        """The panes anew, with the run's conversation so far (back to the live chat)."""
        await self.clear_panes()
        for event in self.controller.events:
            self.scheduler.put_nowait(event)

    # -- actions that ask nothing ----------------------------------------------------
    def action_step(self) -> None:
        if self.waits_for_scenario("step"):
            return
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
        if self.waits_for_scenario("autoplay"):
            return
        self.autoplay = not self.autoplay
        self.notify(f"Auto-play {'on' if self.autoplay else 'off'}.")
        if self.autoplay and not self.turn_running:
            self.action_step()

    def action_cancel_turn(self) -> None:
        if self.turn_running and self.turn_worker is not None:
            self.autoplay = False
            self.turn_worker.cancel()
        elif self.focused is self.chat.input:
            self.trace.focus()  # leave the input so the letter keys work

    def action_inspect(self) -> None:
        from airline_agent.tui.screens.inspector import InspectorScreen

        last = self.requests.numbers()[-1] if self.requests.exchanges else None
        redactor = self.controller.redactor
        self.app.push_screen(InspectorScreen(self.requests, last, redactor=redactor))

    def action_new_conversation(self) -> None:
        if self.waits_for_scenario("new_conversation"):
            return
        if self.turn_running:
            self.notify("Cancel the running turn first (esc).", severity="warning")
            return
        if self.controller.mode == "offline":
            # A scenario's new conversation is its first turn again, on a fresh copy (a
            # blank chat with the script at its end would be nothing to play).
            if self.controller.scenario_name is None:
                self.notify("No scenario is playing: l opens the library.")
            else:
                self.action_reset_database()
            return
        self.controller.new_conversation()
        self.run_worker(self.clear_panes(), group="ui")
        self.notify("New conversation.")

    def action_toggle_guard(self) -> None:
        if self.waits_for_scenario("toggle_guard"):
            return
        # The status line shows "guard on" / "guard OFF" in colour; a toast as well would
        # cost a full layout of the screen on every toggle (a slower key while playing).
        self.controller.set_guard(not self.controller.state.guard)
