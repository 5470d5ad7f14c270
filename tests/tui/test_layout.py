"""80×24 is usable: one pane at a time with tabs and f2, a zoom key (f3) for any pane at any
size, a live reply in view; the header and footer fit at 80, 120 and 160 columns; the
palette says what each action does, with one Help entry."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import TabbedContent, Tabs
from textual.widgets._footer import FooterKey

from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.inspector import InspectorScreen
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.status_bar import StatusBar
from tests.tui.helpers import (
    close_the_library,
    library_shown,
    screen_lines,
    shown_in,
    wait_until,
)
from tests.tui.scripted_events import two_turn_controller
from tests.tui.test_follow_newest import _last_agent_message_in_view


def _shown(app: AirlineApp) -> list[str]:
    return [name for name in ("chat", "trace", "usage") if app.main.query_one(f"#{name}").display]


async def test_80x24_shows_one_pane_at_a_time_with_tabs_and_f2() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await close_the_library(pilot)
        assert app.main.panes.pane_layout == "single"
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
        await wait_until(pilot, lambda: app.controller.feed.ready)
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
        panes = app.main.panes
        shown: list[str] = []
        original = panes.show_pane

        def counted(pane: str) -> None:
            shown.append(pane)
            original(pane)

        panes.show_pane = counted  # type: ignore[method-assign]
        for _ in range(2):  # both queued before either is handled, as one read delivers
            app.post_message(events.Key("f2", None))
        tabs = panes.query_one(Tabs)

        def at_rest() -> bool:
            # A ping-pong keeps both queues busy and show_pane called: never at rest.
            quiet = panes._message_queue.empty() and tabs._message_queue.empty()
            return len(shown) > 2 or (quiet and panes.shown == "usage")

        await wait_until(pilot, at_rest)
        assert shown == ["trace", "usage"]
        assert tabs.active == "tab-usage" and _shown(app) == ["usage"]
        await pilot.press("f2")  # and the app still answers
        await wait_until(pilot, lambda: _shown(app) == ["chat"])


CALL = 'get_reservation_details({"reservation_id": "EHGLP3"})'


@pytest.mark.parametrize("size", [(120, 40), (160, 48), (80, 24)], ids=["120", "160", "80x24"])
async def test_the_trace_has_the_room_to_show_a_tool_call_whole(size: tuple[int, int]) -> None:
    """Issue 19 item 18: the model's tool call, the line that matters most for teaching,
    was cut at 120 and 160 columns (`get_reservation_details({"rese…`)."""
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=size) as pilot:
        await close_the_library(pilot)
        await pilot.press("space")
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
        if size == (80, 24):
            await pilot.press("f2")
            await wait_until(pilot, lambda: _shown(app) == ["trace"])
        trace = app.main.trace
        model = trace.titles().index("model: response #1 · 1 tool call")
        trace.highlighted = model  # scrolled into view
        await wait_until(pilot, lambda: any(CALL in line for line in shown_in(app, trace)))
        assert not any("…" in line for line in shown_in(app, trace) if "get_res" in line)


async def _showcase_inspector(pilot) -> InspectorScreen:
    """The real showcase after its first turn, the inspector open on request #1."""
    app = pilot.app
    await wait_until(pilot, lambda: app.controller.feed.scenario_name == "cancel-ehglp3", 60)
    await wait_until(pilot, lambda: not app.main.turn_running, 60)
    await pilot.press(">")
    await wait_until(pilot, lambda: app.controller.feed.steps_left == 1, 60)
    await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog, 60)
    await pilot.press("i")
    await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
    await pilot.press("left_square_bracket")
    inspector = app.screen
    assert isinstance(inspector, InspectorScreen)
    return inspector


def _showcase(tmp_path: Path) -> AirlineApp:
    controller = AgentController(Settings(db=str(tmp_path / "unused.db")))
    return AirlineApp(controller, scenario="cancel-ehglp3", pace=0)


