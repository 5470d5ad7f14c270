"""What a model, a tool or a scenario file writes never reaches the terminal as control
codes in the TUI (issue 19 item 2: a scenario reply holding `ESC ]0;…BEL` set the
terminal's title and broke the trace row). A scenario whose customer line, reasoning,
tool arguments (and so the tool's result) and reply hold escape sequences plays through
the real loop and tools; every widget shows them as visible escapes (`\\u001b]0;…`), the
trace row stays one row with its title and verdict, and nothing on screen is a control
character."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.app import App

from airline_agent.agent.events import PendingWrite
from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.approval import ApprovalScreen
from airline_agent.tui.screens.details import EntryDetailsScreen
from airline_agent.tui.screens.inspector import InspectorScreen
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.trace_pane import TracePane, render_entry
from tests.tui.helpers import library_shown, wait_until

SIZE = (200, 60)
# YAML's double-quoted escapes: \e is ESC, \a is BEL, \x9b the C1 CSI, \u202e an override.
SCENARIO = r"""
name: hostile-escapes
description: "Escapes everywhere \e]0;library title\a (a hostile file)"
customer: emma_kim_9957
settings:
  approval: auto
turns:
  - customer: "Hello \e]0;customer title\a there"
    responses:
      - reasoning: "Thinking \e]0;reasoning title\a hard"
        tool_calls:
          - name: get_reservation_details
            arguments: {reservation_id: "\e]0;tool title\a\x9b2J\u202eXYZ"}
        usage: {prompt_tokens: 1800, completion_tokens: 20}
      - tool_calls:
          - name: update_reservation_passengers
            arguments:
              reservation_id: EHGLP3
              passengers:
                - {first_name: "\e]0;name title\a", last_name: "Taylor\x9b2J", dob: "1965-01-16"}
                - {first_name: Anya, last_name: "\u202eavliS", dob: "1971-11-22"}
        usage: {prompt_tokens: 2000, completion_tokens: 30}
      - content: "Reply \e]0;pwned\a clip \e]52;c;ZWNobyBvd25lZA==\a clear \e[2J red \x9b31m
          flip \u202etxt.exe\u202c del \x7f end"
        usage: {prompt_tokens: 2400, completion_tokens: 40}
    expect:
      tools: [get_reservation_details, update_reservation_passengers]
"""
# What a terminal would obey: C0 but newline and tab, DEL, C1, bidi embeddings/overrides/isolates.
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def library(tmp_path: Path) -> Path:
    folder = tmp_path / "library"
    folder.mkdir()
    (folder / "hostile-escapes.yaml").write_text(SCENARIO)
    return folder


def screen_text(app: AirlineApp) -> str:
    """Every character the screen would send to the terminal, line by line."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def assert_no_controls(where: str, text: str) -> None:
    found = CONTROLS.findall(text)
    assert not found, f"{where} holds {found!r}: {text!r}"


