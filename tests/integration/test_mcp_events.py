"""`airline-agent mcp --events FILE` while a write waits for its approval, through the
official `mcp` client over stdio, in both protocol eras (the handshake's `elicitation/create`
while the call waits; 2026-07-28's question returned and answered by a second call):
the call is logged when it is asked for, then its approval, then its result; a call whose
client left mid-question is logged too, and ended without being run. `tui --watch`
shows the call while the question is open."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import Controller
from airline_agent.tui.status import Status
from airline_agent.tui.watched_log import WatchedLog
from tests.support.mcp_servers import DEADLINE, stdio_target
from tests.support.world import make_world_db
from tests.tui.helpers import wait_until

EMMA = "emma_kim_9957"
BAGS = {
    "reservation_id": "EHGLP3",
    "total_baggages": 1,
    "nonfree_baggages": 0,
    "payment_id": "credit_card_5832574",
}
MODES = ["legacy", "auto"]  # the handshake era (2025-11-25); 2026-07-28


@pytest.fixture(scope="module")
def world_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mcp-events") / "world.db"
    make_world_db(path).close()
    return path


@pytest.fixture
def world(world_template: Path, tmp_path: Path) -> Path:
    db = tmp_path / "world.db"
    shutil.copy(world_template, db)
    return db


def logged(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def of_the_write(lines: list[dict[str, Any]]) -> list[str]:
    """The types of the lines about the baggage write, in order."""
    call_ids = {
        line["call_id"]
        for line in lines
        if line.get("type") == "tool_call" and line.get("name") == "update_reservation_baggages"
    }
    return [line["type"] for line in lines if line.get("call_id") in call_ids]


def accept() -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"confirm": True})


@pytest.mark.parametrize("mode", MODES)
async def test_a_writes_call_is_logged_when_asked_then_its_approval_then_its_result(
    world: Path, tmp_path: Path, mode: str
) -> None:
    events = tmp_path / "events.jsonl"
    seen_while_asked: list[list[str]] = []

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        seen_while_asked.append(of_the_write(logged(events)))
        return accept()

    server = stdio_target(world, "--as", EMMA, "--events", str(events))
    async with Client(server, mode=mode, elicitation_callback=answer) as client:
        changed = await client.call_tool("update_reservation_baggages", BAGS)
    assert not changed.is_error
    assert seen_while_asked == [["tool_call"]]
    assert of_the_write(logged(events)) == [
        "tool_call",
        "approval",
        "tool_started",
        "tool_finished",
    ]
    approval = next(line for line in logged(events) if line["type"] == "approval")
    assert approval["approved"] is True


@pytest.mark.parametrize("mode", MODES)
async def test_a_call_whose_client_left_mid_question_is_logged_and_not_run(
    world: Path, tmp_path: Path, mode: str
) -> None:
    events = tmp_path / "events.jsonl"
    asked = anyio.Event()

    async def never_answer(context: Any, params: Any) -> types.ElicitResult:
        asked.set()
        await anyio.sleep_forever()
        raise AssertionError("not reached")

    server = stdio_target(world, "--as", EMMA, "--events", str(events))
    async with anyio.create_task_group() as group:

        async def use() -> None:
            async with Client(server, mode=mode, elicitation_callback=never_answer) as client:
                await client.call_tool("update_reservation_baggages", BAGS)

        group.start_soon(use)
        with anyio.fail_after(DEADLINE):
            await asked.wait()
        group.cancel_scope.cancel()  # the client goes away, its question open

    with anyio.fail_after(DEADLINE):
        while not any(line["type"] == "session_closed" for line in logged(events)):
            await anyio.sleep(0.05)
    lines = logged(events)
    # Ended without running: unanswered at 2026-07-28 (the session ended), or answered
    # "no" by the handshake's failed question (the client's connection went away).
    assert of_the_write(lines) in (
        ["tool_call", "tool_finished"],
        ["tool_call", "approval", "tool_finished"],
    )
    ended = next(line for line in lines if line["type"] == "tool_finished")
    assert ended["error"] in ("INTERNAL_ERROR", "PERMISSION_DENIED")
    assert not any(line.get("approved") for line in lines)


async def test_tui_watch_shows_a_write_while_its_question_is_open(
    world: Path, tmp_path: Path
) -> None:
    events = tmp_path / "events.jsonl"
    status = Status()
    app = AirlineApp(Controller(status, WatchedLog(status, events)))
    shown_while_asked: list[bool] = []
    async with app.run_test() as pilot:

        async def answer(context: Any, params: Any) -> types.ElicitResult:
            # The watcher shows the call before anyone answers.
            await wait_until(
                pilot,
                lambda: "model: response #1 · 1 tool call" in app.main.trace.titles(),
                DEADLINE,
            )
            shown_while_asked.append("customer: approval" not in " ".join(app.main.trace.titles()))
            return accept()

        server = stdio_target(world, "--as", EMMA, "--events", str(events))
        async with Client(server, mode="legacy", elicitation_callback=answer) as client:
            await client.call_tool("update_reservation_baggages", BAGS)
        await wait_until(
            pilot,
            lambda: "framework: tool update_reservation_baggages" in app.main.trace.titles(),
            DEADLINE,
        )
    assert shown_while_asked == [True]
