"""A yes-or-no question about something that cannot be undone, with what it would do."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True only for an explicit yes (`y` or the button); `n`, `esc` or
    the other button keep things as they are."""

    # Its styles, parsed when it first opens (not in app.tcss, which the first screen
    # waits for).
    DEFAULT_CSS = """
    #confirm {
        width: 80%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        border: thick $error;
        background: $surface;
        padding: 1 2;
    }

    #confirm-question {
        text-style: bold;
        width: 1fr;
        margin-bottom: 1;
    }

    #confirm-details {
        height: auto;
        max-height: 16;
        color: $text-muted;
        margin-bottom: 1;
    }

    #confirm-buttons {
        height: auto;
        align-horizontal: right;
    }

    #confirm-buttons Button {
        margin-left: 2;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, details: str = "", *, yes: str, no: str) -> None:
        super().__init__()
        self.question = question
        self.details = details
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Label(self.question, id="confirm-question", markup=False)
            if self.details:
                with VerticalScroll(id="confirm-details"):
                    yield Static(self.details, markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.yes} (y)", variant="error", id="confirm-yes")
                yield Button(f"{self.no} (n)", variant="primary", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()  # enter keeps things as they are

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