async def test_a_hostile_scenario_is_shown_escaped_in_every_widget(library: Path) -> None:
    app = AirlineApp(AgentController(Settings(), library=library), pace=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: library_shown(app))
        assert_no_controls("the library", screen_text(app))
        assert "\\u001b]0;library title\\u0007" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.controller.feed.scenario_name == "hostile-escapes", 60)
        await wait_until(pilot, lambda: not app.main.turn_running, timeout=60)
        await pilot.press(">")
        chat = app.main.query_one(ChatPane)
        await wait_until(pilot, lambda: any("Reply" in m.text for m in chat.messages()), 30)
        await wait_until(pilot, lambda: not app.main.turn_running)
        await pilot.pause()

        customer, agent = chat.messages()
        assert customer.text == "Hello \\u001b]0;customer title\\u0007 there"
        assert agent.text.startswith("Reply \\u001b]0;pwned\\u0007 clip \\u001b]52;c;")
        assert "red \\u009b31m flip \\u202etxt.exe\\u202c del \\u007f end" in agent.text
        assert agent.reasoning == "Thinking \\u001b]0;reasoning title\\u0007 hard"

        trace = app.main.query_one(TracePane)
        tool = next(e for e in trace.entries if e.title == "tool get_reservation_details")
        row = render_entry(tool, trace.redactor).plain
        assert_no_controls("the tool's trace row", row)
        title, arguments, *_ = row.splitlines()
        assert "tool get_reservation_details  NOT_FOUND · " in title
        assert '"\\u001b]0;tool title\\u0007\\u009b2J\\u202eXYZ"' in arguments
        # The write's result and its row changes hold the names the model wrote.
        write = next(e for e in trace.entries if e.title == "tool update_reservation_passengers")
        row = render_entry(write, trace.redactor).plain
        assert "tool update_reservation_passengers  ok · " in row.splitlines()[0]
        assert '"first_name": "\\u001b]0;name title\\u0007"' in row
        assert "Taylor\\u009b2J" in row and "\\u202eavliS" in row
        for entry in trace.entries:
            assert_no_controls(
                f"trace row {entry.title}", render_entry(entry, trace.redactor).plain
            )

        shown = screen_text(app)
        assert_no_controls("the main screen", shown)
        assert "\\u001b]0;pwned\\u0007" in shown and "\\u202etxt.exe\\u202c" in shown
        # The row on screen is whole: its title and its verdict on one line.
        [row_line] = [line for line in shown.splitlines() if "tool get_reservation_details" in line]
        assert "NOT_FOUND" in row_line

        trace.focus()
        trace.highlighted = trace.entries.index(tool)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EntryDetailsScreen))
        details = app.screen
        assert isinstance(details, EntryDetailsScreen)
        assert_no_controls("the details", details.text)
        assert "\\u001b]0;tool title\\u0007" in details.text
        assert_no_controls("the details screen", screen_text(app))
        await pilot.press("escape")

        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen)
        assert_no_controls("the inspector's request", inspector.shown_json)
        assert_no_controls("the inspector's response", inspector.response_json)
        assert "\\u009b31m" in inspector.response_json and "\\u202e" in inspector.response_json
        assert_no_controls("the inspector screen", screen_text(app))
        await pilot.press("escape")

        app.notify("Saved \x1b]0;toast title\x07 here", title="\x9bTitle")
        await wait_until(pilot, lambda: any("toast" in n.message for n in app._notifications))
        [note] = [n for n in app._notifications if "toast" in n.message]
        assert note.message == "Saved \\u001b]0;toast title\\u0007 here"
        assert note.title == "\\u009bTitle"
        app.controller.status.show_activity("working \x1b[2J on it")
        await pilot.pause()
        shown = screen_text(app)
        assert_no_controls("the screen with a toast and the status", shown)
        assert "working \\u001b[2J on it" in shown and "toast title" in shown


class ApprovalHost(App[None]):
    def __init__(self, calls: tuple[PendingWrite, ...]) -> None:
        super().__init__()
        self.calls = calls

    def on_mount(self) -> None:
        self.push_screen(ApprovalScreen(self.calls))


async def test_the_approval_question_shows_the_models_arguments_escaped() -> None:
    hostile = "\x1b]0;approve me\x07 \x9b2J \u202eX"
    call = PendingWrite(
        "call_1",
        "update_reservation_passengers",
        {"reservation_id": "EHGLP3", "passengers": [{"first_name": hostile}]},
        f"passengers: Evelyn → {hostile}",
    )
    app = ApprovalHost((call,))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        shown = screen_text(app)
        assert_no_controls("the approval screen", shown)
        assert "passengers: Evelyn → \\u001b]0;approve me\\u0007 \\u009b2J \\u202eX" in shown
        assert '"first_name": "\\u001b]0;approve me\\u0007 \\u009b2J \\u202eX"' in shown
