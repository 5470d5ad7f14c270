"""`r` (defect 1 of issue 9). Live, it puts the user's database back to exactly what it
was built as — here the sample of seed 7, not the default seed — after a confirmation
that says how many records would be lost; no is no. A database that cannot be rebuilt
goes back to the copy taken when the app opened it. Offline, `r` plays the scenario
again on a fresh copy, and says that no user data is involved."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from airline_agent.config import Settings
from airline_agent.scenarios.dbdiff import diff_databases
from airline_agent.stack import open_database
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.confirm import ConfirmScreen
from airline_agent.tui.widgets.trace_pane import TracePane
from tests.support.chat_server import ChatServer
from tests.tui.helpers import wait_until

SIZE = (140, 40)
BUILD = 120  # seconds: building the sample on a busy machine


@pytest.fixture(scope="module")
def seed_7(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample of seed 7, built once (copied per test)."""
    path = tmp_path_factory.mktemp("seed7") / "built.db"
    open_database(path, rebuild=True, seed=7).close()
    return path


def _copy(source: Path, target: Path) -> Path:
    with sqlite3.connect(source) as origin, sqlite3.connect(target) as copy:
        origin.backup(copy)
    return target


def _status_of(database: Path, reservation: str) -> str | None:
    with sqlite3.connect(database) as conn:
        return conn.execute(
            "SELECT status FROM reservation WHERE reservation_id = ?", (reservation,)
        ).fetchone()[0]


def _cancel(database: Path, reservation: str) -> None:
    """Changed outside this conversation, as an approved cancellation leaves it."""
    with sqlite3.connect(database) as conn:
        conn.execute(
            "UPDATE reservation SET status = 'cancelled' WHERE reservation_id = ?", (reservation,)
        )


def _app(server: ChatServer, database: Path) -> AirlineApp:
    settings = Settings(model="test-model", base_url=server.url, db=str(database), approve="auto")
    return AirlineApp(AgentController(settings), pace=0)


async def _press_r(pilot, app: AirlineApp) -> ConfirmScreen:
    app.main.trace.focus()  # the letter keys go to the screen
    await pilot.press("r")
    await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=BUILD)
    assert isinstance(app.screen, ConfirmScreen)
    return app.screen


def _notified(app: AirlineApp, text: str) -> bool:
    return any(text in note.message for note in app._notifications)


async def test_reset_asks_first_then_rebuilds_the_seed_the_database_was_built_with(
    chat_server: ChatServer, tmp_path: Path, seed_7: Path
) -> None:
    database = _copy(seed_7, tmp_path / "airline.db")
    _cancel(database, "EHGLP3")
    app = _app(chat_server, database)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        status = str(app.main.query_one("#status").render())
        assert f"db {database} (sample seed 7)" in status  # where the database came from
        confirm = await _press_r(pilot, app)
        assert confirm.question == (
            f"Reset {database} to the sample (seed 7) it was built as? "
            "1 record differs and would be lost."
        )
        assert "reservations EHGLP3: status would change back" in confirm.details
        await pilot.press("n")  # no is no: nothing changes
        await wait_until(pilot, lambda: _notified(app, "Nothing was reset."))
        assert _status_of(database, "EHGLP3") == "cancelled"
        await _press_r(pilot, app)
        await pilot.press("y")
        await wait_until(pilot, lambda: _notified(app, "again (1 records restored)"), BUILD)
        assert app.controller.feed.ready and app.controller.mode == "live"
    assert _status_of(database, "EHGLP3") is None  # as seed 7 built it
    assert diff_databases(seed_7, database) == []  # exactly: not the default sample


async def test_a_database_that_cannot_be_rebuilt_goes_back_to_the_copy_taken_at_opening(
    chat_server: ChatServer, tmp_path: Path, seed_7: Path
) -> None:
    database = _copy(seed_7, tmp_path / "airline.db")
    with sqlite3.connect(database) as conn:  # a database that does not say how it was built
        conn.execute("UPDATE meta SET value = 'elsewhere' WHERE key = 'source'")
        conn.execute("DELETE FROM meta WHERE key = 'provenance'")
    opened = _copy(database, tmp_path / "as-opened.db")
    app = _app(chat_server, database)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        _cancel(database, "EHGLP3")  # after the app opened it
        confirm = await _press_r(pilot, app)
        assert confirm.question == (
            f"Reset {database} to the copy taken when the app opened it? "
            "1 record differs and would be lost."
        )
        assert "does not record how it was built" in confirm.details
        await pilot.press("y")
        await wait_until(pilot, lambda: _notified(app, "records restored"), BUILD)
    assert diff_databases(opened, database) == []


async def test_a_database_as_built_has_nothing_to_reset(
    chat_server: ChatServer, tmp_path: Path, seed_7: Path
) -> None:
    database = _copy(seed_7, tmp_path / "airline.db")
    app = _app(chat_server, database)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        app.main.trace.focus()
        await pilot.press("r")
        await wait_until(pilot, lambda: _notified(app, "nothing to reset"), BUILD)
        assert not isinstance(app.screen, ConfirmScreen)


async def test_offline_reset_plays_the_scenario_again_on_a_fresh_copy(tmp_path: Path) -> None:
    app = AirlineApp(AgentController(Settings(db=str(tmp_path / "unused.db"))), pace=0)
    app.start_scenario = "cancel-ehglp3"
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.scenario_name == "cancel-ehglp3", 60)
        await wait_until(pilot, lambda: not app.main.turn_running)
        await pilot.press(">")
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: app.controller.feed.steps_left == 1 and trace.entries, 60)
        await wait_until(pilot, lambda: not app.main.turn_running)
        # The playback's copy changed (as an approved write would change it): a fresh copy
        # must not have it (issue 19 item 28: this test changed nothing before "fresh").
        played_on = app.controller.feed.database_file()
        _cancel(played_on, "EHGLP3")
        assert _status_of(played_on, "EHGLP3") == "cancelled"
        await pilot.press("r")
        await wait_until(pilot, lambda: _notified(app, "starts again on a fresh copy"), 60)
        assert not isinstance(app.screen, ConfirmScreen)  # no user data at stake
        assert _notified(app, "your own database is not involved")
        await wait_until(pilot, lambda: not trace.entries)
        assert app.controller.feed.steps_left == 2  # from its first turn
        assert _status_of(app.controller.feed.database_file(), "EHGLP3") is None  # as built
    assert not (tmp_path / "unused.db").exists()
