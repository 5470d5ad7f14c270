"""results.json (our contract, documented in docs/eval.md), summary.md, and the comparison
of two runs (`eval --compare`).

results.json holds the run's figures and one record per trial (`TrialResult.to_json`);
a results view reads it alone: each trial names its scenario file, which plays it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, cast

from airline_agent.evaluation.pass_hat_k import pass_hat_ks

if TYPE_CHECKING:  # the results view reads results.json without the domain (sqlmodel)
    from airline_agent.evaluation.tasks import EvalTask
    from airline_agent.evaluation.trial import TrialJson, TrialResult

FORMAT = "airline-agent eval results, version 1"


class Sides(TypedDict):
    agent: dict[str, int]
    user: dict[str, int]


class Costs(TypedDict):
    agent: float | None
    user: float | None
    total: float | None


class ResultsDocument(TypedDict):
    """results.json (docs/eval.md documents each field)."""

    format: str
    like: str
    complete: bool
    tasks: int
    trials_per_task: int
    trials_run: int
    counted_trials: int
    pass_hat_k: dict[str, float | None]
    pass_hat_k_strict: dict[str, float | None]
    average_reward: float | None
    infra_errors: int
    customer_errors: int
    recovered_tool_calls: int
    terminations: dict[str, int]
    tokens: Sides
    cost: Costs
    settings: dict[str, object]  # the run's settings (run.json's), by name
    trials: list[TrialJson]


def _sum_tokens(records: Iterable[TrialResult], side: str) -> dict[str, int]:
    total: Counter[str] = Counter()
    for record in records:
        total.update(getattr(record, side))
    return dict(total)


def _sum_cost(records: Sequence[TrialResult], side: str) -> float | None:
    costs = [record.cost.get(side) for record in records]
    return None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 6)


def results_json(
    tasks: Sequence[EvalTask],
    trials: int,
    records: Sequence[TrialResult],
    *,
    settings: dict[str, object],
    complete: bool,
) -> ResultsDocument:
    order = {task.id: position for position, task in enumerate(tasks)}
    records = sorted(records, key=lambda r: (order.get(r.task_id, len(order)), r.trial))
    counted = [r for r in records if r.counted]
    outcomes = {task.id: [r.success for r in counted if r.task_id == task.id] for task in tasks}
    strict = {
        task.id: [r.strict_success for r in counted if r.task_id == task.id] for task in tasks
    }
    return {
        "format": FORMAT,
        # How the trials were run: "tau2", as τ²-bench's runner runs them; "ours".
        "like": str(settings.get("like", "ours")),
        "complete": complete,  # False: interrupted, some trials not run
        "tasks": len(tasks),
        "trials_per_task": trials,
        "trials_run": len(records),
        "counted_trials": len(counted),
        "pass_hat_k": {str(k): value for k, value in pass_hat_ks(outcomes, trials).items()},
        # A trial that needed a tool call recovered from text counts as failed here.
        "pass_hat_k_strict": {str(k): value for k, value in pass_hat_ks(strict, trials).items()},
        "average_reward": (sum(r.reward for r in counted) / len(counted)) if counted else None,
        "infra_errors": sum(r.infra_error for r in records),
        "customer_errors": sum(r.customer_error for r in records),
        "recovered_tool_calls": sum(r.recovered_tool_calls for r in records),
        "terminations": dict(Counter(r.termination for r in records)),
        "tokens": {
            "agent": _sum_tokens(records, "agent_tokens"),
            "user": _sum_tokens(records, "user_tokens"),
        },
        "cost": {
            "agent": _sum_cost(records, "agent"),
            "user": _sum_cost(records, "user"),
            "total": _sum_cost(records, "total"),
        },
        "settings": settings,
        "trials": [record.to_json() for record in records],
    }


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def like_of(results: Mapping[str, object]) -> str:
    """How a run's trials were run: "tau2" or "ours" (a run from before `--like`: ours)."""
    return str(results.get("like") or "ours")


