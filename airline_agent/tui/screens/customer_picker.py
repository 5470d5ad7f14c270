"""`u`: whom the conversation acts for, picked from the database's customers.

Typing searches the ids and names (every word typed must appear); enter takes the id typed
when it is a customer's, else the highlighted match; an id that is no customer's is
refused, saying so, and the picker stays open. Empty: an unidentified customer.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

SHOWN_MATCHES = 200  # the list stays quick to draw; a longer search narrows it


class CustomerPicker(ModalScreen[str | None]):
    """Dismisses with the chosen id, "" (not identified) or None (closed)."""

    # Its styles, parsed when it first opens (not in app.tcss, which the first screen
    # waits for).
    DEFAULT_CSS = """
    CustomerPicker {
        align: center middle;
    }

    #customer-picker {
        width: 80;
        max-width: 95%;
        height: 80%;
        border: thick $accent;
        background: $surface;
        padding: 0 1;
    }

    #customer-question {
        width: 1fr;
        margin-bottom: 1;
    }

    #customer-problem {
        height: auto;
    }

    #customer-matches {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Close"),
        Binding("down", "into_list", "Matches", show=False),
    ]

    def __init__(self, customers: list[tuple[str, str]], current: str | None) -> None:
        super().__init__()
        self.customers = customers
        self.current = current or ""
        self._ids = {customer_id.lower(): customer_id for customer_id, _ in customers}

    def compose(self) -> ComposeResult:
        with Vertical(id="customer-picker"):
            yield Label(
                "Act for which customer? Type to search ids and names; enter picks "
                "(empty: not identified). A new conversation starts.",
                id="customer-question",
            )
            yield Input(
                self.current, placeholder="e.g. emma_kim_9957 or Emma Kim", id="customer-search"
            )
            yield Static("", id="customer-problem")
            yield OptionList(id="customer-matches")

    def on_mount(self) -> None:
        self._show_matches(self.current)
        self.query_one("#customer-search", Input).focus()

    def matches(self, typed: str) -> list[tuple[str, str]]:
        words = typed.lower().split()
        return [
            (customer_id, name)
            for customer_id, name in self.customers
            if all(word in f"{customer_id} {name}".lower() for word in words)
        ]

    def _show_matches(self, typed: str) -> None:
        found = self.matches(typed)
        options = self.query_one("#customer-matches", OptionList)
        options.set_options(
            Option(Text.assemble((customer_id, "bold"), "  ", name), id=customer_id)
            for customer_id, name in found[:SHOWN_MATCHES]
        )
        if found:
            options.highlighted = 0
        more = len(found) - SHOWN_MATCHES
        options.border_subtitle = f"{len(found)} customers" + (
            f" ({more} more: type more)" if more > 0 else ""
        )

    @on(Input.Changed, "#customer-search")
    def _search(self, event: Input.Changed) -> None:
        self.query_one("#customer-problem", Static).update("")
        self._show_matches(event.value)

    @on(Input.Submitted, "#customer-search")
    def _take_typed(self, event: Input.Submitted) -> None:
        event.stop()
        typed = event.value.strip()
        if not typed:
            self.dismiss("")
            return
        if typed.lower() in self._ids:
            self.dismiss(self._ids[typed.lower()])
            return
        options = self.query_one("#customer-matches", OptionList)
        chosen = options.highlighted_option
        if chosen is not None and chosen.id is not None:
            self.dismiss(chosen.id)
            return
        self.query_one("#customer-problem", Static).update(
            Text(
                f"No customer {typed!r} in this database: pick one from the list.", style="bold red"
            )
        )

    @on(OptionList.OptionSelected, "#customer-matches")
    def _take_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_into_list(self) -> None:
        self.query_one("#customer-matches", OptionList).focus()
