"""The status line renders the status and keeps none of it: a change of a fact shown is
on screen once its owner says so, without anyone handing the widget a value; each fact
is read where it is owned (a run's, its conversation's, its toolbox's)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from textual.app import App, ComposeResult

import airline_agent.tui
from airline_agent.agent.conversation import Conversation
from airline_agent.tui.status import DatabaseOrigin, DebugFacts, Status
from airline_agent.tui.trace import framework_entry
from airline_agent.tui.widgets.status_bar import SEPARATOR, StatusBar, compact
from tests.tui.helpers import wait_until


@dataclass
class Facts:
    """A run's facts, set by the test as their owners would set them."""

    source: str = "model: test-model @ 127.0.0.1"
    customer: str | None = None
    origin: DatabaseOrigin = field(
        default_factory=lambda: DatabaseOrigin.user("data/airline.db", built="sample seed 7")
    )
    guard: bool = True
    scenario_guard: bool | None = None
    rules_known: bool = True
    approval: str = "ask"
    clock: str = "2024-05-15T15:00:00"
    divergence: str | None = None
    debugging: DebugFacts = field(default_factory=DebugFacts)


@dataclass
class Shown:
    feed: Facts
    live_paused: bool = False


class StatusOnly(App[None]):
    CSS_PATH = Path(airline_agent.tui.__file__).parent / "app.tcss"

    def __init__(self, status: Status) -> None:
        super().__init__()
        self.status = status

    def compose(self) -> ComposeResult:
        yield StatusBar(self.status, id="status")


def _status() -> tuple[Status, Facts]:
    facts = Facts()
    return Status(Shown(facts)), facts


def _on_screen(app: App) -> str:
    """The screen's text, as drawn (the SVG's text elements in order, tags dropped)."""
    svg = app.export_screenshot()
    body = svg[svg.index("</defs>") :] if "</defs>" in svg else svg
    text = "".join(re.findall(r">([^<]*)</text>", body))
    return html.unescape(text).replace("\xa0", " ")


async def test_the_status_line_shows_each_change_of_the_state() -> None:
    status, facts = _status()
    app = StatusOnly(status)
    async with app.run_test(size=(250, 3)) as pilot:
        shown = _on_screen(app)
        assert "model: test-model @ 127.0.0.1" in shown
        assert "customer not identified" in shown and "guard on" in shown
        assert "db data/airline.db (sample seed 7)" in shown
        facts.guard = False
        facts.customer = "emma_kim_9957"
        status.changed()
        status.show_activity("agent working… esc cancels")
        await pilot.pause()
        shown = _on_screen(app)
        assert "guard OFF" in shown
        assert "customer emma_kim_9957" in shown
        assert "agent working… esc cancels" in shown
        facts.scenario_guard = True  # a scenario recorded with the guard on
        facts.divergence = "diverged from the scenario: expected POLICY_VIOLATION, got ok"
        status.changed()
        await pilot.pause()
        shown = _on_screen(app)
        assert "guard OFF" in shown and "(the scenario's: on)" in shown
        assert "diverged from the scenario: expected POLICY_VIOLATION, got ok" in shown
    facts.guard = True
    status.changed()  # the widget is gone: nobody listens, nothing breaks


def test_a_chosen_customer_and_a_stated_one_are_told_apart() -> None:
    # The conversation says how it came to act for its customer (the status line's
    # SessionState kept a copy of this, and of the customer, beside it).
    chosen = Conversation.start("prompt", "noah_garcia_7579")
    assert (chosen.customer, chosen.bound_by) == ("noah_garcia_7579", "preset")
    stated = Conversation.start("prompt")
    stated.bind("emma_kim_9957")
    assert (stated.customer, stated.bound_by) == ("emma_kim_9957", "stated")
    from airline_agent.agent.events import CustomerBound

    entry = framework_entry(CustomerBound("emma_kim_9957", "call_1", "get_user_details"))
    assert entry is not None
    assert entry.title.endswith("named by the customer, confirmed by get_user_details")
    nobody = Conversation.start("prompt", None)
    assert (nobody.customer, nobody.bound_by) == (None, None)


async def test_a_waiting_run_gets_its_settings_back(tmp_path: Path) -> None:
    """A live run waits while a scenario plays and comes back with its own facts: its
    guard, its customer, its database; nothing of the scenario's stays."""
    from airline_agent.config import Settings
    from airline_agent.tui.controller import AgentController

    unused = str(tmp_path / "a.db")  # never opened: the live run only waits here
    settings = Settings(model="test-model", base_url="http://127.0.0.1:9/v1", db=unused)
    controller = AgentController(settings)
    live = controller.feed
    live.guard = False
    live.act_for("emma_kim_9957")
    kept = controller.status.parts()
    await controller.start_scenario("cancel-ehglp3")
    assert controller.feed is not live and controller.status.parts() != kept
    assert any("scenario: cancel-ehglp3" in part for part in controller.status.parts())
    await controller.back_to_live()
    assert controller.feed is live
    assert controller.status.parts() == kept
    assert not any("the scenario's" in p or "diverged" in p for p in controller.status.parts())
    controller.close()


async def test_a_short_rest_between_turns_keeps_the_lines_height(monkeypatch) -> None:
    """Scenario turns played back to back rest a few milliseconds between them: a line
    that shrank at each rest and grew at the next turn laid out the whole screen twice a
    turn (the 200-turn playback took 38 s instead of 21). It gives the line back only
    after `SHRINK_AFTER` seconds of rest."""
    from tests.tui.helpers import wait_until

    monkeypatch.setattr(StatusBar, "SHRINK_AFTER", 3600.0)  # no rest is this long here
    status, _ = _status()
    app = StatusOnly(status)
    async with app.run_test(size=(_one_line_width(status), 6)) as pilot:
        line = app.query_one(StatusBar)
        await wait_until(pilot, lambda: line.region.height == 1)
        status.show_activity("agent working… esc cancels")  # does not fit beside the rest
        await wait_until(pilot, lambda: line.region.height == 2)
        status.show_activity("")  # the turn ended; the next starts a moment later
        await pilot.pause()
        await pilot.pause()
        assert line.region.height == 2
        status.show_activity("agent working… esc cancels")
        await pilot.pause()
        assert line.region.height == 2


