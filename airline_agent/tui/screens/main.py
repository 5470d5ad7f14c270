"""The main screen: status line, the panes (chat, trace, usage), footer; its keys, and
the flows they start.

It composes its owners and listens to them: the controller (which feed is on screen, and
switching feeds), the feed on screen (its turns and conversation: `controller.feed`), the
status (what the status line says), the scheduler (when a turn's events go on screen:
tui/scheduler.py; how each is shown is this screen's, the scheduler's `PaneHost`), the
pane switcher (how the panes are laid out). The actions of the keys that ask something
first (the library, a customer, a reset, where to save, an approval) are workers that
await the modal's answer (`await self.app.push_screen_wait(...)`) and go on from there,
in order, in one place.

Every key but esc is a priority binding: Textual runs it as soon as the app reads the
key. A key that is not one travels through the focused widget and each of its parents
first, a message queue each, and while a scenario plays fast a frame of tens of
milliseconds is painted between two of those hops (the key's effect showed a frame or two
late). A key that a text field takes (a character, while the chat input has focus) is
the field's: Textual leaves it out of the screen's bindings then, priority or not.

The modal screens (and the database's progress bar) are reached through one door,
`later()`: the first frame waits for none of them, and a worker opens it once the settings
are read, so opening one does not wait for its module either. So is what shows a feed's
events (the agent's event classes and the code that matches on them: a feed's turn, the
scheduler, the trace, what each event adds to the panes): the panes themselves know
messages, entries and rows, and the scheduler is made when the first events come.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from airline_agent.agent.debugger_errors import BranchBusy, EditRefused, ForkFailed
from airline_agent.late_imports import importing
from airline_agent.terminal_text import escape_controls
from airline_agent.tui import notices
from airline_agent.tui.collector import (
    defer_full_collections,
    freeze_startup_heap,
    resume_full_collections,
)
from airline_agent.tui.messages import SeedingProgress, TurnEnded
from airline_agent.tui.screens.picker import LIVE_CHAT, ScenarioPicker
from airline_agent.tui.speed import DEFAULT_PACE, describe_speed, next_pace
from airline_agent.tui.status import AT_WORK
from airline_agent.tui.watched_log import WatchedLog
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.keys_footer import KeysFooter
from airline_agent.tui.widgets.pane_switcher import PaneSwitcher
from airline_agent.tui.widgets.status_bar import StatusBar
from airline_agent.tui.widgets.trace_pane import TracePane
from airline_agent.tui.widgets.usage_pane import UsagePane

if TYPE_CHECKING:
    from textual.widgets import ProgressBar

    from airline_agent.agent.debugger import Branch
    from airline_agent.agent.events import ApprovalRequested, Held
    from airline_agent.tui.controller import Controller
    from airline_agent.tui.database_reset import ResetPlan
    from airline_agent.tui.feed import BreakpointName, ShownEvent
    from airline_agent.tui.scheduler import EventScheduler
    from airline_agent.tui.screens.later import Later
    from airline_agent.tui.trace import TraceBuilder, TraceEntry
    from airline_agent.tui.waiting import ResponseWait

# Short words in the footer (it fits 80 columns); the tooltip says what the key does,
# for the command palette. Keys not shown stay in help (f1) and the palette.
_KEYS: list[Binding] = [
    Binding(
        "space",
        "step",
        "Step",
        tooltip="Play the scenario's next turn step by step: a request, a tool call at a time",
    ),
    Binding(">", "play_turn", "Turn", tooltip="Play to the end of the turn"),
    Binding("a", "autoplay", "Auto", tooltip="Auto-play the scenario on or off"),
    # esc: the status line says "esc cancels" while a turn runs.
    Binding("escape", "cancel_turn", "Cancel", show=False, tooltip="Cancel the running turn"),
    Binding("l", "library", "Library", tooltip="Open the scenario library"),
    # Offered only with an eval run (`tui --results DIR`).
    Binding("v", "results", "Results", tooltip="The eval run's results: enter plays a trial"),
    Binding("i", "inspect", "Inspect", tooltip="The exact request and raw response"),
    # f2: the tab bar says it, when it shows (one pane at a time).
    Binding("f2", "next_pane", "Pane", show=False, tooltip="Show the next pane"),
    Binding("f3", "zoom", "Zoom", tooltip="Zoom the focused pane to the screen, or back"),
    Binding("u", "switch_customer", "Customer", show=False, tooltip="Act for another customer"),
    Binding("n", "new_conversation", "New", show=False, tooltip="Start a new conversation"),
    Binding("g", "toggle_guard", "Guard", show=False, tooltip="Turn the policy guard on/off"),
    Binding(
        "r",
        "reset_database",
        "Reset",
        show=False,
        tooltip="Live: the database as built · offline: play the scenario again",
    ),
    Binding(
        "s", "save_scenario", "Save", show=False, tooltip="Save the conversation as a scenario"
    ),
    Binding(
        "t",
        "save_transcript",
        "Transcript",
        show=False,
        tooltip="Save the conversation as a transcript (JSONL + Markdown)",
    ),
    # While held: its body or arguments (the footer offers it then).
    Binding("e", "edit_held", "Edit", tooltip="Edit the held request's body or call's arguments"),
    Binding(
        "f",
        "fork",
        "Fork",
        show=False,
        tooltip="Fork the conversation after the highlighted trace entry, its database as then",
    ),
    Binding("[", "branch(-1)", "Previous branch", show=False, tooltip="Show the previous branch"),
    Binding("]", "branch(1)", "Next branch", show=False, tooltip="Show the next branch"),
    # Breakpoints: the status line lists those on ("break: requests, writes").
    Binding(
        "b",
        "toggle_break('request')",
        "Break: requests",
        show=False,
        tooltip="Break before every request (on/off)",
    ),
    Binding(
        "w",
        "toggle_break('write')",
        "Break: writes",
        show=False,
        tooltip="Break before any write tool call (on/off)",
    ),
    Binding(
        "c",
        "toggle_break('finding')",
        "Break: findings",
        show=False,
        tooltip="Break on a grounding finding, a claim no tool result supports (on/off)",
    ),
    Binding(
        "x",
        "toggle_break('error')",
        "Break: errors",
        show=False,
        tooltip="Break on an error result or a failed request (on/off)",
    ),
    Binding("plus,equals_sign", "faster", "Faster", show=False, tooltip="Auto-play faster"),
    Binding("minus", "slower", "Slower", show=False, tooltip="Auto-play slower"),
]
# esc stays an ordinary binding: a widget that has focus may want it first.
MAIN_KEYS: list[BindingType] = [
    binding if binding.key == "escape" else replace(binding, priority=True) for binding in _KEYS
]
# Live, these do nothing: not offered (MainScreen.check_action); but for a held turn, or
# a fork's turn that can resume, space and > step and play it there too.
OFFLINE_ONLY_ACTIONS = frozenset({"step", "play_turn", "autoplay", "faster", "slower"})
HOLD_ACTIONS = frozenset({"step", "play_turn"})
# Without a debugger (a feed with nothing open yet) these have nothing to act on.
DEBUGGER_ACTIONS = frozenset({"play_turn", "fork", "branch"})
# Watching a server (`tui --watch`), nothing runs here: the keys that act on a conversation
# have none to act on.
WATCH_ACTIONS = frozenset({"next_pane", "zoom"})
WATCH_POLL_S = 0.1  # how often the watched file is looked at when nothing came

HELD_ACTIVITY = "held · space steps · > to the turn's end · esc cancels"

OFFLINE_REASON = (
    "Offline: no model configured (set AIRLINE_AGENT_MODEL or --model for live chat). "
    "Scenarios run through the real loop and tools with scripted model responses."
)
LIVE_REASON = (
    "A scenario plays offline: the real loop and tools on a fresh copy of its dataset, "
    "the model's answers from the file. The live chat waits meanwhile; l brings it back."
)


class MainScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = MAIN_KEYS

    def __init__(self, controller: Controller, *, pace: float = DEFAULT_PACE) -> None:
        super().__init__()
        self.controller = controller
        # Auto-play's pauses are multiplied by this (speed.py, pacing.py): 1 reads at a person's
        # pace, 0 is instant (tests, the benchmark); + and - change it.
        self.pace = pace
        self.autoplay = False
        self.turn_worker: Worker | None = None
        # A key that acts on the scenario waits while one is chosen or loads.
        self.scenario_coming = False  # the library is open, or its choice loads
        self.scenario_loading = False  # a chosen scenario loads
        self._waiting_keys: list[str] = []  # actions of keys pressed meanwhile, in order

    def compose(self) -> ComposeResult:
        yield StatusBar(self.controller.status, id="status")
        yield PaneSwitcher(ChatPane(id="chat"), TracePane(id="trace"), UsagePane(id="usage"))
        yield KeysFooter(compact=True)

    # -- what it composes -------------------------------------------------------------
    @property
    def panes(self) -> PaneSwitcher:
        return self.query_one(PaneSwitcher)

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
        """What the app is doing now, in the status line ("" when at rest)."""
        self.controller.status.show_activity(activity)

    # -- what shows a feed's events: made when the first events come (screens/later.py) --
    @cached_property
    def scheduler(self) -> EventScheduler:
        """When a turn's events go on screen (how each is shown is this screen's)."""
        scheduler = later().EventScheduler(self)
        self.screen_layout_refresh_signal.subscribe(self, scheduler.frame_painted)
        return scheduler

    @cached_property
    def trace_builder(self) -> TraceBuilder:
        return later().TraceBuilder()

    @cached_property
    def waiting(self) -> ResponseWait:
        """Live: the seconds a response is waited for, how much of the prompt is read."""
        waiting = later().ResponseWait(self.show_activity)
        self.set_interval(1.0, waiting.tick)
        return waiting

    @property
    def showing_events(self) -> bool:
        """Events have come: the scheduler exists (before, a key has none to hold)."""
        return "scheduler" in self.__dict__

    def hold_for_key(self) -> None:
        """A key arrived: no new events go on screen until its frame is painted."""
        if self.showing_events:
            self.scheduler.hold_for_key()

    def key_handled(self) -> None:
        if self.showing_events:
            self.scheduler.key_handled()

    def on_mount(self) -> None:
        self.show_speed()
        self.show_input()
        self.use_redactor()
        if self.controller.mode == "live":
            self.prepare()
        elif self.controller.mode == "watch":
            self.watch_log()

    def show_input(self) -> None:
        """Live, the input has the keys (typing never fires a binding); offline, the
        trace has them (space plays, the letters are keys)."""
        live = self.controller.mode == "live"
        self.chat.input.disabled = not live
        if self.controller.mode == "watch":
            self.chat.input.placeholder = "Watching an MCP server: its client's calls show here"
            self.trace.focus()
        elif live:
            self.chat.input.placeholder = "Write as the customer, enter to send"
            self.chat.input.focus()
        else:
            self.chat.input.placeholder = "Offline: space plays the next step, a auto-plays"
            panes = self.panes
            if panes.pane_layout != "single" or panes.shown == "trace":
                self.trace.focus()
        self.show_speed()
        self.refresh_bindings()  # space and a only offline

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Live, the scenario keys are not offered (they do nothing there) but to step a
        held turn; the debugger's keys only with a debugger; f2 only when one pane is
        shown at a time."""
        feed = self.controller.feed
        if self.controller.mode == "watch":
            return action in WATCH_ACTIONS
        if action == "results":
            return self.controller.results is not None
        if action in DEBUGGER_ACTIONS and feed.debugger is None:
            return False
        if action == "edit_held":
            # Held: a turn ran, so what shows its events (`later`) is loaded.
            return feed.held is not None and later().editable(feed.held)
        if action in HOLD_ACTIONS and (feed.held is not None or feed.can_resume):
            return True
        if action in OFFLINE_ONLY_ACTIONS and self.controller.mode == "live":
            return False
        return not (action == "next_pane" and self.panes.pane_layout != "single")

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

    def action_next_pane(self) -> None:
        self.panes.next_pane()

    def action_zoom(self) -> None:
        self.panes.zoom()

    # -- the scheduler's host: how an event goes on screen ------------------------------
    async def show_event(self, event: ShownEvent, *, in_chat: bool) -> list[TraceEntry]:
        if self.controller.mode == "live":  # a scripted reply is not waited for
            self.waiting.observe(event)
        shows = later()
        if in_chat:
            await shows.show_in_chat(self.chat, event)
        if (question := shows.approval_asked(event)) is not None:
            self.ask_approval(question)
        if (held := shows.hold(event)) is not None:
            self._hold_shown(held)
        return self.trace_builder.feed(event)

    def _hold_shown(self, held: Held) -> None:
        """The turn waits for a key here (the status line says what comes next)."""
        feed = self.controller.feed
        if held is not feed.held:
            return  # let go meanwhile
        breakpoints = [reason for reason in held.reasons if reason != "step"]
        if self.autoplay:
            if not breakpoints:
                feed.go_on(stepping=False)
                return
            self.autoplay = False
            self.notify(f"Auto-play stopped at a breakpoint ({', '.join(breakpoints)}).")
        self.show_activity(HELD_ACTIVITY)  # not "agent working": it waits for you
        if self.focused is self.chat.input:
            self.trace.focus()  # space and > are keys now, not text
        self.refresh_bindings()

    def show_trace(self, entries: list[TraceEntry]) -> None:
        self.trace.add_entries(entries)

    def show_usage(self, events: list[ShownEvent]) -> None:
        later().show_in_usage(self.usage, events, self.controller.feed.conversation)

    def chat_streaming(self, request: int) -> bool:
        return self.chat.streaming(request)

    @property
    def backlog(self) -> int:
        """Events the worker produced that the panes do not show yet (and a slice to come)."""
        return self.scheduler.backlog if self.showing_events else 0

    # -- start-up: settings, then open (and seed) the database, in workers ----------
    async def _settled(self) -> bool:
        """The full settings are read; False (and the app closing) if one is unusable."""
        try:
            await self.controller.settle()
        except Exception as error:
            # The door to the settings' module (pydantic-settings): read after the first frame.
            from airline_agent.config import SettingsError

            if not isinstance(error, SettingsError):
                raise
            self.app.fail(str(error))  # type: ignore[attr-defined]
            return False
        self.use_redactor()
        self.preload_later()
        return True

    @work(thread=True, exclusive=True, group="later")
    def preload_later(self) -> None:
        """The modal screens' module, loaded now that the first screen is up and its
        settings read: opening one does not wait for it."""
        later()

    def use_redactor(self) -> None:
        """The panes redact with the app's secrets (known once the settings are read)."""
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
            self.hide_seeding()
            self.show_activity()
            self.show_input()  # after an error too: what the user types stays text

    def _seeding_bar(self) -> ProgressBar:
        """The database's progress bar under the status line, mounted when a database is
        first built: most starts build none, and composed, its widgets and their styles
        held up the first frame. (In the DOM at once: `mount` registers it before it
        returns, so the next message finds it.)"""
        if found := self.query("#seeding"):
            return found.first(later().ProgressBar)
        bar = later().ProgressBar(id="seeding", show_eta=False)
        self.mount(bar, after="#status")
        return bar

    def hide_seeding(self) -> None:
        """The database is built (or failed to be): no progress bar."""
        for bar in self.query("#seeding"):
            bar.display = False

    def _progress(self, stage: str, done: int, total: int) -> None:
        self.post_message(SeedingProgress(stage, done, total))

    def on_seeding_progress(self, message: SeedingProgress) -> None:
        bar = self._seeding_bar()
        bar.display = True
        bar.update(total=message.total or None, progress=message.done)
        self.show_activity(f"building database: {message.stage}…")

    # -- watching an MCP server's event log (tui --watch) -------------------------------
    @work(thread=True, exclusive=True, group="watch")
    def watch_log(self) -> None:
        """Follow the watched file until the app closes; what comes goes on screen on the
        UI's loop (the call waits for it, so a long file is read as fast as it is shown)."""
        feed = self.controller.feed
        assert isinstance(feed, WatchedLog)
        worker = get_current_worker()
        later()  # what shows the log's events, loaded here rather than on the UI's loop
        tail = feed.tail
        shown: tuple[bool, int] | None = None  # (present, lines dropped) last shown
        try:
            while not worker.is_cancelled:
                lines = tail.poll()
                # A line dropped for its length is counted on the status line at once.
                if lines or shown != (tail.present, tail.overlong):
                    shown = (tail.present, tail.overlong)
                    try:
                        # mypy solves Textual's `T | Awaitable[T]` as Never for a coroutine.
                        self.app.call_from_thread(self._show_watched, feed, lines, tail.present)  # type: ignore[arg-type]
                    except RuntimeError:
                        return  # the app is closing
                if tail.caught_up:
                    worker.cancelled_event.wait(WATCH_POLL_S)
        finally:
            tail.close()

    async def _show_watched(self, feed: WatchedLog, lines: list[str], present: bool) -> None:
        if not self.chat.notes():
            await self.chat.add_note(
                f"Watching {feed.path}: the calls of an MCP server's clients (airline-agent "
                "mcp --events FILE) show in the trace as they happen."
            )
        waited = not feed.appeared
        watched = later().take_watched(feed, lines, present=present)
        if not present and waited:
            self.show_activity(f"waiting for {feed.path} to appear…")
            await self.chat.add_message(
                "notice", f"{feed.path} is not there yet: waiting for it to appear."
            )
        elif present and waited:
            self.show_activity()
        for note in watched.notes:
            await self.chat.add_message("notice", note)
        for event in watched.events:
            self.scheduler.put_nowait(event)

    # -- turns ----------------------------------------------------------------------
    @property
    def turn_running(self) -> bool:
        return self.turn_worker is not None and self.turn_worker.state in (
            WorkerState.PENDING,
            WorkerState.RUNNING,
        )

    def start_turn(self, text: str | None) -> None:
        """The customer's message `text` (None: the turn a fork cut goes on)."""
        freeze_startup_heap()
        defer_full_collections()  # resumed when the conversation comes to rest
        self.show_activity(AT_WORK)
        self.scheduler.new_turn()
        self.turn_worker = self.show_turn(text)

    @work(exclusive=True, group="turn")
    async def show_turn(self, text: str | None) -> None:
        """The feed's turn on screen, event by event (`turns.run_turn` runs it)."""
        feed = self.controller.feed
        shows = later()
        events = shows.run_turn(feed, text)  # the feed's turn: closing it closes the loop's
        try:
            async for event in events:
                await self.scheduler.put(event)
                if self.autoplay and (pause := shows.event_pause(event, self.pace)):
                    await asyncio.sleep(pause)
        except asyncio.CancelledError:
            # Cancelled here (between events) or in the loop: either way the turn is
            # closed now, and the feed records how it ended — the record the panes show.
            await events.aclose()
            cancelled = shows.last_cancelled(feed)
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
        self.refresh_bindings()  # nothing is held any more
        if message.how == "failed":
            await self.chat.add_message("error", f"The turn failed: {message.detail}")
        if self.autoplay and message.how == "finished":
            if self.controller.feed.steps_left:
                # A turn ran, so what shows its events (`later`, its pauses) is loaded.
                self.set_timer(later().turn_pause(self.pace), self._play_on)
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
        elif not self.controller.feed.ready:
            self.notify("The database is still being prepared.", severity="warning")
        elif self.turn_running:
            self.notify("The agent is still answering (esc cancels).", severity="warning")
        else:
            self.controller.feed.set_stepping(False)  # to its end, but for a breakpoint
            self.start_turn(message.text)

    @on(TracePane.EntryChosen)
    def open_entry(self, message: TracePane.EntryChosen) -> None:
        entry = message.entry
        if entry.producer in ("api", "you") and entry.request is not None:
            self._inspect(entry.request)
        else:
            self.app.push_screen(
                later().EntryDetailsScreen(entry, redactor=self.controller.redactor)
            )

    def _inspect(self, request: int | None) -> None:
        """The inspector on `request` (None: the latest, or the one held), over the feed's
        conversation."""
        log = later().RequestLog(self.controller.feed.events)
        held = later().held_request(self.controller.feed.held)
        if request is None and held is not None:
            request = held.request
        elif request is None and log.exchanges:
            request = log.numbers()[-1]
        inspector = later().InspectorScreen(
            log, request, redactor=self.controller.redactor, held=held, edit=self.action_edit_held
        )
        self.app.push_screen(inspector)

    async def clear_panes(self) -> None:
        self.scheduler.clear()
        self.trace_builder.new_conversation()
        self.trace.clear()
        self.usage.clear(self.controller.feed.conversation)
        await self.chat.clear()

    async def show_conversation(self) -> None:
        """The panes anew, with the feed's conversation so far (back to the live chat)."""
        await self.clear_panes()
        for event in self.controller.feed.events:
            self.scheduler.put_nowait(event)

    # -- keys that wait for a scenario being chosen or loaded --------------------------
    def waits_for_scenario(self, action: str) -> bool:
        """Whether this key's action waits: a key that acts on the scenario (space, a,
        g, r, …), pressed while a chosen scenario loads (or the library's answer is on
        its way), runs once it is in place, in the order pressed; before, a space found
        no scenario and opened the library again."""
        if not self.scenario_coming:
            return False
        self._waiting_keys.append(action)
        return True

    def _scenario_in_place(self, *, keys_run: bool = True) -> None:
        """The choice is made and loaded (or given up): the keys that waited run now."""
        self.scenario_coming = False
        waiting, self._waiting_keys = self._waiting_keys, []
        if keys_run:
            for action in waiting:
                self.call_later(self.run_action, action)

    # -- actions that ask nothing ----------------------------------------------------
    def action_step(self) -> None:
        """space: one step of the wire (with a debugger; without one, a whole turn)."""
        if self.waits_for_scenario("step"):
            return
        self._go_on(stepping=True)

    def action_play_turn(self) -> None:
        """>: to the end of the turn (a breakpoint still holds it)."""
        if self.waits_for_scenario("play_turn"):
            return
        self._go_on(stepping=False)

    def _play_on(self) -> None:
        if self.autoplay:
            self._go_on(stepping=False)

    def _go_on(self, *, stepping: bool) -> None:
        """The held turn goes on; or the turn a fork cut resumes; or, offline, the
        scenario's next turn starts. `stepping`: holding again before the next request
        or tool call."""
        feed = self.controller.feed
        if feed.go_on(stepping=stepping):
            self.show_activity(AT_WORK)
            self.refresh_bindings()
            return
        if self.controller.mode == "live" and not feed.can_resume:
            self.notify("Live mode: type as the customer. Scenarios: l.")
            return
        if self.turn_running:
            return
        text = None if feed.can_resume else feed.next_customer_message()
        if text is None and not feed.can_resume:
            self.autoplay = False
            if feed.scenario_name is None:
                self.action_library()
            else:
                self.notify("End of the scenario. l opens the library, r plays it again.")
            return
        feed.set_stepping(stepping)
        self.start_turn(text)

    def action_autoplay(self) -> None:
        if self.waits_for_scenario("autoplay"):
            return
        self.autoplay = not self.autoplay
        self.notify(f"Auto-play {'on' if self.autoplay else 'off'}.")
        if self.autoplay:
            self._go_on(stepping=False)

    def action_cancel_turn(self) -> None:
        if self.turn_running and self.turn_worker is not None:
            self.autoplay = False
            self.turn_worker.cancel()
        elif self.focused is self.chat.input:
            self.trace.focus()  # leave the input so the letter keys work

    def action_inspect(self) -> None:
        self._inspect(None)

    def action_new_conversation(self) -> None:
        if self.waits_for_scenario("new_conversation"):
            return
        if self.turn_running:
            self.notify("Cancel the running turn first (esc).", severity="warning")
            return
        if self.controller.mode == "offline":
            # A scenario's new conversation is its first turn again, on a fresh copy (a
            # blank chat with the script at its end would be nothing to play).
            if self.controller.feed.scenario_name is None:
                self.notify("No scenario is playing: l opens the library.")
            else:
                self.action_reset_database()
            return
        self.controller.feed.new_conversation()
        self.run_worker(self.clear_panes(), group="ui")
        self.notify("New conversation.")

    def action_toggle_break(self, name: BreakpointName) -> None:
        # The status line lists the breakpoints on; no toast (as for the guard).
        self.controller.feed.toggle_breakpoint(name)

    def action_toggle_guard(self) -> None:
        if self.waits_for_scenario("toggle_guard"):
            return
        # The status line shows "guard on" / "guard OFF" in colour; a toast as well would
        # cost a full layout of the screen on every toggle (a slower key while playing).
        feed = self.controller.feed
        feed.guard = not feed.guard

    # -- the debugger: edits, forks, branches ---------------------------------------------
    @work(exclusive=True, group="edit")
    async def action_edit_held(self) -> None:
        """The held request's body, or the held call's arguments, in the editor; what it
        accepts goes on (the body byte for byte); esc leaves the hold as it was."""
        feed = self.controller.feed
        held = feed.held
        edit = later().held_edit(held)
        if edit is None:
            self.notify("Nothing to edit: e edits a request or a tool call held before it goes.")
            return
        # As every pane shows text: secrets blanked, a terminal's commands as JSON escapes
        # (the same JSON value; a blanked secret stays blank if you send it).
        text = escape_controls(self.controller.redactor.redact(edit.text))
        edited = await self.app.push_screen_wait(
            later().JsonEditorScreen(edit.title, text, edit.problems, accept=edit.accept)
        )
        if edited is None or feed.held is not held:
            return  # left as it was, or the turn went on (or was cancelled) meanwhile
        try:
            later().go_on_edited(feed, edited)
        except EditRefused as refused:
            self.notify(f"Not accepted: {refused}", severity="error")
        else:
            self.show_activity(AT_WORK)
        self.refresh_bindings()

    @work(exclusive=True, group="fork")
    async def action_fork(self) -> None:
        """A new branch right after the highlighted trace entry's step, with the database
        as it was then (made in a thread: a copy, and the writes again), shown at once."""
        if self.waits_for_scenario("fork"):
            return
        feed = self.controller.feed
        entry = self.trace.highlighted_entry
        if entry is None or entry.step is None:
            self.notify("Highlight a trace entry first (tab to the trace, then the arrows).")
            return
        if self.turn_running:
            self.notify("A turn is running: let it end, or cancel it (esc), then fork.")
            return
        self.show_activity(f"forking after step {entry.step}…")
        try:
            branch = await asyncio.to_thread(feed.fork, entry.step)
        except ForkFailed as refused:
            self.notify(f"No fork: {refused}", severity="error")
            return
        finally:
            self.show_activity()
        await self._show_branch(branch)
        self.notify(f"{branch.describe()}. [ and ] switch branches.")

    @work(exclusive=True, group="fork")
    async def action_branch(self, delta: int) -> None:
        feed = self.controller.feed
        debugger = feed.debugger
        if debugger is None or debugger.current is None or len(debugger.branches) < 2:
            self.notify("One branch only: f forks after the highlighted trace entry.")
            return
        if self.turn_running:
            self.notify("A turn is running: let it end, or cancel it (esc), then switch.")
            return
        index = debugger.branches.index(debugger.current)
        await self._show_branch(debugger.branches[(index + delta) % len(debugger.branches)])

    async def _show_branch(self, branch: Branch) -> None:
        try:
            self.controller.feed.switch_branch(branch)
        except BranchBusy as busy:
            self.notify(str(busy), severity="warning")
            return
        await self.show_conversation()
        self.refresh_bindings()  # a fork cut in a turn: space resumes it

    # -- the library ------------------------------------------------------------------
    def action_library(self) -> None:
        self.scenario_coming = True  # until the choice is made and its scenario loaded
        self.choose_scenario()

    @work(exclusive=True, group="library")
    async def choose_scenario(self) -> None:
        try:
            await self._choose_scenario()
        finally:
            if not self.scenario_loading:
                self._scenario_in_place()

    async def _choose_scenario(self) -> None:

        controller = self.controller
        live_chat = None
        if controller.mode == "live":
            live_chat = "← Stay in the live chat (esc does too)"
        elif controller.live_paused:
            live_chat = "← Back to the live chat"
        picker = ScenarioPicker(
            controller.scenario_choices,
            quick=controller.quick_choices,
            offline_reason=LIVE_REASON if live_chat else OFFLINE_REASON,
            live_chat=live_chat,
        )
        chosen = await self.app.push_screen_wait(picker)
        if chosen == LIVE_CHAT:
            if controller.mode == "live":
                return
            if self.turn_running:
                self.notify("Cancel the running turn first (esc).", severity="warning")
                return
            await self.return_to_live()
        elif chosen:
            self.play_scenario(chosen)

    def action_results(self) -> None:
        self.scenario_coming = True  # as for the library: a trial's scenario may come
        self.choose_trial()

    @work(exclusive=True, group="library")
    async def choose_trial(self) -> None:
        try:
            scenario = await self.app.push_screen_wait(
                later().ResultsScreen(self.controller.eval_results)
            )
            if scenario is not None:
                self.play_scenario(str(scenario))
        finally:
            if not self.scenario_loading:
                self._scenario_in_place()

    def play_scenario(self, name: str) -> None:
        self.scenario_coming = self.scenario_loading = True
        self._load_scenario(name)

    @work(exclusive=True, group="turn")
    async def _load_scenario(self, name: str) -> None:
        loaded = False
        try:
            loaded = await self._start_scenario(name)
        finally:
            self.scenario_loading = False
            # A scenario that did not load leaves nothing for the keys to act on.
            self._scenario_in_place(keys_run=loaded)

    async def _start_scenario(self, name: str) -> bool:
        self.autoplay = False
        if not await self._settled():
            return False
        was_live = self.controller.mode == "live"
        self.show_activity(f"preparing scenario {name}…")
        try:
            said = await self.controller.start_scenario(name, self._progress)
        except Exception as error:
            await self.chat.add_message("error", f"Could not start {name}: {error}")
            return False
        finally:
            self.hide_seeding()
            self.show_activity()
        await self.clear_panes()
        self.show_input()
        leaving = " The live chat waits: l brings it back." if was_live else ""
        # In the chat, not a toast: at 80×24 a toast covered the first reply for seconds.
        await self.chat.add_note(f"{said}{leaving} space plays the next step, a auto-plays.")
        return True

    async def return_to_live(self) -> None:
        await self.controller.back_to_live()
        await self.show_conversation()
        self.show_input()
        self.notify("Back in the live chat.")

    # -- the customer -----------------------------------------------------------------
    @work(exclusive=True, group="prompt")
    async def action_switch_customer(self) -> None:
        if self.waits_for_scenario("switch_customer"):
            return
        if self.controller.mode != "live":
            self._customer_is_the_scenarios()
            return
        if self.turn_running:
            self.notify("Cancel the running turn first (esc).", severity="warning")
            return
        try:
            customers = await asyncio.to_thread(self.controller.customers)
        except Exception as error:  # the database went away or broke since it was opened
            self.notify(f"Could not read the customers: {error}", severity="error")
            return
        feed = self.controller.feed
        customer = await self.app.push_screen_wait(later().CustomerPicker(customers, feed.customer))
        if customer is None or self.turn_running:
            return
        self.controller.feed.act_for(customer or None)
        await self.clear_panes()
        self.notify(f"New conversation as {customer or 'an unidentified customer'}.")

    def _customer_is_the_scenarios(self) -> None:
        """Offline, the script is written for its customer: `u` says so, changes nothing."""
        feed = self.controller.feed
        if feed.scenario_name is None:
            self.notify("No scenario is playing: l opens the library.")
            return
        customer = feed.customer or "an unidentified customer"
        self.notify(
            f"{feed.scenario_name} is written for {customer}: its script acts for them. "
            "Another customer: the live chat (set AIRLINE_AGENT_MODEL), or l for another "
            "scenario."
        )

    # -- reset ------------------------------------------------------------------------
    @work(exclusive=True, group="reset")
    async def action_reset_database(self) -> None:
        if self.waits_for_scenario("reset_database"):
            return
        if self.turn_running:
            self.notify("Cancel the running turn first (esc).", severity="warning")
            return
        self.autoplay = False
        if self.controller.mode == "live":
            await self._reset_live_database()
        else:
            await self._restart_scenario()

    async def _restart_scenario(self) -> None:
        """Offline, `r` plays the scenario again on a fresh copy: no user data at stake."""
        name = self.controller.feed.scenario_name
        if name is None:
            self.notify(
                "Nothing to reset: no scenario is playing (offline, your database is never opened)."
            )
            return
        try:
            await self.controller.restart_scenario(self._progress)
        except Exception as error:
            await self.chat.add_message("error", f"Could not restart {name}: {error}")
            return
        await self.clear_panes()
        self.notify(
            f"{name} starts again on a fresh copy of its dataset (your own database is not "
            "involved)."
        )

    async def _reset_live_database(self) -> None:
        live = self.controller.feed
        live.resetting = True  # no turn starts on a database being reset
        try:
            await self._reset_with_confirmation()
        finally:
            live.resetting = False

    async def _reset_with_confirmation(self) -> None:
        plan = await self._reset_plan()
        if plan is None:
            return
        if plan.differing == 0:
            await self.controller.discard_reset(plan)
            self.notify(f"{plan.location} is {plan.restores} already: nothing to reset.")
            return
        confirmed = await self.app.push_screen_wait(
            later().ConfirmScreen(plan.question(), plan.details(), yes="Reset", no="Keep my data")
        )
        if not confirmed:
            await self.controller.discard_reset(plan)
            self.notify("Nothing was reset.")
            return
        self.show_activity("resetting the database…")
        try:
            await self.controller.apply_reset(plan)
        except Exception as error:
            await self.chat.add_message("error", f"Could not reset the database: {error}")
            return
        finally:
            self.show_activity()
        await self.clear_panes()
        self.notify(
            f"{plan.location} is {plan.restores} again ({plan.differing} records restored); "
            "new conversation."
        )

    async def _reset_plan(self) -> ResetPlan | None:
        self.show_activity("comparing the database with how it was built…")
        try:
            return await self.controller.plan_reset(self._progress)
        except Exception as error:
            await self.chat.add_message("error", f"Could not reset the database: {error}")
            return None
        finally:
            self.hide_seeding()
            self.show_activity()

    # -- saving -----------------------------------------------------------------------
    def action_save_scenario(self) -> None:
        if self.waits_for_scenario("save_scenario"):
            return
        self._ask_and_save(
            "Save the conversation as a scenario file:", ".yaml", self.controller.save_scenario
        )

    def action_save_transcript(self) -> None:
        if self.waits_for_scenario("save_transcript"):
            return
        self._ask_and_save(
            "Save the transcript (JSONL + Markdown) in directory:",
            "",
            self.controller.save_transcript,
        )

    def _ask_and_save(
        self, question: str, suffix: str, save: Callable[[Path], Path | list[Path]]
    ) -> None:
        """Ask where (a dated name under recordings/ proposed), then save there."""
        if not self.controller.feed.events:  # before asking where, not after
            self.notify("Nothing to save yet.", severity="warning")
            return
        if self.turn_running:  # the save reads the conversation in a thread
            self.notify("The turn is still running: save when it ends (esc cancels).")
            return
        self._save_where(question, suffix, save)

    @work(exclusive=True, group="prompt")
    async def _save_where(
        self, question: str, suffix: str, save: Callable[[Path], Path | list[Path]]
    ) -> None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        proposed = Path("recordings") / f"conversation-{stamp}{suffix}"
        path = await self.app.push_screen_wait(later().PromptScreen(question, str(proposed)))
        if not path:
            return
        self.show_activity("saving…")
        try:
            # Off the UI's loop: comparing the database with its dataset takes a moment.
            saved = await asyncio.to_thread(save, Path(path))
        except Exception as error:
            self.notify(notices.save_failed(Path(path), error), severity="error")
            return
        finally:
            self.show_activity()
        self.notify(notices.saved(saved if isinstance(saved, list) else [saved]))

    # -- approval ---------------------------------------------------------------------
    @work(group="approval")
    async def ask_approval(self, event: ApprovalRequested) -> None:
        answers: dict[str, bool] | None = None
        try:
            answers = await self.app.push_screen_wait(later().ApprovalScreen(event.calls))
        finally:
            # Fails closed: a question closed without an answer (the app quitting) declines.
            event.decide(answers)


def later() -> type[Later]:
    """The classes the main screen uses after its first frame (screens/later.py)."""
    # The one door to them: the first frame waits for none (`preload_later` opens it).
    with importing("airline_agent.tui.screens.later"):
        # Alone: another thread's door may be importing (late_imports.py).
        from airline_agent.tui.screens.later import Later

    return Later
