"""The run's progress on stderr, drawn by `rich.progress`: trials done of all, passed so
far, errors, tokens, cost, how many are running, and the time left.

On a terminal it is one bar redrawn in place. Anywhere else (a CI log, a pipe, a file) a
redrawn line would leave its control codes behind, so each trial that finishes adds one
plain line instead.
"""

from __future__ import annotations

import datetime

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)

from airline_agent.evaluation.runner import RunState

# The pace is that of the whole run, not of rich's last 30 s: a trial takes minutes.
WHOLE_RUN = 7 * 24 * 3600.0


def summary(state: RunState) -> str:
    """What the bar does not show: passed, errors, tokens, cost, trials running."""
    cost = "cost unknown" if state.cost is None else f"${state.cost:.4f}"
    parts = [f"{state.passed} passed"]
    if state.infra_errors:
        parts.append(f"{state.infra_errors} infra errors")
    if state.customer_errors:
        parts.append(f"{state.customer_errors} customer errors")
    parts += [f"{state.tokens:,} tokens", cost]
    if state.running:
        parts.append(f"{state.running} running")
    return " · ".join(parts)


class EvalProgress:
    """`update(state)` after every change of the run (`run_eval`'s `on_progress`), `end()`
    when it is over."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console if console is not None else Console(stderr=True)
        self.live = self.console.is_terminal
        self.progress = Progress(
            TextColumn("eval"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[summary]}"),
            TimeRemainingColumn(),
            console=self.console,
            # Redrawn when a trial starts or ends: nothing shown changes in between.
            auto_refresh=False,
            speed_estimate_period=WHOLE_RUN,
            disable=not self.live,  # the trials are still counted: the plain lines say so
        )
        self.task: TaskID | None = None
        self.shown_done: int | None = None

    def update(self, state: RunState) -> None:
        if self.task is None:
            # Trials a resumed run finished before are done, but not part of the pace.
            self.task = self.progress.add_task(
                "eval", total=state.total, completed=state.done, summary=summary(state)
            )
            self.progress.start()
        self.progress.update(
            self.task, completed=state.done, summary=summary(state), refresh=self.live
        )
        if not self.live and state.done != self.shown_done:
            self.console.print(self._line(state), highlight=False, markup=False, soft_wrap=True)
        self.shown_done = state.done

    def _line(self, state: RunState) -> str:
        left = state.total - state.done
        if not left:
            eta = "done"
        else:
            [task] = self.progress.tasks
            remaining = task.time_remaining
            eta = "ETA –" if remaining is None else f"ETA {datetime.timedelta(seconds=remaining)}"
        width = len(str(state.total))
        return f"eval {state.done:>{width}}/{state.total} · {summary(state)} · {eta}"

    def end(self) -> None:
        """The bar as it ended stays on the screen; what is written next goes below it."""
        self.progress.stop()