async def test_the_line_gives_back_a_line_after_a_rest(monkeypatch) -> None:
    from tests.tui.helpers import wait_until

    monkeypatch.setattr(StatusBar, "SHRINK_AFTER", 0.05)
    status, _ = _status()
    app = StatusOnly(status)
    async with app.run_test(size=(_one_line_width(status), 6)) as pilot:
        line = app.query_one(StatusBar)
        await wait_until(pilot, lambda: line.region.height == 1)
        status.show_activity("agent working… esc cancels")
        await wait_until(pilot, lambda: line.region.height == 2)
        status.show_activity("")
        await wait_until(pilot, lambda: line.region.height == 1)


def _one_line_width(status: Status) -> int:
    """A terminal as wide as the idle line in full words, padding included."""
    parts = StatusBar(status).parts()
    return sum(part.cell_len for part in parts) + len(SEPARATOR) * (len(parts) - 1) + 2


async def test_a_part_that_comes_and_goes_during_a_turn_keeps_the_lines_height(
    monkeypatch,
) -> None:
    """A guard toggled while a turn runs (a key every 50 ms in bench.py's TUI part) must
    not make the line shrink and grow again: each change of its height lays out the whole
    screen below it (the 200-turn playback took twice as long). It shrinks once idle."""
    from tests.tui.helpers import wait_until

    monkeypatch.setattr(StatusBar, "SHRINK_AFTER", 0.05)
    status, facts = _status()
    status.show_activity("agent working… esc cancels")
    # As wide as the line in its shorter words with the guard on ("clock" dropped, …).
    one_line = sum(compact(part).cell_len for part in StatusBar(status).parts())
    one_line += len(SEPARATOR) * (len(StatusBar(status).parts()) - 1)
    app = StatusOnly(status)
    async with app.run_test(size=(one_line + 2, 4)) as pilot:  # padding: one column a side
        line = app.query_one(StatusBar)
        await wait_until(pilot, lambda: line.region.height == 1)
        facts.guard = False  # "guard OFF" is one cell longer than "guard on": wraps
        status.changed()
        await wait_until(pilot, lambda: line.region.height == 2)
        facts.guard = True
        status.changed()
        await pilot.pause()
        assert line.region.height == 2  # kept while the turn runs
        status.show_activity("")
        await wait_until(pilot, lambda: line.region.height == 1)


async def test_the_database_s_password_is_not_on_screen() -> None:
    """The `--db` URL is shown where the database came from, its password masked in
    whichever place of the URL it was given (issue 30)."""
    for url, shown_as in (
        (
            "postgresql://alice:S3cret@db.example/airline",
            "postgresql://alice:***@db.example/airline",
        ),
        ("postgresql://alice@db.example/airline?password=S3cret", "?password=***"),
        ("postgres://alice@db.example/airline?pass%77ord=S3cret", "?pass%77ord=***"),
    ):
        status, facts = _status()
        facts.origin = DatabaseOrigin.user(url, built="τ² import")
        app = StatusOnly(status)
        async with app.run_test(size=(250, 3)):
            shown = _on_screen(app)
            assert shown_as in shown and "S3cret" not in shown


class _Displayed:
    """What the app hands the terminal, update by update, as text (styles dropped)."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.updates: list[str] = []
        self._display = app._display
        app._display = self._record  # type: ignore[method-assign]

    def _record(self, screen: object, update: object) -> None:
        self._display(screen, update)  # type: ignore[arg-type]
        if update is not None:
            segments = update.render_segments(self.app.console)  # type: ignore[attr-defined]
            self.updates.append(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", segments))


async def test_a_change_painted_alone_is_on_the_terminal_before_the_next_frame() -> None:
    """A key's change (the guard toggled while a scenario plays) need not wait for the
    screen's next frame and the panes' updates in it: the line's rows go out alone."""
    status, facts = _status()
    app = StatusOnly(status)
    async with app.run_test(size=(250, 3)) as pilot:
        await pilot.pause()
        line = app.query_one(StatusBar)
        shown = _Displayed(app)
        facts.guard = False
        status.changed()
        line.paint_alone()
        assert len(shown.updates) == 1 and "guard OFF" in shown.updates[0]
        line.paint_alone()  # nothing new since
        assert len(shown.updates) == 1
        await pilot.pause()
        assert "guard OFF" in _on_screen(app)
        assert not any("guard" in update for update in shown.updates[1:])  # painted once


async def test_a_line_that_grows_waits_for_the_screen_s_layout() -> None:
    status, facts = _status()
    status.show_activity("agent working… esc cancels")
    one_line = sum(compact(part).cell_len for part in StatusBar(status).parts())
    one_line += len(SEPARATOR) * (len(StatusBar(status).parts()) - 1)
    app = StatusOnly(status)
    async with app.run_test(size=(one_line + 2, 4)) as pilot:
        line = app.query_one(StatusBar)
        await wait_until(pilot, lambda: line.region.height == 1)
        shown = _Displayed(app)
        facts.guard = False  # one cell longer: two lines, the panes below move down
        status.changed()
        line.paint_alone()
        assert shown.updates == []  # the screen's frame lays it out and paints it
        await wait_until(pilot, lambda: line.region.height == 2)
        assert "guard OFF" in _on_screen(app)
