"""Saving with nothing to save says so at once, without asking where to save; a save that
fails says what and where in a toast that does not cut its own text."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from airline_agent.tui.app import AirlineApp
from airline_agent.tui.notices import TOAST_LINE, saved, short_path
from airline_agent.tui.screens.main import MainScreen
from airline_agent.tui.screens.prompt import PromptScreen
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller


@pytest.mark.parametrize("key", ["s", "t"])
async def test_saving_an_empty_conversation_warns_without_a_prompt(key: str) -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await close_the_library(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: bool(app._notifications))
        assert isinstance(app.screen, MainScreen)  # no file prompt opened
        [note] = list(app._notifications)
        assert note.message == "Nothing to save yet." and note.severity == "warning"


def _screen_lines(app: AirlineApp) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


async def test_a_failed_save_says_what_and_where_in_a_toast_that_fits(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file-not-a-folder"
    blocker.write_text("")
    target = blocker / "deeply" / "nested" / "recordings" / "transcripts-20240515-150000"
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await close_the_library(pilot)
        await pilot.press("space")
        await wait_until(pilot, lambda: app.controller.position == 1 and not app.main.turn_running)
        app.clear_notifications()
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app._notifications))
        [note] = list(app._notifications)
        assert note.severity == "error"
        assert note.message.startswith("Could not save to …/")
        assert "[Errno" not in note.message  # the reason in words, not the OSError's repr
        await wait_until(pilot, lambda: "Could not save" in "".join(_screen_lines(app)))
        shown = "\n".join(_screen_lines(app))
        for word in note.message.split(" "):
            assert word in shown, (word, shown)  # every word whole on one line


def test_paths_in_a_toast_are_shortened_to_their_last_parts() -> None:
    long = "/home/someone/projects/airline-agent/recordings/cancel-ehglp3.jsonl"
    assert short_path(long) == "…/recordings/cancel-ehglp3.jsonl"
    assert short_path("recordings/x.yaml") == "recordings/x.yaml"
    name = "a-very-long-scenario-name-that-goes-on-and-on-and-on.yaml"
    assert short_path(name) == name[:30] + "….yaml" and len(short_path(name)) <= TOAST_LINE
    assert saved([Path("recordings/t.jsonl"), Path("recordings/t.md")]) == (
        "Saved in recordings: t.jsonl, t.md"
    )
