"""Auto-play at a person's reading pace by default, `+` / `-` to change it, instant only
when asked for (tests and the benchmark pass pace=0); live, the footer offers no scenario
keys."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from airline_agent.agent.events import RequestSent, TextDelta, TurnStarted
from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.pacing import event_pause, turn_pause
from airline_agent.tui.speed import DEFAULT_PACE, next_pace
from airline_agent.tui.turns import run_turn
from airline_agent.tui.widgets.chat_pane import ChatPane
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller


def test_a_pause_is_as_long_as_its_text_takes_to_read() -> None:
    short, long = TextDelta(1, "Done."), TextDelta(1, "word " * 40)
    assert event_pause(long, 1.0) > event_pause(short, 1.0) >= 0.5
    assert event_pause(long, 1.0) == 200 / 25  # 25 characters a second
    assert event_pause(TurnStarted(1, "Please cancel EHGLP3."), 1.0) >= 1.0
    assert 0 < event_pause(RequestSent(1, 1, "m", [], [], {}), 1.0) < 1.0  # a beat
    assert event_pause(long, 0.5) == event_pause(long, 1.0) / 2  # 2× halves every pause
    assert event_pause(long, 0) == 0 and turn_pause(0) > 0  # instant, still a tick apart


def test_plus_and_minus_step_through_the_speeds_to_instant_and_back() -> None:
    speeds = []
    pace = DEFAULT_PACE
    for _ in range(5):
        pace = next_pace(pace, faster=True)
        speeds.append(pace)
    assert speeds == [0.5, 0.25, 0.125, 0.0, 0.0]  # 2×, 4×, 8×, instant, stays instant
    assert next_pace(0.0, faster=False) == 0.125
    assert next_pace(4.0, faster=False) == 4.0  # ¼× is the slowest


async def test_the_showcase_auto_plays_at_a_readable_pace_by_default() -> None:
    """Before, cancel-ehglp3 auto-played in about 3 s (0.25 s an event, whatever it said)."""
    controller = AgentController(Settings())
    await controller.start_scenario("cancel-ehglp3")
    seconds, turns = 0.0, 0
    while (text := controller.feed.next_customer_message()) is not None:
        turns += 1
        async for event in run_turn(controller.feed, text):
            seconds += event_pause(event, DEFAULT_PACE)
    seconds += turn_pause(DEFAULT_PACE) * (turns - 1)
    controller.close()
    assert 30 < seconds < 90, seconds
    assert AirlineApp(two_turn_controller()).pace == DEFAULT_PACE == 1.0


async def test_the_speed_shows_in_the_chats_frame_and_plus_changes_it() -> None:
    app = AirlineApp(two_turn_controller())
    async with app.run_test(size=(120, 40)) as pilot:
        await close_the_library(pilot)
        chat = app.main.query_one(ChatPane)
        assert chat.border_subtitle.startswith("auto-play 1×")
        await pilot.press("plus")
        await wait_until(pilot, lambda: chat.border_subtitle.startswith("auto-play 2×"))
        await pilot.press("minus", "minus")
        await wait_until(pilot, lambda: chat.border_subtitle.startswith("auto-play 0.5×"))


def _footer_keys(app: AirlineApp) -> set[str]:
    return {key.key for key in app.screen.query(FooterKey)}


async def test_the_live_footer_offers_no_scenario_keys_and_offline_does() -> None:
    live = AirlineApp(two_turn_controller(mode="live"), pace=0)
    async with live.run_test(size=(160, 48)) as pilot:
        await wait_until(
            pilot, lambda: live.controller.feed.ready and "ctrl+q" in _footer_keys(live)
        )
        await pilot.press("escape")  # out of the input: the letter keys work (and show)
        await wait_until(pilot, lambda: "l" in _footer_keys(live))
        assert "space" not in _footer_keys(live) and "a" not in _footer_keys(live)
    offline = AirlineApp(two_turn_controller(), pace=0)
    async with offline.run_test(size=(160, 48)) as pilot:
        await close_the_library(pilot)
        await wait_until(pilot, lambda: {"space", "a", "ctrl+q"} <= _footer_keys(offline))
