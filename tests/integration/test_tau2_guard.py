"""τ²-bench reference solutions with the guard on (issue 13): each task's reference
actions run through our tools acting for the task's customer, as `call … --as USER`
would, on a fresh import each, and must give the reference database changes (the
independent oracle of tests/support/tau2_oracle.py).

τ²'s `cancel_reservation` carries no reason, so where X3 depends on it (an insured
reservation booked more than 24 hours ago) the guard asks for it; the run then supplies
the reason that the task's customer gives in the task's instructions.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.domain.tau2 import export_tau2
from airline_agent.scenarios.dbdiff import changed_records
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import ToolOutcome
from airline_agent.tools.toolbox import Toolbox
from tests.support import tau2_batches, tau2_oracle
from tests.support.fixtures import Tau2Reference
from tests.support.toolbox_fixtures import Tools

CLOCK = Clock.at("2024-05-15T15:00:00")

# The reason each task's customer gives for a cancellation the guard asks about, quoted
# from the task's instructions (task id → reservation → reason).
CUSTOMER_REASONS: dict[str, dict[str, str]] = {
    "7": {"59XX6W": "health"},  # "You are sick."
    # "If basic economy cannot be modified, you are willing to cancel the trip using the
    # travel insurance as you feel unwell."
    "19": {"Z7GOZK": "health"},
    # "Since you took insurance for this trip, you want change fees waived (mention your
    # health problem at the start of the conversation)."
    "29": {"VA5SGQ": "health"},
    # "Even if the agent says you will not receive a refund for some of them, you want to
    # proceed anyway so that you can give up your seat for someone else who needs it."
    "39": {"MSJ4OA": "other"},
}

# Where the policy and the reference solution disagree, the guard keeps to the policy
# (task id → reservation → rule). Task 39's reference cancels MSJ4OA, an insured economy
# trip booked 2024-05-05 with no flight cancelled, although its customer gives no reason
# the insurance covers (X3: health or weather only).
POLICY_REFUSES: dict[str, dict[str, str]] = {"39": {"MSJ4OA": "X3"}}

_USER_ID = re.compile(r"user id is\W*([a-z]+(?:_[a-z]+)*_\d+)", re.IGNORECASE)


def acting_for(database: Database, customer: str) -> Tools:
    """The tools of a conversation bound to `customer`, guard on, as `call --as USER`
    builds them (stack.tool_caller)."""
    return Tools(Toolbox(database, clock=CLOCK, guard=True), ToolConversation(customer=customer))


def task_customer(task: dict[str, Any]) -> str:
    """The user id the task's customer states (known info first, then instructions)."""
    instructions = task["user_scenario"]["instructions"]
    for part in ("known_info", "task_instructions", "reason_for_call"):
        found = _USER_ID.search(instructions.get(part) or "")
        if found:
            return found.group(1)
    raise AssertionError(f"task {task['id']} states no user id")


def _actions(task: dict[str, Any]) -> list[dict[str, Any]]:
    return (task.get("evaluation_criteria") or {}).get("actions") or []


def _cancel_with_reason(
    tools: Tools, arguments: dict[str, Any], asked: ToolOutcome, reason: str
) -> ToolOutcome:
    """The guard asked why (X3); call again with the customer's reason."""
    assert (asked.error, asked.result.get("rule")) == ("POLICY_VIOLATION", "X3"), asked.result
    assert "reason" in asked.result["message"], asked.result
    return tools.call("cancel_reservation", {**arguments, "reason": reason})


def _run_task(
    tau2_reference: Tau2Reference, task: dict[str, Any], tmp_path: Path
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Replay the task guarded: the database after it (None when an SQL diff finds it
    unchanged, which saves a full export), and the writes that took effect."""
    task_id = str(task["id"])
    reasons = dict(CUSTOMER_REASONS.get(task_id, {}))
    refusals = POLICY_REFUSES.get(task_id, {})
    customer = task_customer(task)
    assert customer in tau2_reference.initial["users"], (task_id, customer)
    database = tau2_reference.fresh(tmp_path)
    try:
        tools = acting_for(database, customer)
        applied = []
        for action in _actions(task):
            arguments = action["arguments"]
            outcome = tools.call(action["name"], arguments)
            reservation = str(arguments.get("reservation_id", ""))
            if action["name"] == "cancel_reservation" and reservation in reasons:
                outcome = _cancel_with_reason(tools, arguments, outcome, reasons.pop(reservation))
            if reservation in refusals and action["name"] == "cancel_reservation":
                assert outcome.result.get("rule") == refusals[reservation], outcome.result
                continue
            assert outcome.error is None, (task_id, action, outcome.result)
            if tools.is_write(action["name"]):
                applied.append(action)
        assert not reasons, f"task {task_id}: no cancellation of {sorted(reasons)} to give a reason"
        if not changed_records(tau2_reference.path, tau2_reference.copy_path(tmp_path)):
            return None, applied
        return export_tau2(database), applied
    finally:
        database.close()


@pytest.mark.parametrize("task_id", [str(number) for number in range(50)])
def test_reference_solution_with_the_guard_on(
    tau2_reference: Tau2Reference, task_id: str, tmp_path: Path
) -> None:
    task = next((t for t in tau2_reference.tasks if str(t["id"]) == task_id), None)
    assert task is not None, f"tasks.json has no task {task_id}"
    after, applied = _run_task(tau2_reference, task, tmp_path)
    if after is None:
        assert applied == [], f"task {task_id}: its writes changed nothing"
        return
    expected = tau2_batches.copied_on_use(tau2_reference.initial)
    for action in applied:
        tau2_oracle.apply(expected, action["name"], action["arguments"])
    assert after == expected, f"task {task_id}"


def test_the_fifty_tasks_are_those_replayed(tau2_reference: Tau2Reference) -> None:
    assert sorted(str(t["id"]) for t in tau2_reference.tasks) == sorted(
        str(number) for number in range(50)
    )


def test_without_the_customers_reason_the_guard_asks_for_it(
    tau2_reference: Tau2Reference, tmp_path: Path
) -> None:
    """The X3 cases stop at the question when no reason is given, and change nothing."""
    for task_id, reservations in CUSTOMER_REASONS.items():
        task = next(t for t in tau2_reference.tasks if str(t["id"]) == task_id)
        database = tau2_reference.fresh(tmp_path)
        try:
            tools = acting_for(database, task_customer(task))
            for reservation in reservations:
                asked = tools.call("cancel_reservation", {"reservation_id": reservation})
                assert asked.result.get("rule") == "X3", (task_id, asked.result)
                assert "reason" in asked.result["message"]
                assert asked.changes == ()
        finally:
            database.close()


def test_task_39_is_refused_only_for_its_uncovered_reason(
    tau2_reference: Tau2Reference, tmp_path: Path
) -> None:
    """The disagreement is about the reason alone: with a covered one, MSJ4OA cancels."""
    task = next(t for t in tau2_reference.tasks if str(t["id"]) == "39")
    database = tau2_reference.fresh(tmp_path)
    try:
        tools = acting_for(database, task_customer(task))
        refused = tools.call("cancel_reservation", {"reservation_id": "MSJ4OA", "reason": "other"})
        assert refused.result.get("rule") == "X3"
        covered = tools.call("cancel_reservation", {"reservation_id": "MSJ4OA", "reason": "health"})
        assert covered.error is None and covered.result["status"] == "cancelled"
    finally:
        database.close()