def describe_like(like: str) -> str:
    """The setting in words, for a heading."""
    return {
        "tau2": "as τ²-bench's runner runs it",
        "ours": "this project's agent and customer",
    }.get(like, like)


def _setting_line(settings: Mapping[str, object], like: str) -> str:
    if like == "tau2":
        return (
            f"- run as τ²-bench's runner runs it (`--like tau2`): τ²'s prompt, tools, greeting "
            f"and customer, temperature {settings.get('temperature')}, seed "
            f"{settings.get('seed')}, at most {settings.get('max_steps')} steps and "
            f"{settings.get('max_errors')} tool errors; search_direct_flight gives "
            '`"date": null` as τ²\'s does'
        )
    return (
        f"- run as this project runs it (`--like ours`): guard "
        f"{'on' if settings.get('guard') else 'off'} · prompt {settings.get('prompt')} · "
        f"at most {settings.get('max_turns')} customer messages · recovery of tool calls "
        f"written as text {'on' if settings.get('recover_text_tool_calls') else 'off'}; "
        "search_direct_flight gives the searched date"
    )


def summary_markdown(results: ResultsDocument) -> str:
    settings = results["settings"]
    lines = [
        "# airline-agent eval",
        "",
        f"- agent: `{settings.get('agent_model')}` · customer: `{settings.get('user_model')}`",
        _setting_line(settings, like_of(results)),
        f"- {results['tasks']} tasks × {results['trials_per_task']} trials: "
        f"{results['trials_run']} run, {results['counted_trials']} counted, "
        f"{results['infra_errors']} infrastructure errors, "
        f"{results['customer_errors']} customer errors (left out of pass^k)"
        + ("" if results["complete"] else " · **interrupted: not every trial ran**"),
        f"- average reward {_figure(results['average_reward'])} · tokens: agent "
        f"{results['tokens']['agent'].get('total', 0):,}, customer "
        f"{results['tokens']['user'].get('total', 0):,} · cost: agent "
        f"{_money(results['cost']['agent'])}, customer {_money(results['cost']['user'])}",
        "",
        "| k | pass^k | pass^k strict |",
        "| --- | --- | --- |",
    ]
    strict = results["pass_hat_k_strict"]
    for k, value in results["pass_hat_k"].items():
        lines.append(f"| {k} | {_figure(value)} | {_figure(strict.get(k))} |")
    if results["recovered_tool_calls"]:
        lines += [
            "",
            f"{results['recovered_tool_calls']} tool calls were written as text and made by "
            "the framework; pass^k strict counts those trials as failed.",
        ]
    lines += ["", "## Tasks", "", "| task | rewards | endings |", "| --- | --- | --- |"]
    by_task: dict[str, list[TrialJson]] = {}
    for trial in results["trials"]:
        by_task.setdefault(trial["task_id"], []).append(trial)
    for task_id, trials in by_task.items():
        rewards = " ".join(mark(t) for t in trials)
        endings = ", ".join(sorted({t["termination"] for t in trials}))
        lines.append(f"| {task_id} | {rewards} | {endings} |")
    failed = [t for t in results["trials"] if mark(t) != "1"]
    if failed:
        lines += ["", "## Failed trials", ""]
    for trial in failed:
        lines += _failure_lines(trial)
    return "\n".join(lines) + "\n"


def mark(trial: TrialJson) -> str:
    """A trial in a table (summary.md, the TUI's results view): its reward, or why it
    is left out of pass^k."""
    if trial["infra_error"]:
        return "infra"
    if trial["customer_error"]:
        return "customer"
    return f"{trial['reward']:g}"


