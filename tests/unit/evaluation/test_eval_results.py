"""results.json's figures: which trials count (infrastructure and customer errors do not),
pass^k and its strict twin over the counted ones, the average reward, the sums of errors,
endings, tokens and costs (unknown when any trial's is), the trials in task order; a
trial's mark; and what `eval --compare` says changed between two runs."""

from __future__ import annotations

import pytest

from airline_agent.evaluation.results import (
    FORMAT,
    TaskChange,
    compare,
    mark,
    results_json,
    task_outcomes,
)
from airline_agent.evaluation.tasks import CustomerInstructions, EvalTask
from airline_agent.evaluation.trial import TrialJson, TrialResult


def _task(task_id: str) -> EvalTask:
    return EvalTask(
        task_id, CustomerInstructions("r", "", "", "", ""), (), (), (), ("DB",), {"id": task_id}
    )


def _record(task_id: str, trial: int, reward: float = 1.0, **fields) -> TrialResult:
    values = {
        "task_id": task_id,
        "trial": trial,
        "reward": reward,
        "db_match": reward == 1.0,
        "db_diff": [],
        "communicate": {"expected": [], "missing": []},
        "termination": "customer_stop",
        "turns": 1,
        "agent_tokens": {"prompt": 10, "completion": 2, "cached": 0, "total": 12},
        "user_tokens": {"prompt": 5, "completion": 1, "cached": 0, "total": 6},
        "cost": {"agent": 0.25, "user": 0.125, "total": 0.375},
        "findings": [],
        "scenario": f"scenarios/task-{task_id}-trial-{trial}.yaml",
    }
    return TrialResult(**(values | fields))


TASKS = (_task("3"), _task("1"))


def test_every_figure_of_a_run() -> None:
    records = [
        _record("1", 1, 0.0),
        _record("1", 0),
        _record("3", 0),
        _record("3", 1, recovered_tool_calls=2),
        _record("3", 2, 0.0, infra_error=True, termination="infrastructure_error"),
        _record("1", 2, 0.0, customer_error=True),
    ]
    results = results_json(TASKS, 3, records, settings={"guard": False}, complete=False)
    assert results["format"] == FORMAT
    assert results["complete"] is False
    assert (results["tasks"], results["trials_per_task"]) == (2, 3)
    assert (results["trials_run"], results["counted_trials"]) == (6, 4)
    # task 3: two counted, both passed; task 1: two counted, one passed
    assert results["pass_hat_k"] == {"1": pytest.approx(0.75), "2": pytest.approx(0.5)}
    # strict: task 3's second trial needed recovered calls
    assert results["pass_hat_k_strict"] == {"1": pytest.approx(0.5), "2": pytest.approx(0.0)}
    assert results["average_reward"] == pytest.approx(0.75)
    assert (results["infra_errors"], results["customer_errors"]) == (1, 1)
    assert results["recovered_tool_calls"] == 2
    assert results["terminations"] == {"customer_stop": 5, "infrastructure_error": 1}
    assert results["tokens"] == {
        "agent": {"prompt": 60, "completion": 12, "cached": 0, "total": 72},
        "user": {"prompt": 30, "completion": 6, "cached": 0, "total": 36},
    }
    assert results["cost"] == {"agent": 1.5, "user": 0.75, "total": 2.25}
    assert results["settings"] == {"guard": False}
    # in the tasks' order, then by trial
    assert [(t["task_id"], t["trial"]) for t in results["trials"]] == [
        ("3", 0),
        ("3", 1),
        ("3", 2),
        ("1", 0),
        ("1", 1),
        ("1", 2),
    ]
    assert results["trials"][0] == _record("3", 0).to_json()


def test_a_trial_of_no_task_of_the_run_comes_last() -> None:
    records = [_record("9", 0), _record("1", 0), _record("3", 0)]
    results = results_json(TASKS, 1, records, settings={}, complete=True)
    assert [t["task_id"] for t in results["trials"]] == ["3", "1", "9"]
    assert results["complete"] is True


def test_an_unknown_cost_makes_the_sum_unknown() -> None:
    records = [_record("3", 0), _record("1", 0, cost={"agent": None, "user": 0.5, "total": None})]
    cost = results_json(TASKS, 1, records, settings={}, complete=True)["cost"]
    assert cost == {"agent": None, "user": 0.625, "total": None}
    rounded = [_record("3", 0, cost={"agent": 0.1234564, "user": 0.0, "total": 0.1234564})]
    cost = results_json(TASKS, 1, rounded, settings={}, complete=True)["cost"]
    assert cost == {"agent": 0.123456, "user": 0.0, "total": 0.123456}  # a free trial: 0


