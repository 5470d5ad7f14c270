"""Moving by keyboard (issue 19 item 20): `tab` goes from pane to pane — the chat is one
stop, not one per message — and the inspector's tabs each have a key."""

from __future__ import annotations

from textual.widgets import Collapsible, TabbedContent

from airline_agent.tui.app import AirlineApp
from airline_agent.tui.screens.inspector import InspectorScreen
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller

SIZE = (140, 40)


async def _after_one_turn(pilot, app: AirlineApp) -> None:
    await close_the_library(pilot)
    await pilot.press("space")
    await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
    await wait_until(pilot, lambda: len(app.main.chat.messages()) == 2)


async def test_tab_goes_from_the_chat_to_the_trace_in_one_press() -> None:
    # It walked through every reasoning block of every message first (5 presses).
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _after_one_turn(pilot, app)
        chat = app.main.chat
        assert chat.query(Collapsible)  # the reply has its reasoning block
        chat.message_list.focus()
        await pilot.press("tab")
        assert app.focused is app.main.trace
        inside = [w for w in app.screen.focus_chain if chat.message_list in w.ancestors]
        assert inside == []


async def test_enter_in_the_chat_shows_and_hides_the_reasoning() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _after_one_turn(pilot, app)
        blocks = list(app.main.chat.query(Collapsible))
        assert blocks and all(block.collapsed for block in blocks)
        app.main.chat.message_list.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: not any(block.collapsed for block in blocks))
        await pilot.press("enter")
        await wait_until(pilot, lambda: all(block.collapsed for block in blocks))


async def test_the_inspectors_tabs_each_have_a_key() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _after_one_turn(pilot, app)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        tabs = app.screen.query_one(TabbedContent)
        for key, tab in [("2", "response-tab"), ("3", "anatomy-tab"), ("1", "request-tab")]:
            await pilot.press(key)
            await wait_until(pilot, lambda tab=tab: tabs.active == tab)
