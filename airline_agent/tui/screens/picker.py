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
        offline_reason: str = "",
    ) -> None:
        super().__init__()
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
        choices = load()
        self.app.call_from_thread(self._show_choices, choices)

    def _show_choices(self, choices: list[ScenarioChoice]) -> None:
        self.choices = choices
        self._load = None
        options = self.query_one(OptionList)
        options.set_options(self._options())
        options.highlighted = 0 if choices and not choices[0].problem else None
        options.focus()
        self.call_after_refresh(self.post_message, self.LibraryShown())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
