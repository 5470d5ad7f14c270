"""Approvals, cancelling a turn, the inspector, reset, narrow layout, help and history."""

from __future__ import annotations

import asyncio
import dataclasses

from textual.widgets import Checkbox, Markdown, Static

from airline_agent.agent.events import AssistantMessage
from airline_agent.agent.raw_response import RawResponse
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.screens.approval import ApprovalScreen
from airline_agent.tui.screens.details import EntryDetailsScreen
from airline_agent.tui.screens.help import HelpScreen
from airline_agent.tui.screens.inspector import InspectorScreen
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.trace_pane import TracePane
from airline_agent.tui.widgets.usage_pane import UsagePane
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller, two_writes_controller

SIZE = (140, 40)


async def _open(pilot, app: AirlineApp) -> None:
    if app.controller.mode == "offline":
        await close_the_library(pilot)


async def _play_first_turn(pilot, app: AirlineApp) -> None:
    await _open(pilot, app)
    await pilot.press("space")
    await wait_until(pilot, lambda: app.controller.position == 1 and not app.main.turn_running)
    await wait_until(pilot, lambda: len(app.main.query_one(TracePane).entries) == 8)


async def _reach_approval(pilot, app: AirlineApp) -> ApprovalScreen:
    await _play_first_turn(pilot, app)
    await pilot.press("space")
    await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
    assert isinstance(app.screen, ApprovalScreen)
    return app.screen


async def test_approval_modal_shows_every_write_call_and_accepts() -> None:
    # Two write calls in one response (issue 19 item 28: "every write call" with one).
    app = AirlineApp(two_writes_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        modal = await _reach_approval(pilot, app)
        assert [call.name for call in modal.calls] == [
            "update_reservation_baggages",
            "update_reservation_passengers",
        ]
        blocks = [
            " ".join(str(s.render()) for s in block.query(Static))
            for block in modal.query(".pending-write")
        ]
        assert len(blocks) == 2
        shown = " ".join(blocks)
        assert "gift_card_9562694" in blocks[0]  # the arguments, each call its own
        assert "Gonzales" in blocks[1]
        assert "bags 0 → 1" in blocks[0]  # the preview of what it will change
        assert "last_name Gonzalez → Gonzales" in blocks[1]
        assert "gift_card_9562694" in shown
        await pilot.press("y")
        decision = await asyncio.wait_for(app.controller.approvals[0].decision, 5)
        assert decision.approved == {"call_3_0": True, "call_3_1": True}


async def test_approval_approves_only_the_calls_left_checked() -> None:
    app = AirlineApp(two_writes_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        modal = await _reach_approval(pilot, app)
        modal.query_one("#approve-1", Checkbox).value = False  # the second call's box
        await pilot.press("y")
        decision = await asyncio.wait_for(app.controller.approvals[0].decision, 5)
        assert decision.approved == {"call_3_0": True, "call_3_1": False}


async def test_approval_declined_answers_false_for_every_call() -> None:
    app = AirlineApp(two_writes_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _reach_approval(pilot, app)
        await pilot.click("#decline")
        decision = await asyncio.wait_for(app.controller.approvals[0].decision, 5)
        assert decision.approved == {"call_3_0": False, "call_3_1": False}


async def test_escape_cancels_a_running_turn_and_the_next_turn_still_runs() -> None:
    controller = two_turn_controller()
    controller.gate = asyncio.Event()  # holds the turn before the model's answer
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, app)
        await pilot.press("space")
        await wait_until(pilot, lambda: app.main.turn_running and controller.feed.events)
        await pilot.press("escape")
        await wait_until(pilot, lambda: controller.cancelled and not app.main.turn_running)
        chat = app.main.query_one(ChatPane)
        await wait_until(pilot, lambda: chat.messages()[-1].speaker == "notice")
        assert "cancelled" in chat.messages()[-1].text
        trace = app.main.query_one(TracePane)
        assert trace.titles()[-1] == "framework: turn 1 ended · cancelled"
        controller.gate = None
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))


