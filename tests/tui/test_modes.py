"""Live or a scenario: what the user types stays text (defect 4 of issue 9), and going
from the live chat to a scripted scenario is always the user's explicit choice, said in
the status line; the live chat comes back from the library."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.picker import LIVE_CHAT, ScenarioPicker
from airline_agent.tui.widgets.chat_pane import ChatPane
from tests.support.chat_server import ChatServer
from tests.support.sample_db import seeded
from tests.tui.helpers import chat_notes, library_shown, wait_until

SIZE = (140, 40)


def _live(server: ChatServer, db: Path) -> AgentController:
    settings = Settings(model="test-model", base_url=server.url, db=str(db), approve="auto")
    return AgentController(settings)


def _status(app: AirlineApp) -> str:
    return Text.from_markup(str(app.main.query_one("#status").render())).plain


async def test_after_a_corrupt_database_typing_stays_text_and_the_app_stays_live(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    corrupt = tmp_path / "airline.db"
    corrupt.write_bytes(b"this is not a database\n" * 100)
    app = AirlineApp(_live(chat_server, corrupt), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        chat = app.main.query_one(ChatPane)
        await wait_until(
            pilot, lambda: any(m.speaker == "error" for m in chat.messages()), timeout=30
        )
        assert "Could not open the session" in chat.messages()[-1].text
        assert app.focused is chat.input
        await pilot.press(*"hello", "enter")
        await wait_until(pilot, lambda: bool(app._notifications))
        assert not isinstance(app.screen, ScenarioPicker)  # `l` was a letter, not a key
        assert app.controller.mode == "live"
        assert app.controller.feed.scenario_name is None
        assert chat.input.history == ["hello"]
        [note] = list(app._notifications)
        assert note.message.startswith("No live session: ")
        assert str(corrupt) in note.message
    assert chat_server.requests == []


async def test_the_library_from_the_live_chat_stays_live_unless_a_scenario_is_chosen(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    app = AirlineApp(_live(chat_server, seeded(tmp_path / "airline.db")), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        app.main.trace.focus()  # the letter keys go to the screen
        await pilot.press("l")
        await wait_until(pilot, lambda: library_shown(app))
        options = app.screen.query_one("OptionList")
        assert options.highlighted_option.id == LIVE_CHAT  # enter stays live
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, ScenarioPicker))
        assert app.controller.mode == "live"
        assert _status(app).startswith("model: test-model @ 127.0.0.1")
        # Only a deliberate choice plays a scenario, and the status line says so.
        await pilot.press("l")
        await wait_until(pilot, lambda: library_shown(app))
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: app.controller.feed.scenario_name == "cancel-ehglp3", 60)
        assert app.controller.mode == "offline"
        status = _status(app)
        assert status.startswith("scenario: cancel-ehglp3 · offline, the live chat waits (l)")
        await wait_until(pilot, lambda: bool(chat_notes(app)))
        assert any("The live chat waits" in text for text in chat_notes(app))
        # Back from the library: the live chat and its settings.
        await pilot.press("l")
        await wait_until(pilot, lambda: library_shown(app))
        assert app.screen.query_one("OptionList").highlighted_option.id == LIVE_CHAT
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.controller.mode == "live")
        assert _status(app).startswith("model: test-model @ 127.0.0.1")
        assert app.focused is app.main.query_one(ChatPane).input
