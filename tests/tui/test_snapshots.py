"""Pictures of the screens that matter, with every value pinned (events are hand-made)."""

from __future__ import annotations

import pytest
from textual.widgets import Footer, TabbedContent
from textual.widgets._footer import FooterKey

from airline_agent.tui.app import AirlineApp
from airline_agent.tui.screens.approval import ApprovalScreen
from airline_agent.tui.screens.inspector import InspectorScreen
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.status_bar import StatusBar
from airline_agent.tui.widgets.trace_pane import TracePane
from airline_agent.tui.widgets.usage_pane import UsagePane
from tests.tui.helpers import library_shown, wait_until, wait_until_steady
from tests.tui.scripted_events import two_turn_controller

WIDE = (150, 42)
SIZES = {"80x24": (80, 24), "120x40": (120, 40), "160x48": (160, 48)}


def _app() -> AirlineApp:
    return AirlineApp(two_turn_controller(), pace=0)


@pytest.fixture(autouse=True)
def _short_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The status line gives back its busy line after a short rest (what a user sees a
    second after the turn; a snapshot need not wait that second)."""
    monkeypatch.setattr(StatusBar, "SHRINK_AFTER", 0.05)


async def _mid_scenario(pilot) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: library_shown(app))
    await pilot.press("escape")
    await pilot.press("space")
    await wait_until(pilot, lambda: len(app.main.query_one(TracePane).entries) == 8)
    await wait_until(pilot, lambda: not app.main.turn_running)
    chat = app.main.query_one(ChatPane)
    await wait_until(pilot, lambda: len(chat.messages()) == 2 and chat.messages()[1].warnings)
    await wait_until(pilot, lambda: app.main.query_one(UsagePane).table.row_count == 3)
    # At rest: the status line has given back the line "agent working…" took.
    await wait_until(pilot, lambda: not app.main.query_one(StatusBar).shrink_pending)
    app.clear_notifications()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def test_main_screen_mid_scenario(snap_compare) -> None:
    assert snap_compare(_app(), terminal_size=WIDE, run_before=_mid_scenario)


def test_narrow_layout(snap_compare) -> None:
    assert snap_compare(_app(), terminal_size=(80, 40), run_before=_mid_scenario)


def _footers_composed(app) -> bool:
    """Every footer of the screens shown (the modal's and the one under it) has its keys."""
    footers = [footer for screen in app.screen_stack for footer in screen.query(Footer)]
    return bool(footers) and all(footer.query(FooterKey) for footer in footers)


async def _inspector_open(pilot) -> None:
    await _mid_scenario(pilot)
    await pilot.press("i")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, InspectorScreen))
    # The inspector's footer composes its keys a moment after the screen shows, and the
    # main screen's under it again when the focus moves (empty while it does: a busy
    # machine's snapshot caught that).
    await wait_until_steady(pilot, lambda: _footers_composed(pilot.app))


def test_inspector(snap_compare) -> None:
    async def open_inspector(pilot) -> None:
        await _inspector_open(pilot)
        await pilot.wait_for_scheduled_animations()  # the tabs' underline
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=WIDE, run_before=open_inspector)


def test_approval_modal(snap_compare) -> None:
    async def reach_approval(pilot) -> None:
        await _mid_scenario(pilot)
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen))
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=WIDE, run_before=reach_approval)


def test_scenario_library(snap_compare) -> None:
    async def library(pilot) -> None:
        await wait_until(pilot, lambda: library_shown(pilot.app))
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=(120, 36), run_before=library)


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_main_screen_mid_showcase(snap_compare, size: tuple[int, int]) -> None:
    """The showcase after its first turn: the chat (one pane at a time at 80x24)."""
    assert snap_compare(_app(), terminal_size=size, run_before=_mid_scenario)


def test_trace_tab_at_80x24(snap_compare) -> None:
    """80x24, the trace's tab: the request, the tool call and its result, one at a time."""

    async def trace_tab(pilot) -> None:
        await _mid_scenario(pilot)
        await pilot.press("f2")
        await wait_until(pilot, lambda: pilot.app.main.panes.shown == "trace")
        pilot.app.main.trace.scroll_home(animate=False)
        await pilot.wait_for_scheduled_animations()  # the tab's underline
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=(80, 24), run_before=trace_tab)


def test_inspector_raw_response(snap_compare) -> None:
    async def open_response(pilot) -> None:
        await _inspector_open(pilot)
        pilot.app.screen.query_one(TabbedContent).active = "response-tab"
        # The tab takes the focus, and the footer composes its keys again after a refresh:
        # on a busy machine the snapshot caught it empty.
        await wait_until_steady(pilot, lambda: _footers_composed(pilot.app))
        await pilot.wait_for_scheduled_animations()  # the tab's underline
        await pilot.pause()

    assert snap_compare(_app(), terminal_size=(120, 40), run_before=open_response)
