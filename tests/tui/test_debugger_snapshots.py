"""Pictures of the debugger: the showcase's first request held before it is sent, its body
open in the editor, at 80×24 and 160×48. A real playback (scripted, its clock pinned by
the scenario), so every value is the product's own and the same each run; the text
area's cursor does not blink in the picture."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Footer, TextArea
from textual.widgets._footer import FooterKey

from airline_agent.agent.events import RequestHeld
from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.json_editor import JsonEditorScreen
from airline_agent.tui.widgets.status_bar import StatusBar
from tests.tui.helpers import wait_until

SIZES = {"80x24": (80, 24), "160x48": (160, 48)}
DEADLINE = 60.0  # every wait: under load a step took more than the default 10 s


@pytest.fixture(autouse=True)
def _short_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(StatusBar, "SHRINK_AFTER", 0.05)


async def _editor_open(pilot) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: app.controller.feed.scenario_name == "cancel-ehglp3", DEADLINE)
    await wait_until(pilot, lambda: not app.main.turn_running, DEADLINE)
    await pilot.press("space")
    await wait_until(pilot, lambda: isinstance(app.controller.feed.held, RequestHeld), DEADLINE)
    await wait_until(pilot, lambda: not app.main.backlog, DEADLINE)
    # The footer offers `e` once the hold is shown (it recomposes its keys a moment later).
    await wait_until(
        pilot, lambda: _footer_keys(app.main) and "e" in _footer_keys(app.main), DEADLINE
    )
    await pilot.press("e")
    await wait_until(pilot, lambda: isinstance(app.screen, JsonEditorScreen), DEADLINE)
    area = app.screen.query_one(TextArea)
    area.cursor_blink = False
    # The picture has the cursor: the editor has the focus (under load it came after the
    # screen, and the picture caught the text without it).
    await wait_until(pilot, lambda: area.has_focus, DEADLINE)
    app.clear_notifications()
    await pilot.wait_for_scheduled_animations()
    # Every footer on screen drawn (a footer recomposing has no keys for a moment).
    await wait_until(
        pilot, lambda: all(_footer_keys(screen) for screen in app.screen_stack), DEADLINE
    )
    await pilot.pause()


def _footer_keys(screen) -> set[str]:
    """The keys the screen's footer shows; a screen without a footer counts as drawn."""
    footers = list(screen.query(Footer))
    if not footers:
        return {"(no footer)"}
    return {key.key for footer in footers for key in footer.query(FooterKey)}


@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
def test_a_held_request_with_its_editor_open(
    snap_compare, tmp_path: Path, size: tuple[int, int]
) -> None:
    controller = AgentController(Settings(db=str(tmp_path / "unused.db")))
    app = AirlineApp(controller, pace=0)
    app.start_scenario = "cancel-ehglp3"
    assert snap_compare(app, terminal_size=size, run_before=_editor_open)