FRAMES = re.compile("[\u2500-\u259f]")  # box drawing and blocks: borders, scrollbars


def _words(lines: list[str]) -> str:
    """The text of these lines without frames, as words joined by single spaces."""
    return " ".join(FRAMES.sub(" ", " ".join(lines)).split())


def _on_screen(app: AirlineApp, words: str) -> bool:
    """Every word of `words` is on screen, in order, whatever the wrapping."""
    return " ".join(words.split()) in _words(screen_lines(app))


async def test_at_80x24_the_inspector_header_and_who_produced_what_are_whole(
    tmp_path: Path,
) -> None:
    """Issue 19 item 18: at 80x24 the inspector's header and its "who produced what"
    table were cut (the table's `what` and `note` columns off screen)."""
    app = _showcase(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        inspector = await _showcase_inspector(pilot)
        title = str(inspector.query_one("#inspector-title").render())
        await wait_until(pilot, lambda: _on_screen(app, title))
        inspector.query_one(TabbedContent).active = "anatomy-tab"
        await pilot.pause()
        anatomy = inspector.query_one("#anatomy")
        await wait_until(pilot, lambda: anatomy.region.height > 0)
        header = next(line for line in shown_in(app, anatomy) if "step" in line)
        assert header.split()[:6] == ["step", "from", "part", "where", "what", "note"]
        reasoning = next(r for r in inspector.anatomy_rows() if r[2] == "reasoning_content")
        note = set(reasoning[5].split())  # "shown, not sent back: …", wrapped in its column
        scroll = inspector.query_one("#anatomy-scroll")
        for y in range(0, int(scroll.max_scroll_y) + 5, 5):  # down the table, a page at a time
            scroll.scroll_to(y=y, animate=False)
            await pilot.pause()
            if note <= set(_words(shown_in(app, scroll)).split()):
                break
        else:
            raise AssertionError(f"the note {reasoning[5]!r} is never shown whole")


async def test_below_160_columns_the_streamed_chunks_are_readable(tmp_path: Path) -> None:
    """Issue 19 item 18: each `data:` chunk of a streamed response was cut after about 50
    characters at 120 columns (`{"id": "chatcmpl-scripted-1", "object": "cha`)."""
    app = _showcase(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        inspector = await _showcase_inspector(pilot)
        inspector.query_one(TabbedContent).active = "response-tab"
        await pilot.pause()
        chunks = inspector.query_one("#response-chunks")
        await wait_until(pilot, lambda: chunks.region.height > 0)
        shown = _words(shown_in(app, chunks))
        assert '"object": "chat.completion.chunk"' in shown
        assert '"finish_reason": null}]} data:' in shown  # the first chunk's end, not cut


async def test_what_a_scenario_sets_is_said_in_the_chat_not_over_it() -> None:
    """Issue 19 item 18: at 80x24 the toast of what the chosen scenario sets covered the
    first reply for seconds; it is a note above the chat's conversation now."""
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: library_shown(app))
        await pilot.press("enter")
        chat = app.main.query_one(ChatPane)
        await wait_until(pilot, lambda: bool(chat.notes()))
        [note] = chat.notes()
        assert note.startswith("cancel-ehglp3 sets guard on.")
        assert "space plays the next step" in note
        assert not any("sets" in toast.message for toast in app._notifications)
        await pilot.press("space")  # the first reply comes under it, nothing over it
        await wait_until(pilot, lambda: len(chat.messages()) == 2 and not app.main.backlog)
        assert chat.notes() == [note]


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_quitting_as_the_first_frame_shows_ends_without_a_traceback(
    size: tuple[int, int],
) -> None:
    """A quit typed ahead of the app (read as its first frame is out): at 80×24 the
    one-pane layout's tab bar was mounted into a pane switcher already taken down
    (MountError)."""
    apps: list[AirlineApp] = []
    app = AirlineApp(two_turn_controller(), pace=0, first_frame_shown=lambda: apps[0].exit())
    apps.append(app)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
    assert app.return_code == 0
