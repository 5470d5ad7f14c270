"""The inspector: one request exactly as sent, what came back, and who produced each part.

Tabs: the request body (messages, tools, parameters); the response as the server sent
it — a `chat.completion` object, or a stream's chunks as they came beside the message
they add up to — marked when it was generated offline from a scripted reply; and the
articles' table for this round (`request_anatomy`): which parts came from the developer,
the customer, the model, the framework and the API. On the Responses wire (`--api
responses`) the body is the Responses body (instructions, input items), the response a
`response` object or every event of its stream (`event:` and `data:`) beside the response
they add up to, and the table names items. `w` shows the round on both wires side by
side (screens/both_wires.py). Everything shown is redacted, and what
a terminal would obey is shown as its escape (`_shown`: JSON's own, so a copy stays JSON).

With the debugger: a request held before it is sent is the last one listed, its body
exactly as it would go (`e` edits it); a request you edited says so, and its "Your edit"
tab is the diff of the body the framework assembled against the one you sent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import ClassVar

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static, TabbedContent, TabPane, TextArea

from airline_agent.agent import edits
from airline_agent.agent.anatomy import request_anatomy
from airline_agent.agent.events import RequestHeld
from airline_agent.agent.responses_wire import input_parts, reasoning_fate, reasoning_item_ids
from airline_agent.late_imports import importing
from airline_agent.redaction import Redactor
from airline_agent.terminal_text import escape_controls
from airline_agent.tui.request_log import Exchange, RequestLog
from airline_agent.tui.widgets.keys_footer import KeysFooter

ANATOMY_COLUMNS = ("step", "from", "part", "where", "what", "note")
ANATOMY_RATIOS = (None, None, 2, 2, 3, 3)  # None: as wide as its longest cell
# What the step column's letters mean, above the table (agent/anatomy.py's STEP A and B).
STEPS = "step A: in the request as the framework sent it · step B: in the response that came back"
SIDE_BY_SIDE_COLUMNS = 160  # the stream's chunks beside the message they add up to


def anatomy_table(rows: list[tuple[str, ...]]) -> Table:
    """The rows as a table that wraps its cells to the width it is drawn at."""
    table = Table(
        box=box.SIMPLE_HEAD,
        expand=True,
        show_edge=False,
        pad_edge=False,
        header_style="bold",
        show_lines=True,  # a line between rows: a wrapped cell stays with its row
    )
    # The short columns keep their width; the long ones share the rest and fold a word
    # wider than their share (an id, a path) rather than cut it.
    for name, ratio in zip(ANATOMY_COLUMNS, ANATOMY_RATIOS, strict=True):
        table.add_column(name, ratio=ratio, no_wrap=ratio is None, overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell, overflow="fold") for cell in row))
    return table


class InspectorScreen(ModalScreen[None]):
    # Its styles, parsed when it first opens (not in app.tcss, which the first screen
    # waits for).
    DEFAULT_CSS = """
    InspectorScreen {
        align: center middle;
    }

    #inspector-title, #inspector-notes, #anatomy-steps {
        width: 1fr;
        height: auto;
    }

    #inspector-notes, #anatomy-steps {
        color: $text-muted;
        padding: 0 1;
    }

    #inspector-tabs, #inspector TabPane, #inspector TextArea, #response-parts, #anatomy-scroll {
        height: 1fr;
    }

    #response-parts.-side {
        layout: horizontal;
    }

    #response-parts.-side > TextArea {
        width: 1fr;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,i,q", "dismiss", "Close"),
        Binding("[", "step(-1)", "Previous request"),
        Binding("]", "step(1)", "Next request"),
        Binding("c", "copy", "Copy JSON"),
        # A key per tab (priority: a text area with the focus would take a digit first).
        Binding("1", "tab('request-tab')", "Request", priority=True),
        Binding("2", "tab('response-tab')", "Response", priority=True),
        Binding("3", "tab('anatomy-tab')", "Who", priority=True),
        # Offered only where they apply (check_action): an edited request, a held one.
        Binding("4", "tab('edit-tab')", "Your edit", priority=True),
        Binding("e", "edit", "Edit it"),
        Binding("w", "both_wires", "Both wires"),
    ]

    def __init__(
        self,
        log: RequestLog,
        request: int | None = None,
        *,
        redactor: Redactor | None = None,
        held: RequestHeld | None = None,
        edit: Callable[[], object] | None = None,
    ) -> None:
        """`held`: the request held before it is sent, listed last; `edit`: what `e` does
        on it (the screen's editor)."""
        super().__init__()
        self.request_log = log
        self.held = held if held is not None and held.request not in log.exchanges else None
        self.numbers = log.numbers() + ([self.held.request] if self.held else [])
        self.edit = edit
        self.redactor = redactor or Redactor()
        self.index = (
            self.numbers.index(request) if request in self.numbers else len(self.numbers) - 1
        )
        self.response_json = ""  # the Response tab's whole JSON (what `c` copies there)
        self._anatomy: list[tuple[str, ...]] = []  # the rows of "who produced what"

    def compose(self) -> ComposeResult:
        # Everything wraps at the width it has (80×24 included): a header, a chunk of the
        # stream, a table cell is never cut off.
        with Vertical(id="inspector"):
            yield Static(id="inspector-title", markup=False)
            yield Static(id="inspector-notes", markup=False)
            with TabbedContent(id="inspector-tabs"):
                with TabPane("Request", id="request-tab"):
                    yield TextArea(read_only=True, id="request-json", soft_wrap=True)
                with TabPane("Response", id="response-tab"), Container(id="response-parts"):
                    yield TextArea(read_only=True, id="response-chunks", soft_wrap=True)
                    yield TextArea(read_only=True, id="response-json", soft_wrap=True)
                with TabPane("Who produced what", id="anatomy-tab"):
                    yield Static(STEPS, id="anatomy-steps", markup=False)
                    with VerticalScroll(id="anatomy-scroll"):
                        yield Static(id="anatomy", markup=False)
                with TabPane("Your edit", id="edit-tab"):
                    yield TextArea(read_only=True, id="edit-diff", soft_wrap=True)
            yield KeysFooter()

    def on_mount(self) -> None:
        self._show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "edit":
            return self.edit is not None and self._viewing_held
        if action == "both_wires":
            return bool(self.numbers) and not self._viewing_held
        if action == "tab" and parameters == ("edit-tab",):
            return self._edit_diff is not None
        return True

    @property
    def _viewing_held(self) -> bool:
        return (
            self.held is not None
            and bool(self.numbers)
            and (self.numbers[self.index] == self.held.request)
        )

    @property
    def _edit_diff(self) -> str | None:
        """The diff of the request shown, when you edited it."""
        if not self.numbers or self._viewing_held:
            return None
        edit = self.request_log.exchanges[self.numbers[self.index]].sent.edit
        return edit.diff() if edit is not None else None

    def on_resize(self) -> None:
        # Side by side from 160 columns (each half holds a chunk's line); one above the
        # other below, each the whole width.
        wide = self.size.width >= SIDE_BY_SIDE_COLUMNS
        self.query_one("#response-parts").set_class(wide, "-side")

    def _shown(self, text: str) -> str:
        return escape_controls(self.redactor.redact(text))

    def _json(self, value: object) -> str:
        return self._shown(json.dumps(value, indent=2, ensure_ascii=False, default=str))

    def _show(self) -> None:
        title = self.query_one("#inspector-title", Static)
        notes = self.query_one("#inspector-notes", Static)
        request_area = self.query_one("#request-json", TextArea)
        self._show_edit()
        if not self.numbers:
            title.update("No request yet: the inspector shows each request once it is sent.")
            notes.update("")
            request_area.text = ""
            self._show_response(None)
            self._show_anatomy(None)
            return
        number = self.numbers[self.index]
        if self.held is not None and number == self.held.request:
            self._show_held(self.held)
            return
        exchange = self.request_log.exchanges[number]
        sent = exchange.sent
        prefix = f" · {sent.prefix.label}" if sent.prefix is not None else ""
        parts = f"{len(sent.messages)} messages"
        if sent.body is not None:
            parts = f"Responses API: {input_parts(sent.body)}"
        title.update(
            f"Request #{number} of {len(self.numbers)} · turn {sent.turn} · "
            f"{parts}{prefix} · [ ] other requests · c copies"
        )
        notes.update(self._shown("\n".join(self._notes(exchange))))
        request_area.text = self._json(exchange.request_body())
        self._show_response(exchange)
        self._show_anatomy(exchange)

    def _show_held(self, held: RequestHeld) -> None:
        reasons = ", ".join(held.reasons)
        self.query_one("#inspector-title", Static).update(
            f"Request #{held.request} of {len(self.numbers)} · turn {held.turn} · HELD, not "
            f"sent yet ({reasons}) · e edits it · esc, then space sends it"
        )
        self.query_one("#inspector-notes", Static).update(
            "The body exactly as the framework would send it (the key travels in a header)."
        )
        self.query_one("#request-json", TextArea).text = self._shown(edits.held_text(held))
        self._show_response(None)
        self.query_one("#response-json", TextArea).text = "(not sent yet)"
        self._show_anatomy(None)

    def _show_edit(self) -> None:
        """The "Your edit" tab: there for a request you edited, its diff; else hidden."""
        tabs = self.query_one(TabbedContent)
        diff = self._edit_diff
        if diff is None:
            if tabs.active == "edit-tab":
                tabs.active = "request-tab"
            tabs.hide_tab("edit-tab")
        else:
            tabs.show_tab("edit-tab")
            self.query_one("#edit-diff", TextArea).text = self._shown(diff)
        self.refresh_bindings()

    def _notes(self, exchange: Exchange) -> list[str]:
        """What the JSON does not say by itself: a generated response, reasoning left out,
        your edit."""
        notes: list[str] = []
        if exchange.sent.edit is not None:
            notes.append(
                "Edited by you before it was sent: this is the body that went on the wire, "
                "byte for byte as you left it; 4: the diff against the one assembled."
            )
        raw = exchange.response.raw if exchange.response is not None else None
        if raw is not None and raw.generated:
            notes.append("Response: generated offline from the scripted response (no server).")
        earlier = self.request_log.exchanges.get(exchange.sent.request - 1)
        answer = earlier.response if earlier is not None else None
        reasoned = answer is not None and answer.reasoning
        if exchange.sent.body is not None:
            notes.append("Sent to POST /v1/responses (the Responses API); w: both wires.")
            if reasoned and answer is not None:
                ids = reasoning_item_ids(answer.raw.assembled) if answer.raw is not None else ()
                notes += reasoning_fate(exchange.sent.body, {answer.request: ids})
        elif reasoned and not any(m.get("reasoning_content") for m in exchange.sent.messages):
            notes.append(
                f"reasoning_content of response #{exchange.sent.request - 1} not sent back: "
                "this request's messages leave it out."
            )
        return notes

    def _show_response(self, exchange: Exchange | None) -> None:
        chunks_area = self.query_one("#response-chunks", TextArea)
        body_area = self.query_one("#response-json", TextArea)
        response = exchange.response_body() if exchange is not None else None
        self.response_json = self._json(response) if response is not None else ""
        raw = exchange.response.raw if exchange and exchange.response else None
        if raw is not None and raw.kind == "stream" and raw.api == "responses":
            # Named events, each as the wire carried it (`event:` and `data:`); no [DONE].
            lines = [
                f"event: {event.get('type')}\ndata: {json.dumps(event, ensure_ascii=False)}"
                for event in raw.chunks
            ]
            chunks_area.text = self._shown("\n\n".join(lines))
            chunks_area.border_title = f"{len(raw.chunks)} events as they came"
            body_area.text = self._json(raw.assembled)
            body_area.border_title = "the response they add up to"
            chunks_area.display = True
        elif raw is not None and raw.kind == "stream":
            # As the wire carried it: one `data:` line per chunk; beside it, the message.
            lines = [f"data: {json.dumps(chunk, ensure_ascii=False)}" for chunk in raw.chunks]
            chunks_area.text = self._shown("\n\n".join([*lines, "data: [DONE]"]))
            chunks_area.border_title = f"{len(raw.chunks)} chunks as they came"
            body_area.text = self._json(raw.assembled)
            body_area.border_title = "assembled"
            chunks_area.display = True
        else:
            chunks_area.display = False
            body_area.text = self.response_json if response is not None else "(no response yet)"
            body_area.border_title = None

    def _show_anatomy(self, exchange: Exchange | None) -> None:
        self._anatomy = []
        if exchange is not None:
            following = self.request_log.exchanges.get(exchange.sent.request + 1)
            parts = request_anatomy(
                exchange.sent,
                exchange.response,
                exchange.usage,
                next_request=following.sent if following is not None else None,
            )
            for part in parts:
                where = part.path + (f" · {part.call_id}" if part.call_id else "")
                cells = (part.step, part.producer, part.name, where, part.summary, part.note)
                self._anatomy.append(tuple(self._shown(cell) for cell in cells))
        self.query_one("#anatomy", Static).update(anatomy_table(self._anatomy))

    def anatomy_rows(self) -> list[tuple[str, ...]]:
        """The table's rows as text (tests read them)."""
        return list(self._anatomy)

    @property
    def shown_json(self) -> str:
        tabs = self.query_one(TabbedContent)
        if tabs.active == "response-tab":
            return self.response_json
        if tabs.active == "anatomy-tab":
            return "\n".join(" | ".join(row) for row in self.anatomy_rows())
        if tabs.active == "edit-tab":
            return self.query_one("#edit-diff", TextArea).text
        return self.query_one("#request-json", TextArea).text

    def action_step(self, delta: int) -> None:
        if self.numbers:
            self.index = max(0, min(len(self.numbers) - 1, self.index + delta))
            self._show()

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_edit(self) -> None:
        if self.edit is not None and self._viewing_held:
            self.dismiss()
            self.edit()

    def action_both_wires(self) -> None:
        """The request shown, and its response, on both wires side by side."""
        # Its door: the both-wires view imports the stack (sqlmodel, openai), which opening
        # the inspector does not wait for.
        with importing("airline_agent.tui.screens.both_wires"):
            # Alone: another thread's door may be importing (late_imports.py).
            from airline_agent.tui.screens.both_wires import BothWiresScreen

        if self.numbers and not self._viewing_held:
            number = self.numbers[self.index]
            self.app.push_screen(BothWiresScreen(self.request_log, number, redactor=self.redactor))

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.shown_json)
        self.notify("Copied the JSON to the clipboard.")
