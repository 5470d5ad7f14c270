"""The same round on both wires: one request and its response as Chat Completions and as the
Responses API carry them, side by side, and what corresponds to what (agent/both_wires.py).

Opened from the inspector (`w`) on the request it shows, for the showcase, any scenario
offline, or a live conversation. The wire the request went on shows it as sent; the other
is made from the same round and says so beneath its body, as does every response
generated here or offline from a script. Long parts that are the same on every request —
the instructions, the tool schemas and a response's echo of them — are elided here (the
inspector shows every byte); everything else is the JSON itself.
"""

from __future__ import annotations

import json
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static, TabbedContent, TabPane

from airline_agent.agent.both_wires import WIRE_NAMES, BothWires, WireSide, both_wires
from airline_agent.choices import Api
from airline_agent.redaction import Redactor
from airline_agent.terminal_text import escape_controls
from airline_agent.tui.request_log import RequestLog
from airline_agent.tui.widgets.keys_footer import KeysFooter
from airline_agent.tui.widgets.wire_body import WireBody
from airline_agent.tui.widgets.wire_map import WireMap

WIRES: tuple[Api, ...] = ("chat", "responses")
ELIDED = "… {what}, elided"  # the inspector, under this screen, shows every byte


class BothWiresScreen(ModalScreen[None]):
    CSS_PATH = "both_wires.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,w,q", "dismiss", "Close"),
        Binding("[", "step(-1)", "Previous"),
        Binding("]", "step(1)", "Next"),
        # The tabs say their keys' places; the footer says the one worth knowing.
        Binding("1", "tab('wires-request')", "Request", show=False, priority=True),
        Binding("2", "tab('wires-response')", "Response", show=False, priority=True),
        Binding("3", "tab('wires-map')", "What maps to what", priority=True),
    ]

    def __init__(
        self, log: RequestLog, request: int | None = None, *, redactor: Redactor | None = None
    ) -> None:
        super().__init__()
        self.request_log = log
        self.numbers = log.numbers()
        self.index = (
            self.numbers.index(request) if request in self.numbers else len(self.numbers) - 1
        )
        self.redactor = redactor or Redactor()
        self.round: BothWires | None = None  # the round shown

    def compose(self) -> ComposeResult:
        with Vertical(id="both-wires"):
            yield Static(id="both-title", markup=False)
            yield Static(id="both-notes", markup=False)
            with TabbedContent(id="both-tabs"):
                with TabPane("Request", id="wires-request"), Horizontal(classes="wire-pair"):
                    for api in WIRES:
                        yield WireBody(id=f"{api}-request")
                with TabPane("Response", id="wires-response"), Horizontal(classes="wire-pair"):
                    for api in WIRES:
                        yield WireBody(id=f"{api}-response")
                with TabPane("How they map", id="wires-map"), VerticalScroll(id="wire-map-scroll"):
                    yield WireMap(id="wire-map")
            yield KeysFooter()

    def on_mount(self) -> None:
        self._show()

    def _shown(self, text: str) -> str:
        return escape_controls(self.redactor.redact(text))

    def _json(self, value: object) -> str:
        return self._shown(json.dumps(value, indent=2, ensure_ascii=False, default=str))

    def _show(self) -> None:
        title = self.query_one("#both-title", Static)
        if not self.numbers:
            title.update("No request yet: a round shows here once it is sent.")
            return
        number = self.numbers[self.index]
        exchange = self.request_log.exchanges[number]
        earlier = [
            answer
            for n in self.numbers
            if n < number and (answer := self.request_log.exchanges[n].response) is not None
        ]
        self.round = both_wires(exchange.sent, exchange.response, exchange.usage, earlier)
        title.update(
            f"Request #{number} of {len(self.numbers)} on both wires · turn {exchange.sent.turn}"
            f" · sent on {WIRE_NAMES[self.round.sent_on]}"
        )
        self.query_one("#both-notes", Static).update(
            "Beneath each body: where it came from. Long parts elided (esc: the inspector)."
        )
        for api in WIRES:
            side = self.round.side(api)
            self.query_one(f"#{api}-request", WireBody).show(
                side.name, "request", side.request_source, self._json(_elided_request(side))
            )
            response = _elided_response(side)
            self.query_one(f"#{api}-response", WireBody).show(
                side.name,
                "response",
                side.response_source,
                self._json(response) if response is not None else "(no response yet)",
            )
        self.query_one(WireMap).show(self.round.correspondences, self._shown)

    def map_rows(self) -> list[tuple[str, ...]]:
        """The correspondences shown, as text (tests read them)."""
        return list(self.query_one(WireMap).rows)

    def action_step(self, delta: int) -> None:
        if self.numbers:
            self.index = max(0, min(len(self.numbers) - 1, self.index + delta))
            self._show()

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab


def _elided_request(side: WireSide) -> dict[str, object]:
    """The request with its instructions (a system message on Chat) and tool schemas said
    in one line each: they are the same on every request of a conversation."""
    body = dict(side.request)
    tools = body.get("tools") or []
    if tools:
        body["tools"] = ELIDED.format(what=f"{len(tools)} tool schemas")
    if isinstance(body.get("instructions"), str):
        body["instructions"] = ELIDED.format(what=f"{len(body['instructions']):,} characters")
    messages = body.get("messages")
    if messages and messages[0].get("role") == "system":
        text = str(messages[0].get("content") or "")
        system = {**messages[0], "content": ELIDED.format(what=f"{len(text):,} characters")}
        body["messages"] = [system, *messages[1:]]
    return body


def _elided_response(side: WireSide) -> dict[str, object] | None:
    """The response with a Responses server's echo of the request's instructions and tools
    said in one line each."""
    if side.response is None:
        return None
    response = dict(side.response)
    if isinstance(response.get("instructions"), str):
        response["instructions"] = ELIDED.format(what="the request's instructions, echoed")
    if response.get("tools"):
        response["tools"] = ELIDED.format(
            what=f"the request's {len(response['tools'])} tools, echoed"
        )
    return response
