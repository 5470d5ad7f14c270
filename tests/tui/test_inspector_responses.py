"""The inspector on the Responses wire: the exact Responses body sent, every event of a
stream in order beside the response they add up to, and who produced each item — the
showcase played offline with `--api responses`."""

from __future__ import annotations

import json

import pytest
from textual.app import App
from textual.widgets import TextArea

from airline_agent.scenarios.library import SHOWCASE
from airline_agent.tui.request_log import RequestLog
from airline_agent.tui.screens.inspector import InspectorScreen
from tests.integration.test_responses_parity import played
from tests.tui.helpers import wait_until


class Host(App[None]):
    def __init__(self, requests: RequestLog, request: int) -> None:
        super().__init__()
        self.requests, self.request = requests, request

    def on_mount(self) -> None:
        self.push_screen(InspectorScreen(self.requests, self.request))


@pytest.fixture(scope="module")
def showcase_on_responses() -> RequestLog:
    return RequestLog(played(SHOWCASE, "responses"))


async def test_the_responses_body_and_its_events_as_they_came(showcase_on_responses) -> None:
    app = Host(showcase_on_responses, 2)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        screen = app.screen
        sent = json.loads(screen.query_one("#request-json", TextArea).text)
        assert sent == showcase_on_responses.exchanges[2].sent.body  # exactly as sent
        assert "Responses API: instructions + 4 input items" in str(
            screen.query_one("#inspector-title").render()
        )
        notes = str(screen.query_one("#inspector-notes").render())
        assert "POST /v1/responses" in notes
        assert "reasoning item rs_scripted_1 of response #1 sent back (input[1])" in notes
        events = screen.query_one("#response-chunks", TextArea)
        assert events.border_title == "13 events as they came"
        lines = events.text.split("\n\n")
        assert lines[0].startswith("event: response.created\ndata: {")
        assert lines[-1].startswith("event: response.completed\ndata: {")
        assert "[DONE]" not in events.text  # the Responses wire sends none
        assembled = json.loads(screen.query_one("#response-json", TextArea).text)
        assert assembled["object"] == "response" and assembled["status"] == "completed"
        rows = screen.anatomy_rows()
        named = {(row[1], row[2], row[3]) for row in rows}
        assert ("developer", "instructions", "instructions") in named
        assert ("customer", "customer message", "input[0]") in named
        assert ("model", "reasoning item", "input[1]") in named
        assert ("model", "function_call", "input[2] · call_ehglp3_1") in named
        assert ("framework", "function_call_output", "input[3] · call_ehglp3_1") in named
        assert ("api", "status", "status") in named
        await pilot.press("[")
        rows = screen.anatomy_rows()
        reasoning = next(row for row in rows if row[2] == "reasoning item" and row[0] == "B")
        assert "sent back in request #2 (input[1])" in reasoning[5]
