"""The same round on both wires: the side-by-side screen (screens/both_wires.py), opened
from the inspector with `w`, and its pictures at 160×48 and 80×24 — the showcase played
offline on the Responses wire, its second request (the tool's result going back), so every
value is the product's own and the same each run."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Footer, TabbedContent
from textual.widgets._footer import FooterKey

from airline_agent.agent.events import RequestSent, TurnFinished
from airline_agent.config import Settings
from airline_agent.scenarios.library import SHOWCASE
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.request_log import RequestLog
from airline_agent.tui.screens.both_wires import BothWiresScreen
from airline_agent.tui.screens.inspector import InspectorScreen
from airline_agent.tui.widgets.status_bar import StatusBar
from airline_agent.tui.widgets.wire_body import WireBody
from tests.integration.test_responses_parity import played
from tests.tui.helpers import wait_until, wait_until_steady
from tests.tui.scripted_events import two_turn_controller
from tests.tui.test_snapshots import _mid_scenario

SIZES = {"160x48": (160, 48), "80x24": (80, 24)}


class Host(App[None]):
    """A bare app with the screen on top, over the showcase's requests."""

    def __init__(self, log: RequestLog, request: int) -> None:
        super().__init__()
        self.requests, self.request = log, request

    def on_mount(self) -> None:
        self.push_screen(BothWiresScreen(self.requests, self.request))


@pytest.fixture(scope="module")
def showcase_on_responses() -> RequestLog:
    return RequestLog(played(SHOWCASE, "responses"))


def _keys_shown(app: App) -> bool:
    footers = list(app.screen.query(Footer))
    return bool(footers) and all(footer.query(FooterKey) for footer in footers)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_the_showcase_round_on_both_wires(snap_compare, showcase_on_responses, size) -> None:
    async def shown(pilot) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, BothWiresScreen))
        await wait_until_steady(pilot, lambda: _keys_shown(pilot.app))
        await pilot.wait_for_scheduled_animations()  # the tabs' underline
        await pilot.pause()

    assert snap_compare(Host(showcase_on_responses, 2), terminal_size=size, run_before=shown)


async def test_each_side_says_where_it_came_from(showcase_on_responses) -> None:
    app = Host(showcase_on_responses, 2)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BothWiresScreen))
        screen = app.screen
        chat, responses = (
            screen.query_one(f"#{api}-request", WireBody) for api in ("chat", "responses")
        )
        assert (chat.border_title, chat.border_subtitle) == (
            "Chat Completions · request",
            "made here · not sent",
        )
        assert (responses.border_title, responses.border_subtitle) == (
            "Responses API · request",
            "as sent",
        )
        assert '"type": "function_call_output"' in responses.text
        assert '"role": "tool"' in chat.text
        assert '"instructions": "… 2,495 characters, elided"' in responses.text
        answer = screen.query_one("#responses-response", WireBody)
        assert answer.border_subtitle == "generated offline (script) · sum of 13 events"
        await pilot.press("3")
        rows = {(row[1], row[2]) for row in screen.map_rows()}
        assert ("messages[3].tool_call_id", "input[3].call_id") in rows
        assert ("usage.prompt_tokens", "usage.input_tokens") in rows
        await pilot.press("[")
        assert screen.numbers[screen.index] == 1
        assert any(row[1] == 'choices[0].finish_reason: "tool_calls"' for row in screen.map_rows())


@pytest.fixture(autouse=True)
def _short_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StatusBar, "SHRINK_AFTER", 0.05)


async def test_w_in_the_inspector_opens_the_round_on_both_wires() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(150, 42)) as pilot:
        await _mid_scenario(pilot)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        inspected = app.screen.numbers[app.screen.index]
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, BothWiresScreen))
        assert app.screen.numbers[app.screen.index] == inspected
        assert app.screen.query_one(TabbedContent).active == "wires-request"
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))


async def test_tui_api_responses_plays_a_scenario_on_the_responses_wire(tmp_path) -> None:
    """`tui --api responses`: the showcase plays on the Responses wire (the debugger's
    playback, streamed), and its inspector shows the Responses body."""
    controller = AgentController(Settings(db=str(tmp_path / "unused.db"), api="responses"))
    app = AirlineApp(controller, pace=0)
    app.start_scenario = SHOWCASE
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.scenario_name == SHOWCASE, 60)
        await wait_until(pilot, lambda: not app.main.turn_running, 60)
        await pilot.press(">")
        await wait_until(
            pilot, lambda: any(isinstance(e, TurnFinished) for e in app.controller.feed.events), 60
        )
        sent = [e for e in app.controller.feed.events if isinstance(e, RequestSent)]
        assert sent and all(e.api == "responses" for e in sent)
        await wait_until(pilot, lambda: not app.main.turn_running, 60)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        assert '"input": [' in app.screen.shown_json
