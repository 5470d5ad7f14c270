"""The TUI's `s` and `t` never replace an existing file, nor write through a link: the
toast says why and the file is as it was."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from airline_agent.agent.events import TurnFinished
from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.notices import short_path
from airline_agent.tui.screens.prompt import PromptScreen
from tests.tui.helpers import library_shown, wait_until
from tests.tui.test_real_session import SCENARIO

OLD = "my recording of yesterday\n"


async def _save_to(key: str, target: Path, library: Path) -> str:
    """Play the first turn of a scenario over the real stack, then save it to `target`."""
    library.mkdir()
    (library / "refuse-ehglp3.yaml").write_text(SCENARIO)
    app = AirlineApp(AgentController(Settings(), library=library), pace=0)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await wait_until(pilot, lambda: library_shown(app))
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: app.controller.feed.scenario_name == "refuse-ehglp3", timeout=60
        )
        await wait_until(pilot, lambda: not app.main.turn_running, timeout=60)
        await pilot.press(">")
        finished = lambda: any(isinstance(e, TurnFinished) for e in app.controller.feed.events)  # noqa: E731
        await wait_until(pilot, finished, timeout=30)
        await wait_until(pilot, lambda: not app.main.turn_running)
        app.clear_notifications()
        await pilot.press(key)
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app._notifications))
        [note] = list(app._notifications)
        assert note.severity == "error", note.message
        return note.message


async def test_s_keeps_an_existing_scenario_file(tmp_path: Path) -> None:
    target = tmp_path / "mine.yaml"
    target.write_text(OLD)
    message = await _save_to("s", target, tmp_path / "library")
    assert message == f"Could not save to {short_path(target)}: already exists."
    assert target.read_text() == OLD


async def test_t_keeps_an_existing_transcript(tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    (folder / "refuse-ehglp3.md").write_text(OLD)
    message = await _save_to("t", folder, tmp_path / "library")
    assert "already exists" in message
    assert sorted(p.name for p in folder.iterdir()) == ["refuse-ehglp3.md"]


async def test_s_never_writes_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "notes.txt"
    outside.write_text(OLD)
    link = tmp_path / "mine.yaml"
    link.symlink_to(outside)
    message = await _save_to("s", link, tmp_path / "library")
    assert "symbolic link" in message
    assert outside.read_text() == OLD
