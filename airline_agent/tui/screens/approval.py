"""Approval: every write call of one response, with its arguments and what it will change."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Label, Static

from airline_agent.agent.events import PendingWrite
from airline_agent.terminal_text import escape_controls
from airline_agent.tui.formatting import pretty_json


class ApprovalScreen(ModalScreen[dict[str, bool]]):
    """Dismisses with {call_id: approved}; declining is answered as the customer declining."""

    # Its styles, parsed when it first opens (not in app.tcss, which the first screen
    # waits for).
    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
    }

    #approval {
        width: 80%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        border: thick $warning;
        background: $surface;
        padding: 1 2;
    }

    #approval-title {
        text-style: bold;
        margin-bottom: 1;
    }

    /* Half the screen at most: the buttons under the calls stay in view however many calls
       one response makes (two long ones pushed them off a 40-row screen); the calls scroll. */
    #approval-calls {
        height: auto;
        max-height: 50vh;
    }

    .pending-write {
        height: auto;
        border: round $panel-lighten-2;
        margin-bottom: 1;
    }

    .pending-write .arguments {
        color: $text-muted;
        padding: 0 1;
    }

    .pending-write .preview {
        color: $warning;
        padding: 0 1;
    }

    #approval-buttons {
        height: auto;
        align-horizontal: right;
    }

    #approval-buttons Button {
        margin-left: 2;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "approve", "Approve checked"),
        Binding("n,escape", "decline", "Decline all"),
    ]

    def __init__(self, calls: tuple[PendingWrite, ...]) -> None:
        super().__init__()
        self.calls = calls

    def compose(self) -> ComposeResult:
        count = len(self.calls)
        with Vertical(id="approval"):
            yield Label(
                f"The agent wants to change the database ({count} write "
                f"call{'s' * (count != 1)}). Approve?",
                id="approval-title",
            )
            with VerticalScroll(id="approval-calls"):
                # Boxes are named by position: a call id is the server's text, often no
                # valid widget id (`functions.cancel_reservation:0`).
                for position, call in enumerate(self.calls):
                    with Vertical(classes="pending-write"):
                        # The model's arguments, and a preview that may quote them.
                        name = escape_controls(call.name)
                        arguments = escape_controls(pretty_json(call.arguments))
                        yield Checkbox(name, value=True, id=f"approve-{position}")
                        yield Static(arguments, classes="arguments", markup=False)
                        yield Static(escape_controls(call.preview), classes="preview", markup=False)
            with Horizontal(id="approval-buttons"):
                yield Button("Approve (y)", variant="success", id="approve")
                yield Button("Decline all (n)", variant="error", id="decline")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "approve":
            self.action_approve()
        else:
            self.action_decline()

    def action_approve(self) -> None:
        self.dismiss(
            {
                call.call_id: self.query_one(f"#approve-{position}", Checkbox).value
                for position, call in enumerate(self.calls)
            }
        )

    def action_decline(self) -> None:
        self.dismiss({call.call_id: False for call in self.calls})
