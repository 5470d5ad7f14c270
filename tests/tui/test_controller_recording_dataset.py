"""Saving a live TUI conversation (`s`): the database is copied when the conversation
begins, so the saved scenario says what the conversation changed and which dataset it
replays on; a conversation that began on a changed sample is saved with a warning
notification and a description that says so."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from airline_agent.config import Settings
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.runner import replay_scenario_async
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.prompt import PromptScreen
from airline_agent.tui.turns import run_turn
from airline_agent.tui.widgets.chat_pane import ChatPane
from tests.support.chat_server import ChatServer
from tests.support.sample_db import seeded
from tests.tui.helpers import wait_until

SIZE = (140, 40)
CUSTOMER = "harper_smith_5967"
CANCEL = ("cancel_reservation", {"reservation_id": "GWL0HE", "reason": "change_of_plan"})
LOOKUP = ("get_reservation_details", {"reservation_id": "GWL0HE"})


def _controller(server: ChatServer, tmp_path: Path) -> AgentController:
    settings = Settings(
        model="test-model",
        base_url=server.url,
        api_key="sk-tui-test-key-123",
        db=str(seeded(tmp_path / "airline.db")),
        approve="auto",
    )
    controller = AgentController(settings)
    controller.feed.act_for(CUSTOMER)
    return controller


async def _prepared(server: ChatServer, tmp_path: Path) -> tuple[AgentController, list[str]]:
    """A live controller with its database (seeded first) open; its warnings."""
    controller = _controller(server, tmp_path)
    warnings: list[str] = []
    controller.warn = warnings.append
    await controller.prepare()
    return controller, warnings


async def _turn(controller: AgentController, server: ChatServer, call, text: str) -> None:
    server.stream(tool_calls=[call])
    server.stream("Done.", usage=(900, 2))
    async for _ in run_turn(controller.feed, text):
        pass


async def test_a_conversation_on_the_pristine_sample_is_saved_as_sample_with_its_changes(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    controller, warnings = await _prepared(chat_server, tmp_path)  # seeds the sample on first start
    try:
        await _turn(controller, chat_server, CANCEL, "Cancel GWL0HE, my plans changed.")
        saved = controller.save_scenario(tmp_path / "pristine.yaml")
    finally:
        controller.close()

    assert warnings == []
    body = yaml.safe_load(saved.read_text())
    assert body["dataset"] == "sample"
    assert body["description"].startswith("Recorded in the TUI (model: test-model")
    assert "differed" not in body["description"]
    # Live, the copy taken at the start says what the conversation changed.
    assert body["database"]["reservations"]["GWL0HE"]["status"] == "cancelled"
    report = await replay_scenario_async(load_scenario(saved), path=saved)
    assert report.ok, report.why


async def test_a_conversation_begun_on_a_changed_sample_is_saved_with_a_warning(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    from airline_agent.scenarios import datasets
    from airline_agent.scenarios.dbdiff import diff_databases

    controller, warnings = await _prepared(chat_server, tmp_path)
    try:
        await _turn(controller, chat_server, CANCEL, "Cancel GWL0HE, my plans changed.")
        differing = len(diff_databases(datasets.pristine("sample"), tmp_path / "airline.db"))
        controller.feed.new_conversation()  # the next conversation begins on the changed sample
        await _turn(controller, chat_server, LOOKUP, "Is GWL0HE cancelled?")
        saved = controller.save_scenario(tmp_path / "changed.yaml")
    finally:
        controller.close()

    assert differing >= 1
    [warning] = warnings
    records = "record differs" if differing == 1 else "records differ"
    assert warning == (
        f"changed.yaml: the database differed from the sample when the recording started "
        f"({differing} {records}); the replay runs on the sample and may drift."
    )
    body = yaml.safe_load(saved.read_text())
    assert body["dataset"] == "sample"
    assert [turn["customer"] for turn in body["turns"]] == ["Is GWL0HE cancelled?"]
    assert re.search(r"differed from the sample when the recording started", body["description"])
    assert body["database"] == "unchanged"  # the lookup changed nothing


async def test_the_app_shows_the_warning_as_a_notification(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    import sqlite3

    controller = _controller(chat_server, tmp_path)
    chat_server.stream(tool_calls=[LOOKUP])
    chat_server.stream("It is cancelled.", usage=(900, 3))
    saved = tmp_path / "drifting.yaml"
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        # Changed outside this conversation (another session) before it begins.
        with sqlite3.connect(tmp_path / "airline.db") as conn:
            conn.execute(
                "UPDATE reservation SET status = 'cancelled' WHERE reservation_id = 'GWL0HE'"
            )
        chat = app.main.query_one(ChatPane)
        chat.input.focus()
        chat.input.value = "Is GWL0HE cancelled?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(chat_server.requests) >= 2, 30)
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
        app.main.trace.focus()  # keys go to the screen, not the input
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one("Input").value = str(saved)
        await pilot.press("enter")
        # A save diffs against the dataset: seconds under load.
        await wait_until(pilot, saved.exists, timeout=60)
        await wait_until(pilot, lambda: any(n.severity == "warning" for n in app._notifications))
        [note] = [n for n in app._notifications if n.severity == "warning"]
    assert note.message == (
        "drifting.yaml: the database differed from the sample when the recording started "
        "(1 record differs); the replay runs on the sample and may drift."
    )
