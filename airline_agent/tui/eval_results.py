"""An eval run as the results view shows it (`tui --results DIR`): the run's figures, one
outcome per task and trial, and for each the reason in one line.

Read from the run's results.json alone (`evaluation.results.read_results`, our contract):
each trial names its scenario file, which plays it. Plain data, no Textual: the screen
renders it (screens/results.py), the controller plays a trial and says its outcome.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from airline_agent.evaluation.results import (
    ResultsUnreadable,
    describe_like,
    like_of,
    mark,
    read_results,
)
from airline_agent.evaluation.run_folder import RUN_FILE, RunFolder
from airline_agent.tui.unusable_results import ResultsUnusable

if TYPE_CHECKING:
    from airline_agent.evaluation.results import ResultsDocument
    from airline_agent.evaluation.trial import TrialJson
    from airline_agent.tools.untrusted import JsonValue

RESULTS_FILE = "results.json"


@dataclass(frozen=True)
class TrialOutcome:
    """One cell of the table: a trial's mark and why it scored what it did."""

    task_id: str
    trial: int
    mark: str  # "1", "0", "infra", "customer" (evaluation.results.mark)
    reason: str  # one line: what failed (records and fields, what was never told, …)
    findings: tuple[str, ...]  # each finding's sentence, the customer's and the agent's
    scenario: Path | None  # the trial's scenario file (None: no turn ran, nothing to play)

    @property
    def passed(self) -> bool:
        return self.mark == "1"

    def describe(self) -> str:
        """The outcome in words, for the chat when the trial plays."""
        head = f"Task {self.task_id}, trial {self.trial}: {_MARK_WORDS.get(self.mark, self.mark)}"
        findings = f" Findings: {'; '.join(self.findings)}." if self.findings else ""
        return f"{head} — {self.reason}.{findings}"


_MARK_WORDS = {
    "1": "reward 1",
    "0": "reward 0",
    "infra": "infrastructure error (left out of pass^k)",
    "customer": "customer error (left out of pass^k)",
}


@dataclass(frozen=True)
class EvalResults:
    """A run: its headline figures and every trial's outcome, tasks in the run's order."""

    folder: Path
    headline: str  # "pass^1 0.667 · pass^2 0.333 · average reward 0.667 · …"
    task_ids: tuple[str, ...]
    trials_per_task: int
    outcomes: dict[tuple[str, int], TrialOutcome]
    complete: bool  # False: the run was interrupted, some trials never ran
    # How the trials were run (results.json's `like`): "tau2", as τ²-bench's runner runs
    # them, or "ours"; the headline says it, since the two measure different things.
    like: str = "ours"
    # The τ² folder the run's tasks and database came from (run.json's `tasks_dir`), where
    # its trials are played again; None: not recorded or gone (the default τ² data then).
    tasks_dir: Path | None = None

    def outcome(self, task_id: str, trial: int) -> TrialOutcome | None:
        return self.outcomes.get((task_id, trial))

    @property
    def trial_numbers(self) -> range:
        ran = [trial for _, trial in self.outcomes]
        return range(max([self.trials_per_task - 1, *ran]) + 1)


def results_file(given: Path) -> Path:
    """The results.json of `given` (a run folder, or the file itself); raises
    ResultsUnusable when there is none."""
    if given.is_dir():
        target = given / RESULTS_FILE
        if not target.is_file():
            raise ResultsUnusable(f"{given}: no {RESULTS_FILE} here; give an eval run's folder")
        return target
    if given.is_file():
        return given
    raise ResultsUnusable(f"{given}: no such folder; give an eval run's folder (eval --out)")


def read_eval_results(given: Path) -> EvalResults:
    """The run at `given`, every trial's outcome worked out; raises ResultsUnusable."""
    target = results_file(given)
    try:
        results = read_results(target)
        return _eval_results(target.parent, results, _tasks_dir(target.parent))
    except ResultsUnreadable as exc:
        raise ResultsUnusable(str(exc)) from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        # A results.json of our format whose figures are not as the contract says.
        raise ResultsUnusable(f"{target}: not as an eval run writes it ({exc!r})") from None


