"""The Textual app: the main screen, the library on top when offline, global keys."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from airline_agent.late_imports import importing
from airline_agent.terminal_text import escape_controls
from airline_agent.tui.screens.main import WATCH_ACTIONS, MainScreen
from airline_agent.tui.screens.picker import ScenarioPicker
from airline_agent.tui.speed import DEFAULT_PACE
from airline_agent.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from airline_agent.tui.controller import Controller


class AirlineApp(App[None]):
    CSS_PATH = Path(__file__).parent / "app.tcss"  # absolute: subclasses live elsewhere
    TITLE = "airline-agent"
    # Side by side from 120 columns (the screen's class); how the panes are laid out below
    # that, stacked or one at a time: widgets/pane_switcher.py.
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-narrow"), (120, "-wide")]  # noqa: RUF012 (Textual's own type)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", tooltip="Every key, and what the trace's labels mean"),
        Binding("ctrl+q", "quit", "Quit", priority=True, tooltip="Quit the app"),
    ]

    def __init__(
        self,
        controller: Controller,
        *,
        scenario: str | None = None,
        pace: float = DEFAULT_PACE,
        first_frame_shown: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        # launch.py's, which resumes the cycle collector it paused for the start.
        self.first_frame_shown = first_frame_shown
        self.controller = controller
        # e.g. a saved recording whose replay may drift: a warning the user sees.
        controller.warn = self.warn
        self.problem: str | None = None  # why the app closed early (an unusable setting)
        self.start_scenario = scenario
        self.pace = pace
        self._first_frame_out = False
        self._waiting_for_first_frame: list[Callable[[], object]] = []

    def get_default_screen(self) -> Screen:
        return MainScreen(self.controller, pace=self.pace)

    @property
    def main(self) -> MainScreen:
        return next(s for s in self.screen_stack if isinstance(s, MainScreen))

    def on_mount(self) -> None:
        if self.start_scenario:
            self.main.play_scenario(self.start_scenario)
        elif self.controller.results is not None:
            self.main.action_results()
            self.call_after_refresh(self.main.settle_settings)  # as once the library shows
        elif self.controller.mode == "offline":
            self.main.action_library()

    def on_ready(self) -> None:
        # Textual's: the first frame is on the screen (offline, with the library on it).
        if self.first_frame_shown is not None:
            self.first_frame_shown()
        self._first_frame_out = True
        for work in self._waiting_for_first_frame:
            self.call_later(work)
        self._waiting_for_first_frame.clear()

    def after_first_frame(self, work: Callable[[], object]) -> None:
        """`work` once the first frame is on the screen (after the next one, once it is):
        what starts a thread that imports pydantic (the settings, the library's
        validation) would otherwise take the interpreter from drawing it."""
        if self._first_frame_out:
            self.call_after_refresh(work)
        else:
            self._waiting_for_first_frame.append(work)

    def on_scenario_picker_library_shown(self, _: ScenarioPicker.LibraryShown) -> None:
        # Offline, the settings are read once the library is on screen (live, `prepare`
        # reads them before opening the database).
        if self.controller.mode == "offline":
            self.after_first_frame(self.main.settle_settings)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded and self.screen_stack:
            self.main.hold_for_key()  # the key's frame first, then more events
            await super().on_event(event)
            # A priority binding's action has run by now (most of the main screen's
            # keys); a key passed on to the focused widget says so again in `_on_key`.
            self.main.key_handled()
            if self.main.is_current:
                self.main.query_one(StatusBar).paint_alone()  # before the panes' frame
            return
        await super().on_event(event)

    async def _on_key(self, _: events.Key) -> None:
        # Textual also runs App._on_key (the bindings) for this event, right after.
        if self.screen_stack:
            self.main.key_handled()

    def warn(self, text: str) -> None:
        """A warning toast, from the UI's loop or from a worker thread (a save runs in one)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self.call_from_thread(self.warn, text)
            return
        self.notify(text, severity="warning", timeout=12)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast (a screen's `notify` comes here too): a file name, an error or a
        scenario's text in it shows its control codes as escapes (terminal_text.py)."""
        super().notify(
            escape_controls(message),
            title=escape_controls(title),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    def fail(self, problem: str) -> None:
        self.problem = problem
        self.exit(return_code=2)

    def action_help(self) -> None:
        with importing("airline_agent.tui.screens.help"):
            from airline_agent.tui.screens.help import HelpScreen  # Markdown: slow to import

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's commands (theme, quit, keys, screenshot) but its "Keys" panel, which
        f1's help replaces, then each key of the main screen by what it does."""
        for command in super().get_system_commands(screen):
            if command.title != "Keys":
                yield command
        yield SystemCommand(
            "Help", "Every key, and what the trace's labels mean (f1)", self.action_help
        )
        main = self.main
        for binding in MainScreen.BINDINGS:
            assert isinstance(binding, Binding)
            if binding.action == "results" and self.controller.results is None:
                continue  # no eval run was given: nothing to show
            if self.controller.mode == "watch" and binding.action not in WATCH_ACTIONS:
                continue  # watching, nothing runs here: no conversation to act on
            key = binding.key.split(",")[0]
            yield SystemCommand(
                binding.description,
                f"{binding.tooltip} ({self.get_key_display(Binding(key, binding.action))})",
                lambda action=binding.action: self.call_later(main.run_action, action),
            )
