"""The status line renders the session's state and keeps none of it: a change of the state
is on screen without anyone handing the widget a value."""

from __future__ import annotations

import html
import re
from pathlib import Path

from textual.app import App, ComposeResult

import airline_agent.tui
from airline_agent.tui.session_state import CustomerBinding, DatabaseOrigin, SessionState
from airline_agent.tui.widgets.status_bar import SEPARATOR, StatusBar, compact


class StatusOnly(App[None]):
    CSS_PATH = Path(airline_agent.tui.__file__).parent / "app.tcss"

    def __init__(self, state: SessionState) -> None:
        super().__init__()
        self.state = state

    def compose(self) -> ComposeResult:
        yield StatusBar(self.state, id="status")


def _state() -> SessionState:
    return SessionState(
        source="model: test-model @ 127.0.0.1",
        origin=DatabaseOrigin.user("data/airline.db", built="sample seed 7"),
        guard=True,
        approval="ask",
        clock="2024-05-15T15:00:00",
    )


def _on_screen(app: App) -> str:
    """The screen's text, as drawn (the SVG's text elements in order, tags dropped)."""
    svg = app.export_screenshot()
    body = svg[svg.index("</defs>") :] if "</defs>" in svg else svg
    text = "".join(re.findall(r">([^<]*)</text>", body))
    return html.unescape(text).replace("\xa0", " ")


async def test_the_status_line_shows_each_change_of_the_state() -> None:
    state = _state()
    app = StatusOnly(state)
    async with app.run_test(size=(250, 3)) as pilot:
        shown = _on_screen(app)
        assert "model: test-model @ 127.0.0.1" in shown
        assert "customer not identified" in shown and "guard on" in shown
        assert "db data/airline.db (sample seed 7)" in shown
        state.update(guard=False)
        state.act_for("emma_kim_9957", CustomerBinding("stated", "get_user_details"))
        state.show_activity("agent working… esc cancels")
        await pilot.pause()
        shown = _on_screen(app)
        assert "guard OFF" in shown
        assert "customer emma_kim_9957" in shown
        assert "agent working… esc cancels" in shown
        state.scenario_guard = True  # a scenario recorded with the guard on
        state.diverged("diverged from the scenario: expected POLICY_VIOLATION, got ok")
        await pilot.pause()
        shown = _on_screen(app)
        assert "guard OFF" in shown and "(the scenario's: on)" in shown
        assert "diverged from the scenario: expected POLICY_VIOLATION, got ok" in shown
    state.update(guard=True)  # the widget is gone: nobody listens, nothing breaks


def test_a_chosen_customer_and_a_stated_one_are_told_apart() -> None:
    state = _state()
    state.act_for("noah_garcia_7579")
    assert state.binding == CustomerBinding("chosen")
    assert state.binding.describe() == "chosen for the session"
    state.act_for("emma_kim_9957", CustomerBinding("stated", "get_user_details"))
    assert state.binding.describe() == "named by the customer, confirmed by get_user_details"
    state.act_for(None)
    assert (state.customer, state.binding) == (None, None)


def test_a_waiting_run_gets_its_settings_back() -> None:
    state = _state()
    state.act_for("emma_kim_9957")
    kept = state.snapshot()
    state.update(source="scenario: cancel-ehglp3", guard=False, approval="auto")
    state.scenario_guard = True
    state.diverged("diverged from the scenario: expected POLICY_VIOLATION, got ok")
    state.restore(kept)
    assert state.snapshot() == kept
    assert state.scenario_guard is None and state.divergence is None


async def test_a_short_rest_between_turns_keeps_the_lines_height(monkeypatch) -> None:
    """Scenario turns played back to back rest a few milliseconds between them: a line
    that shrank at each rest and grew at the next turn laid out the whole screen twice a
    turn (the 200-turn playback took 38 s instead of 21). It gives the line back only
    after `SHRINK_AFTER` seconds of rest."""
    from tests.tui.helpers import wait_until

    monkeypatch.setattr(StatusBar, "SHRINK_AFTER", 3600.0)  # no rest is this long here
    state = _state()
    app = StatusOnly(state)
    async with app.run_test(size=(_one_line_width(state), 6)) as pilot:
        status = app.query_one(StatusBar)
        await wait_until(pilot, lambda: status.region.height == 1)
        state.show_activity("agent working… esc cancels")  # does not fit beside the rest
        await wait_until(pilot, lambda: status.region.height == 2)
        state.show_activity("")  # the turn ended; the next starts a moment later
        await pilot.pause()
        await pilot.pause()
        assert status.region.height == 2
        state.show_activity("agent working… esc cancels")
        await pilot.pause()
        assert status.region.height == 2


async def test_the_line_gives_back_a_line_after_a_rest(monkeypatch) -> None:
    from tests.tui.helpers import wait_until

    monkeypatch.setattr(StatusBar, "SHRINK_AFTER", 0.05)
    state = _state()
    app = StatusOnly(state)
    async with app.run_test(size=(_one_line_width(state), 6)) as pilot:
        status = app.query_one(StatusBar)
        await wait_until(pilot, lambda: status.region.height == 1)
        state.show_activity("agent working… esc cancels")
        await wait_until(pilot, lambda: status.region.height == 2)
        state.show_activity("")
        await wait_until(pilot, lambda: status.region.height == 1)


def _one_line_width(state: SessionState) -> int:
    """A terminal as wide as the idle line in full words, padding included."""
    parts = StatusBar(state).parts()
    return sum(part.cell_len for part in parts) + len(SEPARATOR) * (len(parts) - 1) + 2


async def test_a_part_that_comes_and_goes_during_a_turn_keeps_the_lines_height(
    monkeypatch,
) -> None:
    """A guard toggled while a turn runs (a key every 50 ms in bench.py's TUI part) must
    not make the line shrink and grow again: each change of its height lays out the whole
    screen below it (the 200-turn playback took twice as long). It shrinks once idle."""
    from tests.tui.helpers import wait_until

    monkeypatch.setattr(StatusBar, "SHRINK_AFTER", 0.05)
    state = _state()
    state.show_activity("agent working… esc cancels")
    # As wide as the line in its shorter words with the guard on ("clock" dropped, …).
    one_line = sum(compact(part).cell_len for part in StatusBar(state).parts())
    one_line += len(SEPARATOR) * (len(StatusBar(state).parts()) - 1)
    app = StatusOnly(state)
    async with app.run_test(size=(one_line + 2, 4)) as pilot:  # padding: one column a side
        status = app.query_one(StatusBar)
        await wait_until(pilot, lambda: status.region.height == 1)
        state.update(guard=False)  # "guard OFF" is one cell longer than "guard on": wraps
        await wait_until(pilot, lambda: status.region.height == 2)
        state.update(guard=True)
        await pilot.pause()
        assert status.region.height == 2  # kept while the turn runs
        state.show_activity("")
        await wait_until(pilot, lambda: status.region.height == 1)
