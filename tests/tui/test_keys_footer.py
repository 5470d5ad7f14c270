"""The footer shows the keys on offer, and is composed again only when they change: a
scenario's turns played one after another leave its keys as they were (each composition
lays out the whole screen), a hold offers `e` at once."""

from __future__ import annotations

from pathlib import Path

from textual.widgets._footer import FooterKey

from airline_agent.agent.events import RequestHeld
from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from tests.tui.helpers import wait_until, wait_until_steady

SIZE = (160, 48)
DEADLINE = 60.0  # a scenario's fresh copy: generous under load


def _offline(tmp_path: Path) -> AirlineApp:
    app = AirlineApp(AgentController(Settings(db=str(tmp_path / "unused.db"))), pace=0)
    app.start_scenario = "cancel-ehglp3"
    return app


def _footer_keys(app: AirlineApp) -> list[FooterKey]:
    return list(app.main.query(FooterKey))


async def _scenario_at_rest(pilot, app: AirlineApp) -> None:
    await wait_until(pilot, lambda: app.controller.feed.scenario_name == "cancel-ehglp3", DEADLINE)
    await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog, DEADLINE)
    await wait_until_steady(pilot, lambda: bool(_footer_keys(app)), timeout=DEADLINE)


async def test_a_turn_that_changes_no_key_leaves_the_footer_as_it_was(tmp_path: Path) -> None:
    app = _offline(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _scenario_at_rest(pilot, app)
        before = _footer_keys(app)
        await pilot.press(">")  # the first turn, to its end: it starts and ends
        await wait_until(pilot, lambda: app.controller.feed.conversation.requests == 2, DEADLINE)
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
        await pilot.pause()
        assert _footer_keys(app) == before  # the same widgets: not composed again
        assert all(key.is_attached for key in before)


async def test_a_hold_offers_its_edit_key_in_the_footer(tmp_path: Path) -> None:
    app = _offline(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _scenario_at_rest(pilot, app)
        assert "e" not in {key.key for key in _footer_keys(app)}
        await pilot.press("space")  # the customer's message, held before request #1
        await wait_until(pilot, lambda: isinstance(app.controller.feed.held, RequestHeld), DEADLINE)
        await wait_until(pilot, lambda: "e" in {key.key for key in _footer_keys(app)}, DEADLINE)
