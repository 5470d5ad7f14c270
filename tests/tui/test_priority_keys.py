"""The main screen's keys are answered when the app reads them, not after the focused
widget and its parents have passed them on (a frame of tens of milliseconds between two
of those hops while a scenario plays fast); a key that is a character stays the text's
while the customer types (Textual leaves it out of the bindings then)."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.binding import Binding
from textual.pilot import Pilot
from textual.widgets._footer import FooterKey

from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.main import MAIN_KEYS
from airline_agent.tui.screens.picker import ScenarioPicker
from tests.support.chat_server import ChatServer
from tests.support.sample_db import seeded
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller


def test_every_main_key_but_esc_is_a_priority_binding() -> None:
    bindings = [binding for binding in MAIN_KEYS if isinstance(binding, Binding)]
    assert {binding.key for binding in bindings if not binding.priority} == {"escape"}


async def test_a_key_has_done_its_work_when_the_app_has_read_it() -> None:
    """Before, the app only forwarded `g` to the focused trace; the guard changed later,
    once the key had bubbled back up through the trace's parents."""
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await close_the_library(pilot)
        app.main.trace.focus()
        await pilot.pause()
        guard = app.controller.feed.guard
        await app.on_event(events.Key("g", "g"))  # as the driver hands it to the app
        assert app.controller.feed.guard is not guard


def _live_app(server: ChatServer, db: Path) -> AirlineApp:
    settings = Settings(
        model="test-model",
        base_url=server.url,
        api_key="sk-keys",
        db=str(seeded(db)),  # a named database must exist
        approve="auto",
    )
    return AirlineApp(AgentController(settings), pace=0)


async def _typing(pilot: Pilot, app: AirlineApp) -> None:
    """The live session is ready and the customer is in the chat input."""
    await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
    app.main.chat.input.focus()
    await pilot.pause()


def _footer_offers(app: AirlineApp, key: str) -> bool:
    return any(footer.key == key for footer in app.main.query(FooterKey))


async def test_while_the_customer_types_the_letters_are_text_and_not_offered(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    app = _live_app(chat_server, tmp_path / "k.db")
    async with app.run_test(size=(140, 40)) as pilot:
        await _typing(pilot, app)
        chat_input = app.main.chat.input
        await pilot.press("g", "l", "a", "d", "space", "i", "n", "plus")
        assert chat_input.value == "glad in+"
        assert app.controller.feed.guard is True  # g was a letter, not the guard key
        assert not isinstance(app.screen, ScenarioPicker)  # l did not open the library
        assert not _footer_offers(app, "l") and _footer_offers(app, "f3")
        await pilot.press("escape")  # leaves the input: the letters are keys again
        await wait_until(pilot, lambda: _footer_offers(app, "l"))
        await pilot.press("g")
        assert app.controller.feed.guard is False
        assert chat_input.value == "glad in+"


async def test_the_palette_runs_a_letter_keys_action_while_the_input_has_focus(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    app = _live_app(chat_server, tmp_path / "p.db")
    async with app.run_test(size=(140, 40)) as pilot:
        await _typing(pilot, app)
        guard = next(c for c in app.get_system_commands(app.main) if c.title == "Guard")
        guard.callback()
        await wait_until(pilot, lambda: app.controller.feed.guard is False)
