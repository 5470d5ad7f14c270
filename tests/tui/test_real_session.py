"""The TUI over the real stack: a scenario through the real loop, tools and database; saving
it as a scenario and replaying it; a live turn against a loopback Chat Completions server."""

from __future__ import annotations

from pathlib import Path

import pytest

from airline_agent.agent.events import TurnFinished
from airline_agent.config import Settings
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.runner import replay_scenario_async
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.approval import ApprovalScreen
from airline_agent.tui.screens.picker import ScenarioPicker
from airline_agent.tui.screens.prompt import PromptScreen
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.trace_pane import TracePane
from tests.support.chat_server import ChatServer
from tests.support.sample_db import seeded
from tests.tui.helpers import library_shown, wait_until

SIZE = (140, 40)
SCENARIO = """\
name: refuse-ehglp3
description: Emma Kim asks to cancel EHGLP3; basic economy, old, uninsured, so no.
customer: emma_kim_9957
turns:
  - customer: Please cancel my reservation EHGLP3.
    responses:
      - reasoning: Look the reservation up before anything else.
        tool_calls:
          - name: get_reservation_details
            arguments: {reservation_id: EHGLP3}
        usage: {prompt_tokens: 1800, completion_tokens: 20}
      - content: >-
          I can't cancel **EHGLP3**: it is basic economy,
          booked more than 24 hours ago, without insurance.
        usage: {prompt_tokens: 2400, completion_tokens: 40}
    expect:
      tools: [get_reservation_details]
  - customer: Thanks, I'll keep it then.
    responses:
      - content: You're welcome. Have a good flight!
"""


@pytest.fixture
def library(tmp_path: Path) -> Path:
    folder = tmp_path / "library"
    folder.mkdir()
    (folder / "refuse-ehglp3.yaml").write_text(SCENARIO)
    return folder


async def _play_all(pilot, app: AirlineApp) -> None:
    await wait_until(pilot, lambda: library_shown(app))
    await pilot.press("enter")
    await wait_until(
        pilot, lambda: app.controller.feed.scenario_name == "refuse-ehglp3", timeout=60
    )
    await wait_until(pilot, lambda: not app.main.turn_running, timeout=60)
    for turn in (1, 2):
        await pilot.press(">")
        await wait_until(pilot, lambda turn=turn: _finished_turns(app) == turn, timeout=30)
        await wait_until(pilot, lambda: not app.main.turn_running)


def _finished_turns(app: AirlineApp) -> int:
    return sum(isinstance(event, TurnFinished) for event in app.controller.feed.events)


async def test_a_scenario_plays_through_the_real_loop_and_tools(library: Path) -> None:
    app = AirlineApp(AgentController(Settings(), library=library), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _play_all(pilot, app)
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: "customer: turn 2 · customer message" in trace.titles())
        tool = next(e for e in trace.entries if e.title == "tool get_reservation_details")
        assert not tool.error and tool.details["result"]["cabin"] == "basic_economy"
        assert tool.details["result"]["user_id"] == "emma_kim_9957"
        chat = app.main.query_one(ChatPane)
        await wait_until(pilot, lambda: len(chat.messages()) == 4)
        assert chat.messages()[-1].text == "You're welcome. Have a good flight!"


async def test_save_as_scenario_then_replay_it(library: Path, tmp_path: Path) -> None:
    app = AirlineApp(AgentController(Settings(), library=library), pace=0)
    saved = tmp_path / "saved" / "kept-ehglp3.yaml"
    async with app.run_test(size=SIZE) as pilot:
        await _play_all(pilot, app)
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one("Input").value = str(saved)
        await pilot.press("enter")
        # A save diffs against the dataset: seconds under load.
        await wait_until(pilot, saved.exists, timeout=60)
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one("Input").value = str(tmp_path / "transcripts")
        await pilot.press("enter")
        await wait_until(pilot, lambda: (tmp_path / "transcripts").exists())
    scenario = load_scenario(saved)
    assert [turn.customer for turn in scenario.turns] == [
        "Please cancel my reservation EHGLP3.",
        "Thanks, I'll keep it then.",
    ]
    report = await replay_scenario_async(scenario, path=saved)
    assert report.ok, report.why
    names = sorted(path.suffix for path in (tmp_path / "transcripts").iterdir())
    assert names == [".jsonl", ".md"]


@pytest.fixture
def chat_server():
    server = ChatServer()
    yield server
    server.close()


def _live_settings(server: ChatServer, tmp_path: Path) -> Settings:
    return Settings(
        model="test-model",
        base_url=server.url,
        api_key="sk-tui-test-key-123",
        db=str(seeded(tmp_path / "airline.db")),
        approve="ask",
    )


async def test_a_live_turn_streams_into_the_chat(chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.stream(content="Hello Emma! How can I help with your trip today?", usage=(900, 14))
    app = AirlineApp(AgentController(_live_settings(chat_server, tmp_path)), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        assert not isinstance(app.screen, ScenarioPicker)  # live: straight to the chat
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        assert (tmp_path / "airline.db").exists()
        chat = app.main.query_one(ChatPane)
        chat.input.value = "Hi, I am Emma."
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(chat.messages()) == 2 and not app.main.turn_running)
        reply = chat.messages()[-1]
        assert reply.speaker == "agent"
        assert reply.text == "Hello Emma! How can I help with your trip today?"
        assert chat_server.requests[0]["stream"] is True
        assert chat_server.requests[0]["messages"][-1] == {
            "role": "user",
            "content": "Hi, I am Emma.",
        }


@pytest.mark.parametrize("accept", [True, False])
async def test_live_write_asks_for_approval(
    chat_server: ChatServer, tmp_path: Path, accept: bool
) -> None:
    chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
    chat_server.stream(content="Done." if accept else "Understood, I left it as it is.")
    settings = _live_settings(chat_server, tmp_path).model_copy(update={"guard": False})
    controller = AgentController(settings)
    controller.feed.act_for("emma_kim_9957")
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        chat = app.main.query_one(ChatPane)
        chat.input.value = "Cancel EHGLP3 please."
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), timeout=20)
        assert [call.name for call in app.screen.calls] == ["cancel_reservation"]
        await pilot.press("y" if accept else "n")
        await wait_until(pilot, lambda: len(chat_server.requests) == 2, timeout=20)
        await wait_until(pilot, lambda: not app.main.turn_running)
        tool_message = chat_server.requests[1]["messages"][-1]
        assert tool_message["role"] == "tool"
        trace = app.main.query_one(TracePane)
        # The panes draw the turn's last events a frame after it ends (the key's frame first).
        await wait_until(
            pilot, lambda: any(e.title == "tool cancel_reservation" for e in trace.entries)
        )
        tool = next(e for e in trace.entries if e.title == "tool cancel_reservation")
        if accept:
            assert not tool.error and tool.details["changes"]
        else:
            assert tool.error and not tool.details["changes"]