async def test_inspector_shows_the_exact_request_and_response_and_copies() -> None:
    controller = two_turn_controller()
    controller.secret = "sk-test-0123456789"
    # A server that echoes the key back must not get it onto the screen.
    turn = controller.turns[0][1]
    index = next(i for i, e in enumerate(turn) if isinstance(e, AssistantMessage))
    turn[index] = dataclasses.replace(
        turn[index],
        raw=RawResponse.of_completion(
            {"echo": "Bearer sk-test-0123456789", "said": "my key is sk-test-0123456789"}
        ),
    )
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _play_first_turn(pilot, app)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen)
        assert inspector.numbers == [1, 2]
        request_two = inspector.shown_json
        assert '"role": "tool"' in request_two and '"tool_choice": "auto"' in request_two
        assert "get_reservation_details" in request_two
        await pilot.press("left_square_bracket")
        assert str(inspector.query_one("#inspector-title").render()).startswith("Request #1 of 2")
        assert '"role": "tool"' not in inspector.shown_json  # request #1: before the tool ran
        assert "Please cancel my reservation EHGLP3." in inspector.shown_json
        await pilot.press("c")
        assert app.clipboard == inspector.shown_json
        inspector.query_one("TabbedContent").active = "response-tab"
        await pilot.pause()
        assert "[redacted]" in inspector.shown_json
        assert "sk-test-0123456789" not in inspector.shown_json


async def test_selecting_a_tool_entry_opens_its_details() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _play_first_turn(pilot, app)
        trace = app.main.query_one(TracePane)
        trace.focus()
        trace.highlighted = 4  # the tool call
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EntryDetailsScreen))
        assert '"reservation_id": "EHGLP3"' in app.screen.text


async def test_r_offline_restarts_the_scenario_and_clears_the_panes() -> None:
    # Named for what it checks (issue 19 item 28): its controller counts restarts; that
    # a restart plays on a fresh copy of the dataset, test_reset.py checks on the real one.
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _play_first_turn(pilot, app)
        await pilot.press("r")
        await wait_until(pilot, lambda: app.controller.resets == 1)
        await wait_until(pilot, lambda: not app.main.query_one(TracePane).entries)
        assert app.main.query_one(UsagePane).table.row_count == 0
        assert app.main.query_one(ChatPane).messages() == []


async def test_narrow_terminal_stacks_the_panes_without_cutting_any_off() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(80, 40)) as pilot:
        await _play_first_turn(pilot, app)
        assert app.screen.has_class("-narrow")
        regions = [app.main.query_one(f"#{name}").region for name in ("chat", "trace", "usage")]
        for region in regions:
            assert region.x == 0 and region.width == 80  # full width, one above the other
            assert region.height >= 5
        assert regions[0].bottom <= regions[1].y and regions[1].bottom <= regions[2].y
        assert regions[2].bottom <= 40


async def test_wide_terminal_puts_the_panes_side_by_side() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, app)
        assert app.screen.has_class("-wide")
        chat, trace, usage = (
            app.main.query_one(f"#{n}").region for n in ("chat", "trace", "usage")
        )
        # The chat and, under it, the usage on the left; the trace, at full height and the
        # widest, on the right (issue 19 item 18: a tool call's arguments were cut there).
        assert chat.right <= trace.x and usage.right <= trace.x and trace.right <= SIZE[0]
        assert chat.y == trace.y and chat.bottom <= usage.y and usage.bottom == trace.bottom
        assert trace.width > chat.width


async def test_f1_opens_help_listing_the_keys() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, app)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        shown = app.screen.query_one(Markdown).source
        # how the help writes a key, where it differs
        spelled = {"escape": "esc", "plus,equals_sign": "+", "minus": "-"}
        for binding in [*app.main.BINDINGS, *app.BINDINGS]:
            key = binding.key  # type: ignore[union-attr]
            assert f"`{spelled.get(key, key)}`" in shown, key
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))


async def test_command_palette_offers_every_action() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, app)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        for binding in app.main.BINDINGS:
            if binding.action == "results":  # type: ignore[union-attr]
                assert "Results" not in titles  # no eval run given: not offered
                continue
            assert binding.description in titles  # type: ignore[union-attr]


async def test_guard_toggle_shows_in_the_status_line() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, app)
        await pilot.press("g")
        assert app.controller.feed.guard is False
        assert "guard OFF" in str(app.main.query_one("#status").render())


async def test_live_input_sends_and_keeps_a_history() -> None:
    controller = two_turn_controller(mode="live")
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        chat = app.main.query_one(ChatPane)
        await wait_until(pilot, lambda: app.controller.feed.ready)
        chat.input.focus()
        await pilot.press(*"cancel EHGLP3", "enter")
        await wait_until(pilot, lambda: controller.received == ["cancel EHGLP3"])
        await pilot.press("up")
        assert chat.input.value == "cancel EHGLP3"
        await pilot.press("down")
        assert chat.input.value == ""
