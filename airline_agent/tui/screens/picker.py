"""The scenario library: each scenario's name and description; enter plays it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from airline_agent.tui.controller import ScenarioChoice


class ScenarioPicker(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(self, choices: list[ScenarioChoice], *, offline_reason: str = "") -> None:
        super().__init__()
        self.choices = choices
        self.offline_reason = offline_reason

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Label("Scenario library — enter plays the highlighted one", id="picker-title")
            if self.offline_reason:
                yield Static(self.offline_reason, id="picker-reason", markup=False)
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
            yield OptionList(*options, id="scenario-list")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
