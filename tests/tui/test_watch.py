"""`airline-agent tui --watch FILE`: an MCP server's event log (`mcp --events FILE`) shown as
it grows — the client's calls in the trace with their results and changed rows, a chat
note per session, the status line's session and count; bad lines skipped and counted.

The lines are written by the event log's own writer from the loop's events, while the app
runs; one test runs the real server over stdio with the official `mcp` client."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from airline_agent.agent.events import (
    AgentEvent,
    AssistantMessage,
    CustomerBound,
    ToolCall,
    ToolFinished,
    ToolStarted,
)
from airline_agent.mcp_server.event_log import EventLog, LoggedEvent, read_record
from airline_agent.redaction import Redactor
from airline_agent.tools.outcome import RowChange
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import Controller
from airline_agent.tui.status import Status
from airline_agent.tui.watched_log import WatchedLog
from tests.support.cli import invoke_cli
from tests.tui.helpers import wait_until

DEADLINE = 30.0
CANCELLED = RowChange("reservation", "EHGLP3", {"status": "active"}, {"status": "cancelled"})


def watching(path: Path) -> AirlineApp:
    status = Status()
    return AirlineApp(Controller(status, WatchedLog(status, path)))


def cancel_call(number: int) -> list[AgentEvent]:
    """One MCP call as a session yields it: the call, its start, its result."""
    call_id = f"mcp-{number}"
    arguments = {"reservation_id": "EHGLP3"}
    text = json.dumps(arguments)
    return [
        AssistantMessage(
            number, None, (ToolCall(call_id, "cancel_reservation", text),), None, "tool_calls", 0.0
        ),
        ToolStarted(call_id, "cancel_reservation", arguments, text),
        ToolFinished(
            call_id,
            "cancel_reservation",
            arguments,
            {"status": "cancelled"},
            None,
            3.0,
            (CANCELLED,),
        ),
    ]


def titles(app: AirlineApp) -> list[str]:
    return app.main.trace.titles()


def notices(app: AirlineApp) -> list[str]:
    return [message.text for message in app.main.chat.messages()]


def status_text(app: AirlineApp) -> str:
    return " · ".join(app.main.controller.status.parts())


async def test_calls_show_in_the_trace_as_the_server_writes_them(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    log = EventLog(path, Redactor()).open()
    app = watching(path)
    try:
        async with app.run_test() as pilot:
            log.write({"session": 1, "type": "session_opened"})
            await wait_until(pilot, lambda: "MCP session 1 opened." in notices(app), DEADLINE)
            assert "tool cancel_reservation" not in " ".join(titles(app))

            for event in cancel_call(1):
                log.event(1, event)
            log.event(1, CustomerBound("emma_kim_9957", "mcp-1", "get_user_details"))

            def cancel_shown() -> bool:
                return "framework: tool cancel_reservation" in titles(app)

            await wait_until(pilot, cancel_shown, DEADLINE)
            entry = next(e for e in app.main.trace.entries if e.title == "tool cancel_reservation")
            assert "reservation EHGLP3: status active → cancelled" in entry.body
            assert "model: response #1 · 1 tool call" in titles(app)
            await wait_until(pilot, lambda: "session 1 · 1 call" in status_text(app), DEADLINE)
            assert "customer [b]emma_kim_9957" in status_text(app)
            assert any("acts for emma_kim_9957" in text for text in notices(app))

            for event in cancel_call(2):
                log.event(1, event)
            log.write({"session": 1, "type": "session_closed"})
            await wait_until(
                pilot, lambda: "MCP session 1 closed after 2 calls." in notices(app), DEADLINE
            )
            await wait_until(pilot, lambda: "session 1 · 2 calls" in status_text(app), DEADLINE)
    finally:
        log.close()


async def test_a_file_not_there_yet_is_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "later.jsonl"
    app = watching(path)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: "waiting for" in status_text(app), DEADLINE)
        assert any("not there yet" in text for text in notices(app))
        log = EventLog(path, Redactor()).open()
        try:
            log.write({"session": 3, "type": "session_opened"})
            await wait_until(pilot, lambda: "MCP session 3 opened." in notices(app), DEADLINE)
            assert "waiting for" not in status_text(app)
        finally:
            log.close()


async def test_bad_lines_are_skipped_and_counted_and_a_partial_line_waits(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text("")
    app = watching(path)
    good = json.dumps({"session": 1, "type": "session_opened"})
    async with app.run_test() as pilot:
        with path.open("a", encoding="utf-8") as file:
            file.write("not json\n")
            file.write('{"session": 1, "type": "launch_missiles"}\n')
            file.write('{"session": 1, "type": "tool_finished", "changes": 7}\n')
            file.write('{"session": "x\\u001b[2J", "type": "session_opened"}\n')
            file.write(good[:10])  # half a line: the rest comes later
            file.flush()
            await wait_until(pilot, lambda: "4 lines skipped" in status_text(app), DEADLINE)
            assert not any("opened" in text for text in notices(app))
            file.write(good[10:] + "\n")
            file.flush()
        await wait_until(pilot, lambda: "MCP session 1 opened." in notices(app), DEADLINE)
        assert "4 lines skipped" in status_text(app)


async def test_a_truncated_file_is_read_again_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps({"session": 1, "type": "session_opened"}) + "\n" * 3)
    app = watching(path)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: "MCP session 1 opened." in notices(app), DEADLINE)
        path.write_text(json.dumps({"session": 2, "type": "session_opened"}) + "\n")
        await wait_until(pilot, lambda: "MCP session 2 opened." in notices(app), DEADLINE)


def test_each_logged_event_reads_back_as_itself() -> None:
    async def round_trip() -> None:
        for event in [*cancel_call(4), CustomerBound("emma_kim_9957", "mcp-4", "get_user_details")]:
            from airline_agent.mcp_server.event_log import event_record

            line = json.dumps(event_record(7, event))
            assert read_record(line) == LoggedEvent(7, event)

    asyncio.run(round_trip())


@pytest.mark.parametrize("given", [["--scenario", "cancel-ehglp3"], ["--results", "."]])
def test_watch_with_a_scenario_or_results_is_refused(tmp_path: Path, given: list[str]) -> None:
    result = invoke_cli("tui", "--watch", str(tmp_path / "e.jsonl"), *given)
    assert result.returncode == 2
    assert "give one of them" in result.stderr


def test_watching_a_folder_is_refused(tmp_path: Path) -> None:
    result = invoke_cli("tui", "--watch", str(tmp_path))
    assert result.returncode == 2
    assert "not a regular file" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


async def test_a_real_mcp_session_over_stdio_shows_its_cancel_with_its_changes(
    tmp_path: Path,
) -> None:
    from mcp import Client

    from tests.support.mcp_servers import stdio_target
    from tests.support.world import make_world_db

    db = tmp_path / "world.db"
    make_world_db(db).close()
    path = tmp_path / "events.jsonl"
    # Without the guard: EHGLP3 is basic economy without insurance (rule X3 refuses it).
    server = stdio_target(
        db, "--as", "emma_kim_9957", "--approve", "auto", "--no-guard", "--events", str(path)
    )
    app = watching(path)
    async with app.run_test() as pilot:
        async with Client(server) as client:
            await client.call_tool(
                "cancel_reservation", {"reservation_id": "EHGLP3", "reason": "change_of_plan"}
            )

            def cancel_shown() -> bool:
                return "framework: tool cancel_reservation" in titles(app)

            await wait_until(pilot, cancel_shown, DEADLINE)
        entry = next(e for e in app.main.trace.entries if e.title == "tool cancel_reservation")
        assert entry.meta.startswith("ok ·")
        assert "reservation EHGLP3: status active → cancelled" in entry.body
        await wait_until(pilot, lambda: "session 1 · 1 call" in status_text(app), DEADLINE)
        await wait_until(pilot, lambda: any("closed after 1 call" in t for t in notices(app)), 60)


async def test_control_characters_in_a_line_are_shown_as_escapes(tmp_path: Path) -> None:
    from tests.tui.helpers import screen_lines

    path = tmp_path / "events.jsonl"
    hostile = {
        "session": 1,
        "type": "tool_call",
        "request": 1,
        "call_id": "mcp-1",
        "name": "calculate\u001b]0;pwned\u0007",
        "arguments": "{}",
    }
    path.write_text(json.dumps(hostile) + "\n")
    app = watching(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: "model: response #1 · 1 tool call" in titles(app), DEADLINE)
        shown = "\n".join(screen_lines(app))
        assert "calculate\\u001b]0;pwned\\u0007" in shown
        assert "\u001b" not in shown and "\u0007" not in shown


async def test_an_approval_line_shows_the_question_and_its_answer(tmp_path: Path) -> None:
    from airline_agent.mcp_server.event_log import event_record
    from airline_agent.mcp_server.session import _approval_requested

    path = tmp_path / "events.jsonl"
    call = ToolCall("mcp-1", "cancel_reservation", '{"reservation_id": "EHGLP3"}')
    asked = _approval_requested(1, call, {"reservation_id": "EHGLP3"}, "cancel EHGLP3", False)
    declined = ToolFinished(
        "mcp-1",
        "cancel_reservation",
        {"reservation_id": "EHGLP3"},
        {"error": "PERMISSION_DENIED", "message": "declined"},
        "PERMISSION_DENIED",
        0.0,
    )
    # As the server writes them: the answer shows with what follows it (the result).
    lines = [event_record(1, asked), event_record(1, declined)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    app = watching(path)
    async with app.run_test() as pilot:

        def answered() -> bool:
            return "customer: approval · declined cancel_reservation" in titles(app)

        await wait_until(pilot, answered, DEADLINE)
        assert "framework: approval asked · 1 write call" in titles(app)


async def test_watching_offers_no_key_that_acts_on_a_conversation(tmp_path: Path) -> None:
    app = watching(tmp_path / "events.jsonl")
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: "waiting for" in status_text(app), DEADLINE)
        offered = {command.title for command in app.get_system_commands(app.screen)}
        assert {"Zoom", "Help"} <= offered
        assert not offered & {"Library", "Step", "Guard", "Reset", "New", "Save"}
        await pilot.press("l")  # the library would open offline: nothing here
        await pilot.pause()
        assert app.screen is app.main
