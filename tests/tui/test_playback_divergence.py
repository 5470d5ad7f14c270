"""A scenario played with a setting other than its own says so where it happens (defect 5
of issue 9): the guard switched off during refuse-basic-economy-change lets the write
succeed, and the trace, the chat and the status line say that the playback diverged
from the scenario, instead of the scripted agent's "nothing was changed" standing alone.
Choosing a scenario says what it sets, and which of the user's choices it changed."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from airline_agent.agent.events import TurnFinished
from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.trace_pane import TracePane
from tests.tui.helpers import chat_notes, close_the_library, library_shown, wait_until

SIZE = (140, 40)
SCENARIO = "refuse-basic-economy-change"
DIVERGED = "diverged from the scenario: expected POLICY_VIOLATION, got ok"


def _status(app: AirlineApp) -> str:
    return Text.from_markup(str(app.main.query_one("#status").render())).plain


def _finished_turns(app: AirlineApp) -> int:
    return sum(isinstance(event, TurnFinished) for event in app.controller.feed.events)


async def _play_every_turn(pilot, app: AirlineApp) -> None:
    for turn in (1, 2):
        await pilot.press(">")
        await wait_until(pilot, lambda turn=turn: _finished_turns(app) == turn, timeout=60)
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)


async def _started(pilot, app: AirlineApp) -> None:
    await wait_until(pilot, lambda: app.controller.feed.scenario_name == SCENARIO, timeout=60)
    await wait_until(pilot, lambda: not app.main.turn_running)


async def test_guard_off_during_a_refusal_scenario_says_the_playback_diverged(
    tmp_path: Path,
) -> None:
    app = AirlineApp(AgentController(Settings(db=str(tmp_path / "unused.db"))), pace=0)
    app.start_scenario = SCENARIO
    async with app.run_test(size=SIZE) as pilot:
        await _started(pilot, app)
        await pilot.press("g")
        assert app.controller.feed.guard is False
        assert "guard OFF (the scenario's: on)" in _status(app)
        await _play_every_turn(pilot, app)
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: any(e.title == DIVERGED for e in trace.entries))
        titles = [e.title for e in trace.entries]
        write = titles.index("tool update_reservation_flights")
        assert titles[write + 1] == DIVERGED  # right after the call that diverged
        assert not trace.entries[write].error  # the write succeeded this time
        entry = trace.entries[write + 1]
        assert entry.error
        assert entry.body.startswith("turn 2, call 1 (update_reservation_flights)")
        assert 'error code: expected "POLICY_VIOLATION", got "ok"' in entry.body
        assert DIVERGED in _status(app)
        notices = [m.text for m in app.main.query_one(ChatPane).messages() if m.speaker == "notice"]
        assert any(DIVERGED in text for text in notices)
    assert not (tmp_path / "unused.db").exists()  # offline: the user's database untouched


async def test_the_same_scenario_with_its_own_settings_does_not_diverge(tmp_path: Path) -> None:
    app = AirlineApp(AgentController(Settings(db=str(tmp_path / "unused.db"))), pace=0)
    app.start_scenario = SCENARIO
    async with app.run_test(size=SIZE) as pilot:
        await _started(pilot, app)
        await _play_every_turn(pilot, app)
        trace = app.main.query_one(TracePane)
        tool = next(e for e in trace.entries if e.title == "tool update_reservation_flights")
        assert tool.error and tool.details["error"] == "POLICY_VIOLATION"
        assert not any("diverged" in e.title for e in trace.entries)
        assert "diverged" not in _status(app)


async def test_choosing_a_scenario_says_what_it_sets_and_what_it_changed(
    tmp_path: Path,
) -> None:
    app = AirlineApp(AgentController(Settings(db=str(tmp_path / "unused.db"))), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await close_the_library(pilot)
        await pilot.press("g")  # the user's choice: guard OFF
        assert app.controller.feed.guard is False
        await pilot.press("l")
        await wait_until(pilot, lambda: library_shown(app))
        options = app.screen.query_one("OptionList")
        options.highlighted = options.get_option_index(SCENARIO)
        await pilot.press("enter")
        await _started(pilot, app)
        # Said in a note above the chat (a toast covered the first reply at 80x24).
        await wait_until(pilot, lambda: any(SCENARIO in text for text in chat_notes(app)))
        [note] = [text for text in chat_notes(app) if SCENARIO in text]
        assert note.startswith(
            f"{SCENARIO} sets guard on (was OFF), approval auto, customer arjun_rossi_5527, "
            "clock 2024-05-15T15:00:00."
        )
        assert app.controller.feed.guard is True
        assert "guard on" in _status(app)
