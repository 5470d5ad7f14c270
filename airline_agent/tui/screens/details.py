"""One trace entry, whole: arguments, the full result as JSON, rows before → after."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from airline_agent.redaction import Redactor
from airline_agent.terminal_text import escape_controls
from airline_agent.tui.formatting import clip_lines, pretty_json
from airline_agent.tui.trace import TraceEntry

# A longer line (a tool result of megabytes on one line) is shown as its start and how much
# more it holds, and `c` copies it whole: the editor wraps a line anew each time it draws
# one of its rows, and a line of megabytes held every key for seconds (a 2 MB result took
# 8 s to open and 10 s to answer a key).
SHOWN_LINE_CHARS = 2_000


class EntryDetailsScreen(ModalScreen[None]):
    # Its styles, parsed when it first opens (not in app.tcss, which the first screen
    # waits for).
    DEFAULT_CSS = """
    EntryDetailsScreen {
        align: center middle;
    }

    #details TextArea {
        height: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("c", "copy", "Copy"),
    ]

    def __init__(self, entry: TraceEntry, *, redactor: Redactor | None = None) -> None:
        super().__init__()
        self.entry = entry
        self.redactor = redactor or Redactor()
        self.text = escape_controls(self.redactor.redact(pretty_json(entry.details)))

    def compose(self) -> ComposeResult:
        title = f"{self.entry.producer} · {self.entry.title}  {self.entry.meta}"
        yield Vertical(
            Label(escape_controls(self.redactor.redact(title)), id="details-title", markup=False),
            TextArea(clip_lines(self.text, SHOWN_LINE_CHARS), read_only=True, id="details-json"),
            id="details",
        )

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify("Copied.")
