"""The editor of what the debugger holds: a request body before it is sent, or a tool call's
arguments before it runs, as JSON (Textual's `TextArea`, JSON highlighted).

`ctrl+s` accepts the text only when the check it was given finds no problem (invalid JSON,
or a body the debugger refuses: agent/edits.py): the problems are shown under the text and
the editor stays open. `esc` closes it with nothing changed (the hold stays). What is
accepted is the text exactly as it stands: a body goes on the wire byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from airline_agent.terminal_text import escape_controls
from airline_agent.tui.widgets.keys_footer import KeysFooter


class JsonEditorScreen(ModalScreen[str | None]):
    # Its styles, parsed when it first opens (not in app.tcss, which the first screen
    # waits for).
    DEFAULT_CSS = """
    JsonEditorScreen {
        align: center middle;
    }

    /* The debugger's editor: as much of the screen as the inspector (a body is long). */
    #json-editor {
        width: 92%;
        height: 90%;
        border: thick $warning;
        background: $surface;
    }

    /* Below 120 columns, the whole screen: every column of a long body counts. */
    JsonEditorScreen.-narrow #json-editor {
        width: 1fr;
        height: 1fr;
    }

    #editor-title {
        padding: 0 1;
        text-style: bold;
    }

    #editor-keys {
        padding: 0 1;
        color: $text-muted;
    }

    #editor-text {
        height: 1fr;
    }

    #editor-problems {
        height: auto;
        max-height: 8;
        padding: 0 1;
        color: $error;
        text-style: bold;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the text area has the focus, and ctrl+s is no key of its own.
        Binding("ctrl+s", "accept", "Accept", priority=True),
        Binding("escape", "cancel", "Cancel (nothing changes)"),
    ]

    def __init__(
        self, title: str, text: str, problems: Callable[[str], list[str]], *, accept: str
    ) -> None:
        """`text`: what is edited, as the debugger shows it; `problems`: why a text would be
        refused ([]: it is accepted); `accept`: what ctrl+s does, in words ("send it")."""
        super().__init__()
        self.heading = title
        self.original = text
        self.problems = problems
        self.accept_words = accept
        self.shown_problems: list[str] = []  # what the last ctrl+s found (tests read it)

    def compose(self) -> ComposeResult:
        with Vertical(id="json-editor"):
            yield Static(self.heading, id="editor-title", markup=False)
            yield Static(
                f"ctrl+s: check it and {self.accept_words} · esc: leave it as it was",
                id="editor-keys",
                markup=False,
            )
            yield TextArea(
                self.original,
                language="json",
                soft_wrap=True,
                show_line_numbers=True,
                id="editor-text",
            )
            yield Static(id="editor-problems", markup=False)
            yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#editor-problems").display = False
        self.query_one(TextArea).focus()

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def action_accept(self) -> None:
        text = self.text
        self.shown_problems = self.problems(text)
        if not self.shown_problems:
            self.dismiss(text)
            return
        shown = self.query_one("#editor-problems", Static)
        lines = "\n".join(f"✗ {problem}" for problem in self.shown_problems)
        shown.update(escape_controls(f"Not accepted: nothing went on.\n{lines}"))
        shown.display = True

    def action_cancel(self) -> None:
        self.dismiss(None)
