"""The results view (`tui --results DIR`) on a run folder made by really running `eval`
in this process, its two models loopback servers (tests/support/eval_roles.py), two
trials of two tasks: the mutant that skips a task's first write fails task 14 (its
cancellation of K1NW8N) and passes task 3 (no write), where the customer invents a
reservation id in the first trial (a customer error).

The table shows every trial's reward; a failed trial's reason names the record and field
that differ; enter plays the trial's scenario in the three panes (its tool calls in the
trace, its outcome in the chat) and `v` brings the results back; a folder that is no
run's is one line and status 2, before the app opens.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.results import ResultsScreen
from tests.conftest import tau2_files
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli
from tests.support.eval_roles import OracleAgent, ScriptedCustomer
from tests.support.eval_run import run_eval
from tests.tui.helpers import chat_notes, wait_until

SIZE = (140, 40)
LOADS = 60  # seconds: a trial's scenario plays on a fresh import of τ²'s db.json


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One eval run for the module (see the module's docstring)."""
    db, tasks = tau2_files()
    out = tmp_path_factory.mktemp("eval") / "run"
    agent = ChatServer(OracleAgent(tasks))
    customer = ChatServer(ScriptedCustomer(tasks, invents={"3": 1}))
    # The module's fixture runs before each test's isolated environment: the same here.
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith(("OPENAI_", "AIRLINE_AGENT_")) and name != "AIRLINE_AGENT_TAU2_DIR":
                patch.delenv(name)
        patch.chdir(out.parent)
        try:
            run = run_eval(
                agent,
                customer,
                out,
                "--task-ids",
                "14,3",
                "--trials",
                "2",
                tasks=db.parent,
                agent_model="oracle-skips-write",
            )
        finally:
            agent.close()
            customer.close()
    assert run.exit_code == 0, run.stderr
    yield out


def _app(run_folder: Path) -> AirlineApp:
    return AirlineApp(AgentController(Settings(), results=run_folder), pace=0)


def _results_read(app: AirlineApp) -> bool:
    return isinstance(app.screen, ResultsScreen) and app.screen.results is not None


def _cell(screen: ResultsScreen, task_id: str, trial: int) -> str:
    return screen.query_one(DataTable).get_cell(task_id, str(trial)).plain


def _reason(screen: ResultsScreen) -> str:
    return str(screen.query_one("#results-reason", Static).render())


async def test_the_table_shows_every_trials_reward(run_folder: Path) -> None:
    app = _app(run_folder)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: _results_read(app), timeout=30)
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        table = screen.query_one(DataTable)
        assert (table.row_count, len(table.columns)) == (2, 2)
        assert [_cell(screen, "14", n) for n in (0, 1)] == ["0", "0"]
        assert [_cell(screen, "3", n) for n in (0, 1)] == ["customer", "1"]
        headline = str(screen.query_one("#results-headline", Static).render())
        assert "2 tasks × 2 trials" in headline
        assert "--like ours" in headline  # how the trials were run: what they measure
        # The customer error is left out: task 3 counts one trial, so k stops at 1.
        assert "pass^1 0.500" in headline and "pass^2" not in headline
        assert "average reward 0.333" in headline
        assert "0 infrastructure errors" in headline and "1 customer error" in headline


async def test_a_failed_trials_reason_names_the_record_and_field(run_folder: Path) -> None:
    app = _app(run_folder)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: _results_read(app), timeout=30)
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        # The cursor starts on the first failure.
        failed = screen.highlighted()
        assert failed is not None and (failed.task_id, failed.trial) == ("14", 0)
        reason = _reason(screen)
        assert reason.startswith("task 14, trial 0: 0")
        assert 'reservations/K1NW8N.status reference "cancelled", actual null' in reason
        assert "0 findings" in reason
        assert screen.results is not None
        await pilot.press("down" if screen.results.task_ids.index("3") else "up")
        await wait_until(pilot, lambda: _reason(screen).startswith("task 3, trial 0: customer"))
        assert "the customer invented reservation id ZZ9QX7" in _reason(screen)
        assert "1 finding" in _reason(screen)
        await pilot.press("right")
        await wait_until(pilot, lambda: _reason(screen).startswith("task 3, trial 1: 1"))
        assert "database and communicate match" in _reason(screen)
        assert "K1NW8N" not in _reason(screen) and "ZZ9QX7" not in _reason(screen)


