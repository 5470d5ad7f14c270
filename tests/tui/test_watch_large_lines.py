"""`tui --watch FILE` whatever a line of the log holds: one value of megabytes (a tool's
result, a call's arguments, a customer's id) is shown shortened, a line of 50 MB is
skipped and counted, a line still growing without its newline waits, and thousands of
lines at once go on screen while the keys are answered. In each case the app quits on
ctrl+q: the test waits for that (a generous deadline, never a timed assertion).

Issue 30: a 300 kB result kept the app busy for more than a minute (every piece of the
result's one line, as the trace wrapped it, copied the whole line), a 2 MB one for about
an hour."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import Controller
from airline_agent.tui.log_tail import MAX_LINE_BYTES
from airline_agent.tui.screens.details import SHOWN_LINE_CHARS, EntryDetailsScreen
from airline_agent.tui.status import Status
from airline_agent.tui.watched_log import WatchedLog
from airline_agent.tui.widgets.trace_pane import ROW_LINE_CHARS
from tests.tui.helpers import screen_lines, wait_until

DEADLINE = 30.0


def watching(path: Path) -> AirlineApp:
    status = Status()
    return AirlineApp(Controller(status, WatchedLog(status, path)))


def line(**record: object) -> str:
    return json.dumps(record) + "\n"


def calculate(call: int, result: object, **large: object) -> str:
    """A call of `calculate` and its result, as the server logs them."""
    call_id = f"mcp-{call}"
    return line(
        session=1,
        type="tool_call",
        request=call,
        call_id=call_id,
        name="calculate",
        arguments=large.get("arguments", "{}"),
    ) + line(
        session=1,
        type="tool_finished",
        call_id=call_id,
        name="calculate",
        arguments={},
        result=result,
        error=None,
        elapsed_ms=1.0,
        changes=[],
    )


def status_text(app: AirlineApp) -> str:
    return " · ".join(app.main.controller.status.parts())


def shown_status(app: AirlineApp) -> str:
    """The status line as the screen shows it (its first line)."""
    return screen_lines(app)[0]


def notices(app: AirlineApp) -> list[str]:
    return [message.text for message in app.main.chat.messages()]


def row_text(app: AirlineApp, title: str) -> str:
    """What the trace's row of the entry titled `title` holds (its text, unwrapped)."""
    trace = app.main.trace
    index = next(i for i, entry in enumerate(trace.entries) if entry.title == title)
    return str(trace.get_option_at_index(index).prompt)


async def quits_on_ctrl_q(pilot: Pilot, app: AirlineApp) -> None:
    await pilot.press("ctrl+q")
    await wait_until(pilot, lambda: app.return_code is not None, DEADLINE)


@pytest.mark.parametrize("size", [300_000, 2_000_000])
async def test_a_tool_result_of_megabytes_is_shown_shortened_and_ctrl_q_quits(
    tmp_path: Path, size: int
) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text("")
    app = watching(path)
    async with app.run_test(size=(140, 40)) as pilot:
        path.write_text(line(session=1, type="session_opened") + calculate(1, {"text": "x" * size}))

        def result_shown() -> bool:
            return "framework: tool calculate" in app.main.trace.titles()

        await wait_until(pilot, result_shown, DEADLINE)
        row = row_text(app, "tool calculate")
        value_line = len('  "text": "') + size + len('"')  # as the result is shown, indented
        assert f"… {value_line - ROW_LINE_CHARS:,} more characters" in row
        assert len(row) < 2 * ROW_LINE_CHARS
        assert any("more characters" in shown for shown in screen_lines(app))

        # Its details (enter) show the start of the line too, and copy all of it.
        trace = app.main.trace
        trace.focus()
        trace.highlighted = trace.titles().index("framework: tool calculate")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EntryDetailsScreen), DEADLINE)
        details = app.screen
        assert isinstance(details, EntryDetailsScreen)
        assert "x" * size in details.text  # what `c` copies
        shown = details.query_one(TextArea).text
        assert "more characters" in shown and len(shown) < 2 * SHOWN_LINE_CHARS
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main, DEADLINE)
        await quits_on_ctrl_q(pilot, app)


