"""`u` picks the customer from the database's customers, with search; an id that is no
customer's is refused with a message. Offline, `u` and `n` never leave a blank screen that
`space` would then call the end of the scenario."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from textual.app import App
from textual.widgets import Input, OptionList, Static

from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.customer_picker import CustomerPicker
from airline_agent.tui.screens.main import MainScreen
from airline_agent.tui.widgets.chat_pane import ChatPane
from tests.support.chat_server import ChatServer
from tests.support.sample_db import seeded
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller

CUSTOMERS = [
    ("emma_kim_9957", "Emma Kim"),
    ("noah_garcia_7579", "Noah Garcia"),
    ("mei_lopez_2238", "Mei Lopez"),
]


class PickerHost(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.chosen: list[str | None] = []

    def on_mount(self) -> None:
        self.push_screen(CustomerPicker(CUSTOMERS, None), self.chosen.append)


async def test_the_picker_searches_ids_and_names_and_refuses_an_unknown_id() -> None:
    app = PickerHost()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CustomerPicker))
        matches = app.screen.query_one(OptionList)
        assert matches.option_count == 3
        await pilot.press(*"garcia")
        await wait_until(pilot, lambda: matches.option_count == 1)
        assert matches.get_option_at_index(0).id == "noah_garcia_7579"
        app.screen.query_one(Input).value = "nobody_1"
        await wait_until(pilot, lambda: matches.option_count == 0)
        await pilot.press("enter")
        problem = app.screen.query_one("#customer-problem", Static)
        await wait_until(pilot, lambda: "No customer 'nobody_1'" in str(problem.render()))
        assert isinstance(app.screen, CustomerPicker) and app.chosen == []  # still open
        app.screen.query_one(Input).value = "Emma"
        await pilot.press("enter")  # the highlighted match
        await wait_until(pilot, lambda: app.chosen == ["emma_kim_9957"])


async def test_live_u_lists_the_databases_customers(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    settings = Settings(
        model="test-model",
        base_url=chat_server.url,
        api_key="sk-x",
        db=str(seeded(tmp_path / "c.db")),
    )
    app = AirlineApp(AgentController(settings), pace=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        app.main.trace.focus()
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, CustomerPicker))
        picker = app.screen
        assert isinstance(picker, CustomerPicker)
        assert len(picker.customers) == 500  # the sample's customers, each with a name
        assert ("emma_kim_9957", "Emma Kim") in picker.customers
        picker.query_one(Input).value = "nobody_1"
        await pilot.press("enter")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.controller.feed.customer is None  # the unknown id was never taken


async def test_live_u_on_a_database_that_broke_says_so_and_keeps_the_session(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    """Before, the read's exception ended the worker, and the app, with a traceback."""
    settings = Settings(
        model="test-model",
        base_url=chat_server.url,
        api_key="sk-x",
        db=str(seeded(tmp_path / "d.db")),
    )
    controller = AgentController(settings)
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)

        def broken() -> list[tuple[str, str]]:
            raise sqlite3.DatabaseError("file is not a database")

        controller.customers = broken  # type: ignore[method-assign]
        app.main.trace.focus()
        await pilot.press("u")
        await wait_until(
            pilot,
            lambda: any("file is not a database" in n.message for n in app._notifications),
        )
        assert isinstance(app.screen, MainScreen) and app.is_running
        assert app.controller.feed.customer is None


async def test_offline_u_says_the_scenario_fixes_its_customer() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await close_the_library(pilot)
        await pilot.press("space")
        await wait_until(pilot, lambda: app.controller.position == 1 and not app.main.turn_running)
        chat = app.main.query_one(ChatPane)
        await wait_until(pilot, lambda: len(chat.messages()) == 2)
        app.clear_notifications()
        await pilot.press("u")
        await wait_until(pilot, lambda: bool(app._notifications))
        [note] = list(app._notifications)
        assert "is written for emma_kim_9957" in note.message
        assert isinstance(app.screen, MainScreen) and len(chat.messages()) == 2  # nothing gone
        assert app.controller.feed.customer == "emma_kim_9957"


async def test_offline_n_starts_the_scenario_again_and_space_plays_its_first_turn() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await close_the_library(pilot)
        controller = app.controller
        first = controller.turns[0][0]
        await pilot.press("space")
        await wait_until(pilot, lambda: controller.position == 1 and not app.main.turn_running)
        await pilot.press("n")
        await wait_until(pilot, lambda: controller.resets == 1)
        chat = app.main.query_one(ChatPane)
        await wait_until(pilot, lambda: chat.messages() == [])
        await pilot.press("space")  # not "End of the scenario": its first turn again
        await wait_until(pilot, lambda: controller.received == [first, first])
