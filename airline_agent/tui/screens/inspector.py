"""The inspector: the exact request (messages, tools, parameters) and raw response as JSON."""

from __future__ import annotations

import json
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, TabbedContent, TabPane, TextArea

from airline_agent.tui.formatting import redact
from airline_agent.tui.request_log import RequestLog


class InspectorScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,i,q", "dismiss", "Close"),
        Binding("[", "step(-1)", "Previous request"),
        Binding("]", "step(1)", "Next request"),
        Binding("c", "copy", "Copy JSON"),
    ]

    def __init__(self, log: RequestLog, request: int | None = None, *, secret: str | None = None):
        super().__init__()
        self.request_log = log
        self.numbers = log.numbers()
        self.secret = secret
        self.index = (
            self.numbers.index(request) if request in self.numbers else len(self.numbers) - 1
        )

    def compose(self) -> ComposeResult:
        with Vertical(id="inspector"):
            yield Label(id="inspector-title")
            with TabbedContent(id="inspector-tabs"):
                with TabPane("Request", id="request-tab"):
                    yield TextArea(read_only=True, id="request-json", soft_wrap=False)
                with TabPane("Response", id="response-tab"):
                    yield TextArea(read_only=True, id="response-json", soft_wrap=False)
            yield Footer()

    def on_mount(self) -> None:
        self._show()

    def _json(self, value: object) -> str:
        text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
        return redact(text, self.secret)

    def _show(self) -> None:
        title = self.query_one("#inspector-title", Label)
        request_area = self.query_one("#request-json", TextArea)
        response_area = self.query_one("#response-json", TextArea)
        if not self.numbers:
            title.update("No request yet: the inspector shows each request once it is sent.")
            request_area.text = response_area.text = ""
            return
        number = self.numbers[self.index]
        exchange = self.request_log.exchanges[number]
        title.update(
            f"Request #{number} of {len(self.numbers)} · turn {exchange.sent.turn} · "
            f"{len(exchange.sent.messages)} messages · [ ] other requests · c copies"
        )
        request_area.text = self._json(exchange.request_body())
        response = exchange.response_body()
        response_area.text = self._json(response) if response is not None else "(no response yet)"

    @property
    def shown_json(self) -> str:
        tabs = self.query_one(TabbedContent)
        area_id = "#request-json" if tabs.active == "request-tab" else "#response-json"
        return self.query_one(area_id, TextArea).text

    def action_step(self, delta: int) -> None:
        if self.numbers:
            self.index = max(0, min(len(self.numbers) - 1, self.index + delta))
            self._show()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.shown_json)
        self.notify("Copied the JSON to the clipboard.")