async def test_every_large_value_of_a_line_is_shown_shortened(tmp_path: Path) -> None:
    """The call's arguments, the approval's preview, the customer's id (in the chat's note
    and on the status line), an error code: each 2 MB."""
    large = "y" * 2_000_000
    path = tmp_path / "events.jsonl"
    path.write_text("")
    app = watching(path)
    async with app.run_test(size=(140, 40)) as pilot:
        path.write_text(
            line(session=1, type="session_opened")
            + line(
                session=1,
                type="tool_call",
                request=1,
                call_id="mcp-1",
                name="cancel_reservation",
                arguments=large,
            )
            + line(
                session=1,
                type="approval",
                request=1,
                call_id="mcp-1",
                name="cancel_reservation",
                preview=large,
                approved=False,
            )
            + line(
                session=1,
                type="tool_finished",
                call_id="mcp-1",
                name="cancel_reservation",
                result={"error": "PERMISSION_DENIED"},
                error=large,
            )
            + line(session=1, type="customer_bound", customer=large, call_id="mcp-1", tool="t")
        )
        await wait_until(pilot, lambda: any("acts for" in text for text in notices(app)), DEADLINE)
        await wait_until(
            pilot, lambda: "framework: tool cancel_reservation" in app.main.trace.titles(), DEADLINE
        )
        for index in range(len(app.main.trace.entries)):
            assert len(str(app.main.trace.get_option_at_index(index).prompt)) < 4 * ROW_LINE_CHARS
        assert "more characters" in row_text(app, "response #1 · 1 tool call")
        assert "more characters" in row_text(app, "tool cancel_reservation")
        note = next(text for text in notices(app) if "acts for" in text)
        assert len(note) < 200 and "more characters" in note
        assert len(status_text(app)) < 400
        await quits_on_ctrl_q(pilot, app)


async def test_a_line_of_50_megabytes_is_skipped_and_counted_and_the_next_line_shows(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text("")
    app = watching(path)
    async with app.run_test() as pilot:
        with path.open("a", encoding="utf-8") as file:
            file.write('{"session": 1, "type": "tool_finished", "result": "')
            for _ in range(50):
                file.write("z" * 1_000_000)
            file.write('"}\n')
            file.write(line(session=1, type="session_opened"))
        await wait_until(pilot, lambda: "MCP session 1 opened." in notices(app), DEADLINE)
        assert "1 line skipped" in status_text(app)
        await quits_on_ctrl_q(pilot, app)


async def test_a_line_growing_without_its_newline_is_counted_once_too_long(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(line(session=1, type="session_opened"))
    app = watching(path)
    async with app.run_test(size=(240, 40)) as pilot:  # the status line shown whole
        await wait_until(pilot, lambda: "MCP session 1 opened." in notices(app), DEADLINE)
        with path.open("a", encoding="utf-8") as file:
            file.write('{"session": 1, "type": "tool_finished", "result": "')
            # 1 MB at a time (two of the server's 500 kB writes): six times, a poll or
            # more each, the line passing the limit at the fourth, the help between them.
            for _ in range(MAX_LINE_BYTES // 1_000_000 + 2):
                file.write("w" * 1_000_000)
                file.flush()
                await pilot.press("f1")  # help, and back: the keys are answered meanwhile
                await wait_until(pilot, lambda: app.screen is not app.main, DEADLINE)
                await pilot.press("escape")
                await wait_until(pilot, lambda: app.screen is app.main, DEADLINE)
            # Counted on the status line as it passes the limit, before its newline comes.
            await wait_until(pilot, lambda: "1 line skipped" in shown_status(app), DEADLINE)
            file.write('"}\n' + line(session=2, type="session_opened"))
        await wait_until(pilot, lambda: "MCP session 2 opened." in notices(app), DEADLINE)
        assert "1 line skipped" in status_text(app)
        await quits_on_ctrl_q(pilot, app)


async def test_thousands_of_lines_at_once_leave_the_keys_answered(tmp_path: Path) -> None:
    calls = 3_000
    path = tmp_path / "events.jsonl"
    path.write_text("")
    app = watching(path)
    async with app.run_test() as pilot:
        path.write_text(
            line(session=1, type="session_opened")
            + "".join(calculate(call, {"value": call}) for call in range(1, calls + 1))
        )
        await wait_until(pilot, lambda: len(app.main.trace.entries) > 0, DEADLINE)
        await quits_on_ctrl_q(pilot, app)
