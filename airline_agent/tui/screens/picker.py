"""The scenario library: each scenario's name and description; enter plays it."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from airline_agent.tui.controller import ScenarioChoice


class ScenarioPicker(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Close")]

    class LibraryShown(Message):
        """The library is listed: the first full screen is up, slower work may start."""

    def __init__(
        self,
        choices: list[ScenarioChoice] | Callable[[], list[ScenarioChoice]],
        *,
        quick: Callable[[], list[ScenarioChoice] | None] | None = None,
        offline_reason: str = "",
    ) -> None:
        super().__init__()
        # `quick` lists the library before it is validated; `choices` then replaces it.
        self._quick = quick
        # A callable is the library still to read: it runs in a thread after the first
        # frame (YAML and pydantic are slow to import and parse), a loading line meanwhile.
        self._load = choices if callable(choices) else None
        self.choices: list[ScenarioChoice] = [] if callable(choices) else choices
        self.offline_reason = offline_reason

    @property
    def loaded(self) -> bool:
        return self._load is None

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Label("Scenario library — enter plays the highlighted one", id="picker-title")
            if self.offline_reason:
                yield Static(self.offline_reason, id="picker-reason", markup=False)
            yield OptionList(*self._options(), id="scenario-list")

    def _options(self) -> list[Option]:
        if not self.loaded:
            return [Option("Loading the scenario library…", disabled=True)]
        options = []
        for choice in self.choices:
            prompt = Text()
            prompt.append(choice.name, style="bold red" if choice.problem else "bold")
            if choice.turns:
                prompt.append(f"  {choice.turns} turn{'s' * (choice.turns != 1)}", style="dim")
            prompt.append("\n" + (choice.description or "").strip())
            options.append(Option(prompt, id=choice.name, disabled=bool(choice.problem)))
        if not options:
            options.append(Option("No scenarios found in the library.", disabled=True))
        return options

    def on_mount(self) -> None:
        if self._load is not None:
            # The loading line only: an animated indicator repaints every frame and takes
            # the interpreter from the thread reading the library.
            self._read_library(self._load)

    @work(thread=True, exclusive=True)
    def _read_library(self, load: Callable[[], list[ScenarioChoice]]) -> None:
        listed = self._quick() if self._quick is not None else None
        if listed is not None:
            self.app.call_from_thread(self._show_choices, listed)
        choices = load()
        if choices != listed:
            self.app.call_from_thread(self._show_choices, choices)

    def _show_choices(self, choices: list[ScenarioChoice]) -> None:
        if not self.is_attached:  # closed before the library was validated
            return
        first = self._load is not None
        options = self.query_one(OptionList)
        kept = options.highlighted_option.id if not first and options.highlighted_option else None
        self.choices = choices
        self._load = None
        options.set_options(self._options())
        usable = [c.name for c in choices if not c.problem]
        if kept in usable:
            options.highlighted = options.get_option_index(kept)
        else:
            options.highlighted = 0 if choices and not choices[0].problem else None
        if first:
            options.focus()
            self.call_after_refresh(self.post_message, self.LibraryShown())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
