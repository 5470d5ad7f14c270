"""What `eval` shows of its progress (evaluation/progress.py, drawn by rich): trials done of
all, passed, errors, tokens, cost and what is running; on a terminal a bar redrawn in
place, anywhere else one plain line per finished trial, with no control codes."""

from __future__ import annotations

import io

from rich.console import Console

from airline_agent.evaluation.progress import EvalProgress, summary
from airline_agent.evaluation.runner import RunState


def _console(*, terminal: bool) -> tuple[Console, io.StringIO]:
    written = io.StringIO()
    return Console(file=written, force_terminal=terminal, width=160), written


def _run(progress: EvalProgress, total: int = 4) -> RunState:
    """A run of `total` trials, two at a time; one is an infra error."""
    state = RunState(total=total, cost=0.0)
    progress.update(state)
    for trial in range(total):
        state.running += 1
        progress.update(state)
        state.running -= 1
        state.done += 1
        state.passed += trial != 0
        state.infra_errors += trial == 0
        state.tokens += 1500
        state.cost = (state.cost or 0.0) + 0.0025
        progress.update(state)
    progress.end()
    return state


def test_the_summary_says_what_the_bar_does_not() -> None:
    state = RunState(total=10, done=4, passed=3, infra_errors=1, tokens=12345, cost=0.01)
    state.running = 2
    assert summary(state) == "3 passed · 1 infra errors · 12,345 tokens · $0.0100 · 2 running"
    quiet = RunState(total=10, customer_errors=2, cost=None)
    assert summary(quiet) == "0 passed · 2 customer errors · 0 tokens · cost unknown"


def test_off_a_terminal_each_finished_trial_is_one_plain_line() -> None:
    console, written = _console(terminal=False)
    _run(EvalProgress(console))
    text = written.getvalue()
    assert "\x1b" not in text and "\r" not in text  # no control codes in a log
    lines = text.splitlines()
    assert [line.split(" · ")[0] for line in lines] == [
        "eval 0/4",
        "eval 1/4",
        "eval 2/4",
        "eval 3/4",
        "eval 4/4",
    ]
    assert lines[1].startswith("eval 1/4 · 0 passed · 1 infra errors · 1,500 tokens · $0.0025")
    assert lines[0].endswith("ETA –") and lines[-1].endswith(" · done")
    assert all("ETA" in line for line in lines[:-1])


def test_a_resumed_run_starts_from_the_trials_it_kept() -> None:
    console, written = _console(terminal=False)
    progress = EvalProgress(console)
    progress.update(RunState(total=6, done=4, resumed=4, passed=4))
    progress.end()
    assert written.getvalue().startswith("eval 4/6 · 4 passed · 0 tokens · $0.0000 · ETA –")


def test_on_a_terminal_the_bar_shows_the_counts_and_what_is_running() -> None:
    console, written = _console(terminal=True)
    progress = EvalProgress(console)
    state = RunState(total=4, done=1, passed=1, tokens=900, cost=0.5)
    state.running = 2
    progress.update(state)
    shown = written.getvalue()
    assert "1/4" in shown and "1 passed" in shown and "2 running" in shown and "$0.5000" in shown
    state.running, state.done, state.passed = 0, 4, 3
    progress.update(state)
    progress.end()
    final = written.getvalue()[len(shown) :]
    assert "4/4" in final and "3 passed" in final and "running" not in final
    assert final.replace("\x1b[?25h", "").endswith("\n")  # what comes next goes below it
