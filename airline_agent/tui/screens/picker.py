"""The scenario library: each scenario's name and description; enter plays it."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import ClassVar, Protocol, runtime_checkable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from airline_agent.terminal_text import escape_controls
from airline_agent.tui.library import ScenarioChoice

# The option that keeps (or brings back) the live chat: no scenario's name can be it.
LIVE_CHAT = "__live_chat__"


def modal_list_keys(*moves: tuple[str, str]) -> list[BindingType]:
    """The keys of a modal list that plays what is chosen (the library, the eval results):
    escape closes, enter plays, each (key, action) moves the list (`action_move`).

    Every one is a priority binding, as on the main screen: each runs as the app reads
    it, in the order read. Left to the list, a key travels through its message queue
    first; a key read with the enter (a paste, a fast typist, a busy machine) was then sent
    to the list, still on top, and lost, where now the list is closed by the time it is
    read, and the main screen holds it until the chosen scenario is in place. The list's
    own movement keys are here too, so that a priority enter never overtakes an arrow read
    before it."""
    return [
        Binding("escape", "dismiss(None)", "Close", priority=True),
        Binding("enter", "choose", "Play", show=False, priority=True),
        *(Binding(key, f"move('{action}')", show=False, priority=True) for key, action in moves),
    ]


@runtime_checkable
class FirstFrameAware(Protocol):
    """An app that says when its first frame is on the screen (tui/app.py's)."""

    def after_first_frame(self, work: Callable[[], object]) -> None: ...


class ScenarioPicker(ModalScreen[str | None]):
    """Dismisses with the chosen scenario's name, `LIVE_CHAT`, or None (closed)."""

    BINDINGS: ClassVar[list[BindingType]] = modal_list_keys(
        ("down", "cursor_down"),
        ("up", "cursor_up"),
        ("home", "first"),
        ("end", "last"),
        ("pagedown", "page_down"),
        ("pageup", "page_up"),
    )

    class LibraryShown(Message):
        """The library is listed: the first full screen is up, slower work may start."""

    def __init__(
        self,
        choices: list[ScenarioChoice] | Callable[[], list[ScenarioChoice]],
        *,
        quick: Callable[[], list[ScenarioChoice] | None] | None = None,
        offline_reason: str = "",
        live_chat: str | None = None,
    ) -> None:
        super().__init__()
        # `quick` lists the library as its files say (libyaml, no pydantic: tens of
        # milliseconds), so the first frame shows it; `choices`, when a callable, then
        # validates every file in a thread and replaces the list if it differs.
        self._quick = quick
        self._validate = choices if callable(choices) else None
        self.choices: list[ScenarioChoice] = [] if callable(choices) else choices
        self.loaded = not callable(choices)  # the library is listed (quick or validated)
        self.offline_reason = offline_reason
        # Live: the first option, highlighted, stays in (or goes back to) the live chat,
        # so that only a deliberate choice leaves it for a scripted scenario.
        self.live_chat = live_chat

    def compose(self) -> ComposeResult:
        if not self.loaded and self._quick is not None:
            listed = self._quick()
            if listed is not None:  # None: a file the quick reader cannot list
                self.choices, self.loaded = listed, True
        with Vertical(id="picker"):
            yield Label("Scenario library — enter plays the highlighted one", id="picker-title")
            if self.offline_reason:
                yield Static(self.offline_reason, id="picker-reason", markup=False)
            yield OptionList(*self._options(), id="scenario-list")

    def _options(self) -> list[Option]:
        if not self.loaded:
            return [Option("Loading the scenario library…", disabled=True)]
        options = []
        if self.live_chat:
            options.append(Option(Text(self.live_chat, style="bold"), id=LIVE_CHAT))
        for choice in self.choices:
            prompt = Text()
            # A scenario file's text (its name, its description, why it is unusable).
            name = escape_controls(choice.name)
            prompt.append(name, style="bold red" if choice.problem else "bold")
            if choice.turns:
                prompt.append(f"  {choice.turns} turn{'s' * (choice.turns != 1)}", style="dim")
            prompt.append("\n" + escape_controls((choice.description or "").strip()))
            options.append(Option(prompt, id=choice.name, disabled=bool(choice.problem)))
        if not options:
            options.append(Option("No scenarios found in the library.", disabled=True))
        return options

    def on_mount(self) -> None:
        if self.loaded:
            self._highlight(None)
            self.call_after_refresh(self.post_message, self.LibraryShown())
        if self._validate is not None:
            # After the first frame is on the screen: pydantic is slow to import and its
            # thread would hold the frame up. (No animated indicator meanwhile: it would
            # repaint every frame and take the interpreter from the thread reading the
            # library.) The list, listed quickly, takes keys meanwhile.
            validate = partial(self._start_validating, self._validate)
            if isinstance(self.app, FirstFrameAware):
                self.app.after_first_frame(validate)
            else:
                self.call_after_refresh(validate)

    def _start_validating(self, load: Callable[[], list[ScenarioChoice]]) -> None:
        if self.is_attached:  # not closed meanwhile
            self._read_library(load)

    @work(thread=True, exclusive=True)
    def _read_library(self, load: Callable[[], list[ScenarioChoice]]) -> None:
        choices = load()
        self.app.call_from_thread(self._show_choices, choices)

    def _show_choices(self, choices: list[ScenarioChoice]) -> None:
        if not self.is_attached:  # closed before the library was validated
            return
        first = not self.loaded
        if not first and choices == self.choices:
            return
        options = self.query_one(OptionList)
        kept = options.highlighted_option.id if not first and options.highlighted_option else None
        self.choices = choices
        self.loaded = True
        options.set_options(self._options())
        self._highlight(kept)
        if first:
            self.call_after_refresh(self.post_message, self.LibraryShown())

    def _highlight(self, kept: str | None) -> None:
        """The entry highlighted before, or the first usable one; the list has the focus."""
        options = self.query_one(OptionList)
        usable = [c.name for c in self.choices if not c.problem]
        if self.live_chat:
            usable.insert(0, LIVE_CHAT)
        if kept in usable:
            options.highlighted = options.get_option_index(kept)
        else:
            first = options.get_option_at_index(0) if options.option_count else None
            options.highlighted = 0 if first is not None and not first.disabled else None
        options.focus()

    def action_move(self, action: str) -> None:
        getattr(self.query_one(OptionList), f"action_{action}")()

    def action_choose(self) -> None:
        """The highlighted option, if it can be chosen (a scenario with a problem cannot)."""
        option = self.query_one(OptionList).highlighted_option
        if option is not None and not option.disabled:
            self.dismiss(option.id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)  # a click
