"""The usage pane shows the conversation's totals and cost as the conversation counts
them, and a new conversation's (fresh) ones as soon as it starts: after `n`, a scenario
chosen, or `r` (issue 19 item 24: a pane that kept its own running total carried it over
when its reset forgot one field)."""

from __future__ import annotations

from airline_agent.tui.app import AirlineApp
from airline_agent.tui.widgets.usage_pane import UsagePane
from tests.tui.helpers import close_the_library, library_shown, wait_until
from tests.tui.scripted_events import two_turn_controller

SIZE = (140, 40)
AFTER_TURN_ONE = "total    4,260  2,816   120    12    2 req"
FRESH = "total        0      0     0     0    0 req"


def _totals(app: AirlineApp) -> tuple[str, str]:
    """The totals line and the cost line, as the screen shows them."""
    usage = app.main.query_one(UsagePane)
    totals = str(usage.query_one("#usage-totals").render())
    return totals.rstrip(), str(usage.query_one("#usage-cost").render())


async def _first_turn(pilot, app: AirlineApp) -> None:
    await pilot.press("space")
    await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
    await wait_until(pilot, lambda: _totals(app)[0] == AFTER_TURN_ONE)
    assert _totals(app)[1] == "cost unknown: no price for scripted in data/prices.toml"


async def test_a_new_live_conversation_shows_fresh_totals() -> None:
    app = AirlineApp(two_turn_controller(mode="live"), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready)
        app.main.chat.input.value = "Please cancel my reservation EHGLP3."
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
        await wait_until(pilot, lambda: _totals(app)[0] == AFTER_TURN_ONE)
        app.main.trace.focus()
        await pilot.press("n")
        await wait_until(pilot, lambda: _totals(app) == (FRESH, "cost —"))
        assert app.main.query_one(UsagePane).table.row_count == 0


async def test_another_scenario_and_a_restart_show_fresh_totals() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await close_the_library(pilot)
        await _first_turn(pilot, app)
        await pilot.press("l")
        await wait_until(pilot, lambda: library_shown(app))
        await pilot.press("down", "enter")  # book-with-bags
        await wait_until(pilot, lambda: app.controller.feed.scenario_name == "book-with-bags")
        await wait_until(pilot, lambda: _totals(app) == (FRESH, "cost —"))
        await _first_turn(pilot, app)
        await pilot.press("r")
        await wait_until(pilot, lambda: app.controller.resets == 1)
        await wait_until(pilot, lambda: _totals(app) == (FRESH, "cost —"))
