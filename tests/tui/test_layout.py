"""80×24 is usable: one pane at a time with tabs and f2, a zoom key (f3) for any pane at any
size, a live reply in view; the header and footer fit at 80, 120 and 160 columns; the
palette says what each action does, with one Help entry."""

from __future__ import annotations

import pytest
from textual.widgets import Tabs
from textual.widgets._footer import FooterKey

from airline_agent.tui.app import AirlineApp
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.status_bar import StatusBar
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller
from tests.tui.test_follow_newest import _last_agent_message_in_view


def _shown(app: AirlineApp) -> list[str]:
    return [name for name in ("chat", "trace", "usage") if app.main.query_one(f"#{name}").display]


async def test_80x24_shows_one_pane_at_a_time_with_tabs_and_f2() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await close_the_library(pilot)
        assert app.main.pane_layout == "single"
        tabs = app.main.query_one(Tabs)
        assert tabs.region.height > 0 and tabs.active == "tab-chat"
        assert _shown(app) == ["chat"]
        assert app.main.query_one(ChatPane).region.height >= 15  # not 0–1 lines
        await pilot.press("f2")
        await wait_until(pilot, lambda: _shown(app) == ["trace"])
        assert tabs.active == "tab-trace"
        await pilot.press("f2", "f2")
        await wait_until(pilot, lambda: _shown(app) == ["chat"])


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_f3_zooms_the_focused_pane_and_back(size: tuple[int, int]) -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=size) as pilot:
        await close_the_library(pilot)
        await pilot.press("f2") if size == (80, 24) else app.main.trace.focus()
        await wait_until(pilot, lambda: app.focused is app.main.trace)
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.screen.maximized is app.main.trace)
        assert app.main.trace.region.width == size[0]
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.screen.maximized is None)


async def test_a_live_reply_is_in_view_at_80x24() -> None:
    controller = two_turn_controller(mode="live")
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.main.ready)
        chat = app.main.query_one(ChatPane)
        chat.input.focus()
        await pilot.press(*"cancel EHGLP3", "enter")
        await wait_until(pilot, lambda: controller.received == ["cancel EHGLP3"])
        await wait_until(pilot, lambda: not app.main.turn_running)
        await wait_until(pilot, lambda: _last_agent_message_in_view(chat))


@pytest.mark.parametrize("columns", [80, 120, 160])
async def test_header_and_footer_fit(columns: int) -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(columns, 40)) as pilot:
        await close_the_library(pilot)
        await pilot.press("space")
        await wait_until(pilot, lambda: not app.main.turn_running)
        status = app.main.query_one(StatusBar)
        if columns >= 120:  # one line, not wrapped (once the turn's "working…" is gone)
            await wait_until(pilot, lambda: status.region.height == 1)
        said = str(status.render())
        assert "customer emma_kim_9957" in said and "guard on" in said
        keys = list(app.screen.query(FooterKey))
        assert {key.key for key in keys} >= {"space", "l", "f1", "ctrl+q", "ctrl+p"}
        for key in keys:
            assert key.region.right <= columns and key.region.width >= len(key.description)


async def test_the_palette_says_what_each_action_does_with_one_help() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(120, 40)) as pilot:
        await close_the_library(pilot)
        commands = list(app.get_system_commands(app.screen))
        titles = [command.title for command in commands]
        assert titles.count("Help") == 1 and "Keys" not in titles
        assert len(titles) == len(set(titles))
        step = next(command for command in commands if command.title == "Step")
        assert step.help.startswith("Play the scenario's next turn") and "(space)" in step.help


async def test_two_f2_in_one_read_show_the_pane_after_next_and_the_app_rests() -> None:
    """Issue 19 item 16: two f2 in one input read (a held key, a paste) at 80x24 set the
    tab bar twice before its first TabActivated arrived; the screen and the tab bar then
    re-activated each other's pane forever (a core spinning, enter and esc unanswered)."""
    from textual import events

    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await close_the_library(pilot)
        main = app.main
        shown: list[str] = []
        original = main.show_pane

        def counted(pane: str) -> None:
            shown.append(pane)
            original(pane)

        main.show_pane = counted  # type: ignore[method-assign]
        for _ in range(2):  # both queued before either is handled, as one read delivers
            app.post_message(events.Key("f2", None))
        tabs = main.query_one(Tabs)

        def at_rest() -> bool:
            # A ping-pong keeps both queues busy and show_pane called: never at rest.
            quiet = main._message_queue.empty() and tabs._message_queue.empty()
            return len(shown) > 2 or (quiet and main.shown_pane == "usage")

        await wait_until(pilot, at_rest)
        assert shown == ["trace", "usage"]
        assert tabs.active == "tab-usage" and _shown(app) == ["usage"]
        await pilot.press("f2")  # and the app still answers
        await wait_until(pilot, lambda: _shown(app) == ["chat"])