def test_a_run_where_nothing_counted() -> None:
    records = [_record("3", 0, 0.0, infra_error=True), _record("1", 0, 0.0, customer_error=True)]
    results = results_json(TASKS, 1, records, settings={}, complete=True)
    assert results["pass_hat_k"] == {} and results["pass_hat_k_strict"] == {}
    assert results["average_reward"] is None and results["counted_trials"] == 0
    empty = results_json(TASKS, 1, [], settings={}, complete=False)
    assert empty["tokens"] == {"agent": {}, "user": {}}
    assert empty["cost"] == {"agent": 0.0, "user": 0.0, "total": 0.0}
    assert empty["terminations"] == {} and empty["trials"] == []


def test_pass_k_stops_at_the_fewest_counted_trials() -> None:
    records = [_record("3", 0), _record("3", 1), _record("1", 0), _record("1", 1, 0.5)]
    records.append(_record("1", 2, 0.0, infra_error=True))
    results = results_json(TASKS, 3, records, settings={}, complete=True)
    assert results["pass_hat_k"] == {"1": pytest.approx(0.75), "2": pytest.approx(0.5)}
    assert results["average_reward"] == pytest.approx(0.875)  # 0.5 is no success


@pytest.mark.parametrize(
    ("fields", "shown"),
    [
        ({"reward": 1.0}, "1"),
        ({"reward": 0.0}, "0"),
        ({"reward": 0.5}, "0.5"),
        ({"reward": 1.0, "infra_error": True}, "infra"),
        ({"reward": 1.0, "customer_error": True}, "customer"),
        ({"reward": 1.0, "infra_error": True, "customer_error": True}, "infra"),
    ],
)
def test_a_trial_s_mark(fields, shown) -> None:
    trial = {"infra_error": False, "customer_error": False} | fields
    assert mark(trial) == shown


def _run(*trials: tuple[str, float, str]) -> dict:
    """results.json's trials: (task id, reward, "" / "infra" / "customer")."""
    return {
        "trials": [
            {
                "task_id": task_id,
                "reward": reward,
                "infra_error": left_out == "infra",
                "customer_error": left_out == "customer",
            }
            for task_id, reward, left_out in trials
        ]
    }


def test_task_outcomes_count_the_counted_trials_and_their_successes() -> None:
    run = _run(
        ("1", 1.0, ""),
        ("1", 0.0, ""),
        ("1", 1.0, "infra"),
        ("2", 1.0, "customer"),
        ("3", 1.0 - 1e-7, ""),  # a success, as a float sum may give it
        ("3", 1.0 - 1e-5, ""),  # not one
        ("4", 0.0, ""),
    )
    assert task_outcomes(run) == {"1": (1, 2), "3": (1, 2), "4": (0, 1)}


def test_compare_lists_each_task_whose_share_of_passes_changed() -> None:
    before = _run(("1", 1.0, ""), ("2", 1.0, ""), ("3", 0.0, ""), ("4", 1.0, ""), ("6", 1.0, ""))
    after = _run(
        ("1", 1.0, ""),  # same
        ("2", 0.0, ""),  # worse
        ("3", 1.0, ""),
        ("3", 0.0, ""),  # better: 1 of 2
        ("4", 1.0, ""),
        ("4", 1.0, ""),  # 2 of 2 is 1 of 1: the same share
        ("5", 1.0, ""),  # new
        ("6", 1.0, "infra"),  # nothing counted now
    )
    assert compare(before, after) == [
        TaskChange("2", (1, 1), (0, 1)),
        TaskChange("3", (0, 1), (1, 2)),
        TaskChange("6", (1, 1), None),
        TaskChange("5", None, (1, 1)),
    ]
    assert compare(after, after) == []
    change = TaskChange("3", (0, 1), None)
    assert (change.describe(change.before), change.describe(change.after)) == ("0/1", "–")


def test_each_task_s_pass_k_is_of_its_own_trials() -> None:
    """Tasks with different numbers of counted trials: each task's own outcomes."""
    tasks = (_task("a"), _task("b"), _task("c"))
    records = [_record("a", 0)]
    records += [_record("b", n, 0.0) for n in range(2)]
    records += [_record("c", n) for n in range(3)]
    results = results_json(tasks, 3, records, settings={}, complete=True)
    assert results["pass_hat_k"] == {"1": pytest.approx(2 / 3)}
    assert results["pass_hat_k_strict"] == {"1": pytest.approx(2 / 3)}


def test_a_trials_line_has_every_field_of_its_record_by_name() -> None:
    record = _record("3", 0)
    line = record.to_json()
    assert list(line) == list(record.__dataclass_fields__)
    assert list(TrialJson.__annotations__) == list(record.__dataclass_fields__)
    assert dict(line) == {name: getattr(record, name) for name in record.__dataclass_fields__}
    assert TrialResult.from_json(dict(line)) == record