async def test_enter_plays_the_trial_and_v_brings_the_results_back(run_folder: Path) -> None:
    from airline_agent.scenarios.loader import load_scenario
    from airline_agent.tui.screens.main import MainScreen
    from airline_agent.tui.widgets.trace_pane import TracePane

    scenario = load_scenario(run_folder / "scenarios" / "task-14-trial-0.yaml")
    calls = [
        f"tool {call.name}"
        for turn in scenario.turns
        for response in turn.responses
        for call in response.tool_calls
    ]
    assert calls and "tool cancel_reservation" not in calls  # the mutant skipped it
    app = _app(run_folder)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: _results_read(app), timeout=30)
        await pilot.press("enter")  # on the first failure: task 14, trial 0
        controller = app.controller
        await wait_until(
            pilot,
            lambda: controller.feed.scenario_name == "task-14-trial-0" and chat_notes(app),
            timeout=LOADS,
        )
        assert isinstance(app.screen, MainScreen)
        note = chat_notes(app)[0]
        assert "Task 14, trial 0: reward 0" in note
        assert "reservations/K1NW8N.status" in note
        await pilot.press("a")  # auto-play, instantly (pace 0)
        trace = app.screen.query_one(TracePane)

        def played() -> bool:
            return not controller.feed.steps_left and not app.screen.turn_running

        await wait_until(pilot, played, timeout=LOADS)
        shown = [entry.title for entry in trace.entries if entry.title.startswith("tool ")]
        assert shown == calls
        assert not controller.feed.divergences  # the trial replays as it ran
        await pilot.press("v")
        await wait_until(pilot, lambda: _results_read(app), timeout=30)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))


async def test_a_trial_plays_on_the_tau2_folder_its_run_used(
    run_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The default τ² folder now holds nothing: the run's own (run.json's tasks_dir) is used.
    monkeypatch.setenv("AIRLINE_AGENT_TAU2_DIR", str(tmp_path / "elsewhere"))
    app = _app(run_folder)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: _results_read(app), timeout=30)
        assert app.screen.results.tasks_dir == tau2_files()[0].parent
        await pilot.press("enter")
        controller = app.controller
        await wait_until(
            pilot,
            lambda: controller.feed.scenario_name == "task-14-trial-0" and chat_notes(app),
            timeout=LOADS,
        )
        assert "Task 14, trial 0: reward 0" in chat_notes(app)[0]
        assert controller.feed.tau2 == tau2_files()[0].parent


async def test_v_is_offered_only_with_an_eval_run() -> None:
    from airline_agent.tui.screens.main import MainScreen

    app = AirlineApp(AgentController(Settings()), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        main = next(s for s in app.screen_stack if isinstance(s, MainScreen))
        assert main.check_action("results", ()) is False
        assert main.check_action("library", ()) is True
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert "Results" not in titles and "Library" in titles


async def test_the_palette_offers_the_results_of_a_run(run_folder: Path) -> None:
    app = _app(run_folder)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: _results_read(app), timeout=30)
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert "Results" in titles


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("missing", "missing: no such folder"),
        ("empty", "empty: no results.json here"),
        ("broken", "cannot be read"),
        ("other", "not the results.json of an airline-agent eval run"),
    ],
)
def test_a_folder_that_is_no_run_is_one_line_and_status_2(
    tmp_path: Path, given: str, said: str
) -> None:
    for name, text in (("broken", "{not json"), ("other", '{"tasks": 3}')):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(text)
    (tmp_path / "empty").mkdir()
    result = invoke_cli("tui", "--results", str(tmp_path / given), model=None)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("airline-agent tui: ")
    assert said in lines[0]
    assert "Traceback" not in result.stderr + result.stdout


def test_results_and_a_scenario_together_are_refused(run_folder: Path) -> None:
    result = invoke_cli(
        "tui", "--results", str(run_folder), "--scenario", "cancel-ehglp3", model=None
    )
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "airline-agent tui: --scenario and --results: give one of them"
    )
