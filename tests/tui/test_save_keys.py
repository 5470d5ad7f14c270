"""Saving with nothing to save says so at once, without asking where to save."""

from __future__ import annotations

import pytest

from airline_agent.tui.app import AirlineApp
from airline_agent.tui.screens.main import MainScreen
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller


@pytest.mark.parametrize("key", ["s", "t"])
async def test_saving_an_empty_conversation_warns_without_a_prompt(key: str) -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await close_the_library(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: bool(app._notifications))
        assert isinstance(app.screen, MainScreen)  # no file prompt opened
        [note] = list(app._notifications)
        assert note.message == "Nothing to save yet." and note.severity == "warning"
