"""The chat and the trace follow the newest entry unless the user scrolled away: four
shipped scenarios used to end with the chat above their last agent message."""

from __future__ import annotations

import pytest

from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.approval import ApprovalScreen
from airline_agent.tui.widgets.chat_message import ChatMessage
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.trace_pane import TracePane
from tests.support.profile import SLOW, heavy
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller

# Paced, as a person watches (a reply streams in and grows after it is mounted), but
# quick: on the original code a paced playback ended above its reply at 120x40 too.
PACE = 0.05
ENDED_ABOVE_THE_REPLY = [
    "correct-passenger-add-bags",
    "book-with-bags-split-payment",
    "change-return-flight",
    "cancel-business-refund",
]


def _last_agent_message_in_view(chat: ChatPane) -> bool:
    """The last agent message is on screen, its end showing (the list scrolled to it)."""
    agents = [m for m in chat.messages() if m.speaker == "agent"]
    if not agents:
        return False
    shown = chat.message_list.region
    last: ChatMessage = agents[-1]
    return last.region.height > 0 and shown.y < last.region.bottom <= shown.bottom


def _played_to_the_end(app: AirlineApp) -> bool:
    if isinstance(app.screen, ApprovalScreen):  # a scenario that asks: approve
        app.screen.query_one("#approve").press()
        return False
    main = app.main
    return (
        app.controller.feed.scenario_name is not None
        and main.controller.feed.steps_left == 0
        and not main.autoplay
        and not main.turn_running
        and main.backlog == 0
    )


SIZES = {"120x40": (120, 40), "80x24": (80, 24)}


def _cases() -> list[object]:
    """Every scenario at every size with AIRLINE_AGENT_SLOW=1; by default two of them, one
    at each size (each of the four ended above its reply on the original code)."""
    cases = []
    for index, scenario in enumerate(ENDED_ABOVE_THE_REPLY):
        for turn, (name, size) in enumerate(SIZES.items()):
            default = index < 2 and turn == index
            marks = () if SLOW or default else (heavy("two scenarios, one at each size"),)
            cases.append(pytest.param(scenario, size, id=f"{scenario}-{name}", marks=marks))
    return cases


@pytest.mark.parametrize(("scenario", "size"), _cases())
async def test_auto_play_ends_with_the_last_agent_message_in_view(
    scenario: str, size: tuple[int, int]
) -> None:
    app = AirlineApp(AgentController(Settings()), scenario=scenario, pace=PACE)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.scenario_name == scenario, timeout=60)
        await wait_until(pilot, lambda: not app.main.turn_running, timeout=60)
        await pilot.press("a")
        await wait_until(pilot, lambda: _played_to_the_end(app), timeout=60)
        chat = app.main.query_one(ChatPane)
        await wait_until(pilot, lambda: _last_agent_message_in_view(chat))


async def test_the_chat_follows_again_after_a_resize() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await close_the_library(pilot)
        await pilot.press("space")
        chat = app.main.query_one(ChatPane)
        await wait_until(pilot, lambda: not app.main.turn_running and app.main.backlog == 0)
        await wait_until(pilot, lambda: _last_agent_message_in_view(chat))
        await pilot.resize_terminal(100, 30)
        await wait_until(pilot, lambda: _last_agent_message_in_view(chat))
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: trace.scroll_y >= trace.max_scroll_y - 1)


async def test_a_user_who_scrolled_up_is_not_yanked_down() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(100, 30)) as pilot:  # stacked: both panes scroll
        await close_the_library(pilot)
        controller = app.controller
        await pilot.press("space")
        await wait_until(pilot, lambda: controller.position == 1 and not app.main.turn_running)
        chat = app.main.query_one(ChatPane)
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: chat.message_list.max_scroll_y > 0)
        await wait_until(pilot, lambda: trace.max_scroll_y > 0)
        chat.message_list.scroll_home(animate=False)  # as the wheel or page-up does
        trace.scroll_home(animate=False)
        await pilot.pause()
        await pilot.press("space")
        await wait_until(pilot, lambda: len(controller.approvals) == 1)
        controller.approvals[0].decide(True)
        await wait_until(pilot, lambda: trace.titles()[-1] == "model: response #4 · reply")
        # Not a fixed pause (issue 19 item 27): every event shown and the newest message
        # laid out at its size, so a scroll that follows it would have happened by now.
        await wait_until(pilot, lambda: len(chat.messages()) == 4)
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
        newest = chat.messages()[-1]
        await wait_until(pilot, lambda: newest.size.height > 0)
        await pilot.pause()  # the refresh after that layout (where an anchor scrolls)
        assert chat.message_list.scroll_y == 0
        assert trace.scroll_y == 0
