"""One trace entry, whole: arguments, the full result as JSON, rows before → after."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from airline_agent.tui.formatting import pretty_json, redact
from airline_agent.tui.trace import TraceEntry


class EntryDetailsScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("c", "copy", "Copy"),
    ]

    def __init__(self, entry: TraceEntry, *, secret: str | None = None) -> None:
        super().__init__()
        self.entry = entry
        self.text = redact(pretty_json(entry.details), secret)

    def compose(self) -> ComposeResult:
        with Vertical(id="details"):
            yield Label(
                f"{self.entry.producer} · {self.entry.title}  {self.entry.meta}", id="details-title"
            )
            yield TextArea(self.text, read_only=True, id="details-json")

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify("Copied.")
