"""τ²-bench reference runs: each task's reference actions as a scripted conversation.

The scripted model makes one response per action (its tool call, with the action id as
the call id), then a closing reply. It runs through the real loop and tools, guard off
(the benchmark's lenient semantics), on a fresh copy of the imported τ² database. The
report says per task whether every action succeeded and which records changed.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NotRequired, TypedDict

from airline_agent.agent.backends import ScriptedResponse, ScriptedToolCall
from airline_agent.agent.events import AgentEvent, ToolFinished
from airline_agent.agent.loop import LoopOptions
from airline_agent.scenarios import datasets
from airline_agent.scenarios.dbdiff import RecordKey, changed_records, owners_of
from airline_agent.stack import open_existing_database, scripted_stack

CLOSING_REPLY = "That completes the reference solution of this task."


# What these runs read of a task in τ²'s tasks.json (read as it is: a field absent or
# null is read as empty, as τ² reads it).
class Tau2Action(TypedDict):
    name: str
    action_id: NotRequired[str | None]
    arguments: NotRequired[dict[str, object] | None]


class Tau2Criteria(TypedDict, total=False):
    actions: list[Tau2Action] | None


class Tau2Scenario(TypedDict, total=False):
    instructions: dict[str, str] | str | None


class Tau2Task(TypedDict, total=False):
    id: str
    user_scenario: Tau2Scenario | None
    evaluation_criteria: Tau2Criteria | None


@dataclass(frozen=True)
class ActionFailure:
    index: int  # 1-based, in the task's action list
    name: str
    error: str | None  # the error code; None when the call was never made
    message: str


@dataclass
class TaskReport:
    task_id: str
    actions: int
    failures: list[ActionFailure] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # "reservations/ABC123", sorted
    elapsed_ms: float = 0.0
    events: list[AgentEvent] = field(default_factory=list, repr=False)

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, object]:
        return {
            "task": self.task_id,
            "actions": self.actions,
            "ok": self.ok,
            "failures": [
                {"action": f.index, "tool": f.name, "error": f.error, "message": f.message}
                for f in self.failures
            ],
            "changed_records": self.changed,
            "elapsed_ms": round(self.elapsed_ms, 1),
        }


def load_tasks(directory: Path) -> list[Tau2Task]:
    path = Path(directory) / "tasks.json"
    if not path.is_file():
        raise datasets.DatasetUnavailable(f"τ² tasks not found at {path}")
    try:
        tasks = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise datasets.DatasetUnavailable(f"{path}: cannot be read as JSON ({exc})") from exc
    if not isinstance(tasks, list):
        raise datasets.DatasetUnavailable(f"{path}: expected a list of tasks")
    return tasks


def replay_tau2(
    directory: Path, *, verify: bool = False, keep_events: bool = False
) -> list[TaskReport]:
    """Run every task's reference actions. `verify` also diffs each database with SQL
    (slower) and reports a record the tools changed without saying so as a failure."""
    directory = Path(directory)
    tasks = load_tasks(directory)
    datasets.pristine("tau2", directory)  # import once, before the clock starts per task
    return asyncio.run(_replay_all(tasks, directory, verify=verify, keep_events=keep_events))


async def _replay_all(
    tasks: list[Tau2Task], directory: Path, *, verify: bool, keep_events: bool
) -> list[TaskReport]:
    reports = []
    for task in tasks:
        report = await _replay_task(task, directory, verify=verify)
        if not keep_events:
            report.events = []
        reports.append(report)
    return reports


def _actions(task: Tau2Task) -> list[Tau2Action]:
    criteria: Tau2Criteria = task.get("evaluation_criteria") or {}
    return list(criteria.get("actions") or [])


def _opening(task: Tau2Task) -> str:
    scenario: Tau2Scenario = task.get("user_scenario") or {}
    instructions = scenario.get("instructions") or {}
    if isinstance(instructions, dict):
        text = instructions.get("reason_for_call") or ""
    else:
        text = str(instructions)
    return " ".join(text.split()) or f"Task {task.get('id')}"


def _scripted_actions(task_id: str, actions: list[Tau2Action]) -> list[ScriptedResponse]:
    """One scripted response per reference action, then the closing reply."""
    responses = [
        ScriptedResponse(
            tool_calls=(
                ScriptedToolCall(
                    action["name"],
                    action.get("arguments") or {},
                    action.get("action_id") or f"{task_id}_{index}",
                ),
            )
        )
        for index, action in enumerate(actions)
    ]
    return [*responses, ScriptedResponse(content=CLOSING_REPLY)]


async def _replay_task(task: Tau2Task, directory: Path, *, verify: bool) -> TaskReport:

    started = time.perf_counter()
    task_id = str(task.get("id"))
    actions = _actions(task)
    report = TaskReport(task_id, len(actions))
    responses = _scripted_actions(task_id, actions)
    copy, original = datasets.fresh_copy("tau2", f"tau2-{task_id}", directory)
    options = LoopOptions(
        model="scripted",
        stream=False,
        approval="auto",  # the reference actions' writes are made, as τ²'s are
        retries=0,
        grounding=False,
        max_tool_calls=len(actions) + 1,
        max_requests=len(actions) + 2,
    )
    stack = scripted_stack(open_existing_database(copy), options, guard=False, responses=responses)
    try:
        finished: list[ToolFinished] = []
        async for event in stack.session.run_turn(_opening(task)):
            report.events.append(event)
            if isinstance(event, ToolFinished):
                finished.append(event)
    finally:
        stack.close()
    changed: set[RecordKey] = set()
    for index, action in enumerate(actions, start=1):
        if index > len(finished):
            report.failures.append(ActionFailure(index, action["name"], None, "never called"))
            continue
        event = finished[index - 1]
        for change in event.changes:
            changed |= owners_of(change)
        if event.error is not None:
            message = event.result.get("message", "") if isinstance(event.result, dict) else ""
            report.failures.append(ActionFailure(index, event.name, event.error, str(message)))
    if verify:
        actual = changed_records(original, copy)
        for key in sorted(actual - changed):
            report.failures.append(
                ActionFailure(0, "-", None, f"{key[0]}/{key[1]} changed but no tool said so")
            )
        changed = actual
    datasets.discard(copy)
    report.changed = sorted(f"{kind}/{key}" for kind, key in changed)
    report.elapsed_ms = (time.perf_counter() - started) * 1000
    return report