def _tasks_dir(folder: Path) -> Path | None:
    """The run's τ² folder, when its run.json names one that still holds a db.json."""
    run = RunFolder(folder).read_json(RUN_FILE)
    settings = run.get("settings") if isinstance(run, dict) else None
    recorded = settings.get("tasks_dir") if isinstance(settings, dict) else None
    if not isinstance(recorded, str) or not recorded:
        return None
    directory = Path(recorded)
    if not directory.is_absolute():
        directory = folder / directory
    return directory if (directory / "db.json").is_file() else None


def _eval_results(
    folder: Path, results: ResultsDocument, tasks_dir: Path | None = None
) -> EvalResults:
    outcomes: dict[tuple[str, int], TrialOutcome] = {}
    for trial in results["trials"]:
        scenario = trial.get("scenario")
        outcomes[(str(trial["task_id"]), int(trial["trial"]))] = TrialOutcome(
            task_id=str(trial["task_id"]),
            trial=int(trial["trial"]),
            mark=mark(trial),
            reason=failure_reason(trial),
            findings=tuple(str(f["why"]) for f in trial.get("findings") or ()),
            scenario=folder / scenario if scenario else None,
        )
    task_ids = tuple(dict.fromkeys(task_id for task_id, _ in outcomes))
    return EvalResults(
        folder=folder,
        headline=_headline(results),
        task_ids=task_ids,
        trials_per_task=int(results["trials_per_task"]),
        outcomes=outcomes,
        complete=bool(results.get("complete", True)),
        tasks_dir=tasks_dir,
        like=like_of(results),
    )


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _headline(results: ResultsDocument) -> str:
    like = like_of(results)
    setting = f"--like {like}: {describe_like(like)}"
    if like == "tau2" and isinstance(results.get("settings"), dict):
        setting += f", seed {results['settings'].get('seed')}"
    figures = [f"pass^{k} {_figure(v)}" for k, v in results["pass_hat_k"].items()]
    strict = results.get("pass_hat_k_strict") or {}
    if results.get("recovered_tool_calls") and strict != results["pass_hat_k"]:
        figures += [f"strict pass^{k} {_figure(v)}" for k, v in strict.items()]
    figures.append(f"average reward {_figure(results['average_reward'])}")
    infra, customer = results["infra_errors"], results["customer_errors"]
    figures.append(f"{infra} infrastructure error{'s' * (infra != 1)}")
    figures.append(f"{customer} customer error{'s' * (customer != 1)}")
    run = f"{results['tasks']} tasks × {results['trials_per_task']} trials"
    if not results.get("complete", True):
        run += ", interrupted"
    return " · ".join([setting, run, *figures])


def failure_reason(trial: TrialJson) -> str:
    """Why the trial scored what it did, in one line: the database records and fields
    that differ from the reference end state, the information never told, how it ended,
    its findings."""
    parts: list[str] = []
    if trial["customer_error"]:  # the findings say what it invented
        parts.append("the simulated customer stated what it was never given")
    if trial.get("error"):
        parts.append(str(trial["error"]))
    if trial["db_match"] is False:
        parts.append("database differs: " + "; ".join(_difference(d) for d in trial["db_diff"]))
    missing = trial["communicate"]["missing"]
    if missing:
        parts.append("never told: " + ", ".join(json.dumps(info) for info in missing))
    if trial["db_match"] is None and not trial["infra_error"]:
        parts.append("not evaluated (τ² scores only a call that ended by a stop)")
    if not parts:
        parts.append("database and communicate match" if trial["reward"] >= 1 else "reward 0")
    findings = len(trial.get("findings") or ())
    turns = trial["turns"]
    parts.append(f"ended by {trial['termination']} after {turns} turn{'s' * (turns != 1)}")
    parts.append(f"{findings} finding{'s' * (findings != 1)}")
    return " · ".join(parts)


def _difference(diff: dict[str, JsonValue]) -> str:
    field = f".{diff['field']}" if diff["field"] else " (whole record)"
    return (
        f"{diff['record']}{field} reference {json.dumps(diff['reference'])}, "
        f"actual {json.dumps(diff['actual'])}"
    )