def _failure_lines(trial: TrialJson) -> list[str]:
    lines = [
        f"### task {trial['task_id']}, trial {trial['trial']}: {mark(trial)} "
        f"({trial['termination']})",
        "",
        f"Scenario: `{trial['scenario']}`" if trial["scenario"] else "No scenario: no turn ran.",
    ]
    if trial.get("error"):
        lines.append(f"- error: {trial['error']}")
    if trial["db_match"] is False:
        lines.append("- the database differs from the reference end state:")
        for diff in trial["db_diff"]:
            field = f".{diff['field']}" if diff["field"] else " (whole record)"
            lines.append(
                f"  - `{diff['record']}{field}`: reference `{json.dumps(diff['reference'])}`, "
                f"actual `{json.dumps(diff['actual'])}`"
            )
    if trial["communicate"]["missing"]:
        missing = ", ".join(f"`{info}`" for info in trial["communicate"]["missing"])
        lines.append(f"- never told to the customer: {missing}")
    for finding in trial["findings"]:
        if finding["who"] == "customer":
            lines.append(f"- {finding['why']}")
    return [*lines, ""]


# -- comparing two runs -----------------------------------------------------------------


class ResultsUnreadable(Exception):
    """A results.json that cannot be read as one; says which and why."""


@dataclass(frozen=True)
class TaskChange:
    task_id: str
    before: tuple[int, int] | None  # (successes, counted trials); None: not in that run
    after: tuple[int, int] | None

    def describe(self, side: tuple[int, int] | None) -> str:
        return "–" if side is None else f"{side[0]}/{side[1]}"


def read_results(path: Path) -> ResultsDocument:
    target = path / "results.json" if path.is_dir() else path
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # hostile too
        raise ResultsUnreadable(f"{target}: cannot be read ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ResultsUnreadable(f"{target}: not the results.json of an airline-agent eval run")
    trials = data.get("trials")
    if not isinstance(trials, list) or not all(_a_trial(trial) for trial in trials):
        raise ResultsUnreadable(f"{target}: its trials are not those of an airline-agent eval run")
    # Checked as far as its readers rely on it: its format, and each trial's outcome.
    return cast("ResultsDocument", data)


def _a_trial(trial: object) -> bool:
    """A trial as results.json holds it, as far as reading the run's outcomes needs."""
    return (
        isinstance(trial, dict)
        and isinstance(trial.get("task_id"), str)
        and isinstance(trial.get("reward"), int | float)
        and isinstance(trial.get("infra_error"), bool)
        and isinstance(trial.get("customer_error"), bool)
    )


def task_outcomes(results: ResultsDocument) -> dict[str, tuple[int, int]]:
    outcomes: dict[str, tuple[int, int]] = {}
    for trial in results["trials"]:
        if trial["infra_error"] or trial["customer_error"]:
            continue
        passed, counted = outcomes.get(trial["task_id"], (0, 0))
        success = abs(trial["reward"] - 1.0) <= 1e-6
        outcomes[trial["task_id"]] = (passed + success, counted + 1)
    return outcomes


def setting_difference(before: ResultsDocument, after: ResultsDocument) -> str | None:
    """One line when two runs were made under different settings (`--like`), whose
    outcomes then measure different things; None when the setting is the same."""
    a, b = like_of(before), like_of(after)
    if a == b:
        return None
    return (
        f"the runs were made under different settings: --like {a} ({describe_like(a)}) "
        f"and --like {b} ({describe_like(b)}); a change may be the setting's, not the agent's"
    )


def _rate(side: tuple[int, int] | None) -> float | None:
    return None if not side or not side[1] else side[0] / side[1]


def compare(before: ResultsDocument, after: ResultsDocument) -> list[TaskChange]:
    """The tasks whose outcome (the share of counted trials that passed) changed."""
    old, new = task_outcomes(before), task_outcomes(after)
    changes = []
    for task_id in dict.fromkeys([*old, *new]):
        a, b = old.get(task_id), new.get(task_id)
        if _rate(a) != _rate(b):
            changes.append(TaskChange(task_id, a, b))
    return changes
