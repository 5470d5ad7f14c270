"""τ²-bench's airline tasks, read once and typed: what the simulated customer is told,
the reference actions, what the agent must say, and how the reward is made.

A task directory holds τ²'s `tasks.json` and `db.json` (its `LICENSE` beside them). A
missing or malformed one is a `TaskSetError` that says what is wrong; nothing is run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REWARD_BASES = frozenset({"DB", "COMMUNICATE", "ENV_ASSERTION", "NL_ASSERTION", "ACTION"})
SCORED_BASES = frozenset({"DB", "COMMUNICATE"})  # what the airline tasks are scored on


class TaskSetError(Exception):
    """The task directory cannot be used; one sentence says why."""


@dataclass(frozen=True)
class ReferenceAction:
    action_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class CustomerInstructions:
    """The task's `user_scenario`: who the customer is and what it wants."""

    reason_for_call: str
    known_info: str
    unknown_info: str
    task_instructions: str
    persona: str

    def texts(self) -> tuple[str, ...]:
        """Every piece of it, as the customer is given it (what it may state)."""
        return tuple(
            text
            for text in (
                self.persona,
                self.reason_for_call,
                self.known_info,
                self.unknown_info,
                self.task_instructions,
            )
            if text
        )


@dataclass(frozen=True)
class EvalTask:
    id: str
    instructions: CustomerInstructions
    actions: tuple[ReferenceAction, ...]
    communicate_info: tuple[str, ...]
    nl_assertions: tuple[str, ...]  # reported, never scored (τ² needs an LLM judge)
    reward_basis: tuple[str, ...]
    source: dict[str, Any]  # the task as τ² wrote it (tau2_results.json carries it)


@dataclass(frozen=True)
class TaskSet:
    directory: Path
    db_json: Path
    tasks: tuple[EvalTask, ...]

    def select(self, ids: list[str] | None) -> tuple[EvalTask, ...]:
        """The tasks of `ids`, in the given order (all when None); an unknown id is a
        TaskSetError naming it."""
        if ids is None:
            return self.tasks
        by_id = {task.id: task for task in self.tasks}
        unknown = [task_id for task_id in ids if task_id not in by_id]
        if unknown:
            raise TaskSetError(
                f"no task {', '.join(unknown)} in {self.directory / 'tasks.json'} "
                f"(ids {self.tasks[0].id}..{self.tasks[-1].id})"
            )
        return tuple(by_id[task_id] for task_id in dict.fromkeys(ids))


def load_task_set(directory: Path) -> TaskSet:
    directory = Path(directory)
    if not directory.is_dir():
        raise TaskSetError(f"{directory}: not a directory (it should hold tasks.json, db.json)")
    tasks_json, db_json = directory / "tasks.json", directory / "db.json"
    for path in (tasks_json, db_json):
        if not path.is_file():
            raise TaskSetError(f"{path}: not found (a τ² task directory holds tasks.json, db.json)")
    try:
        raw = json.loads(tasks_json.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # hostile too
        raise TaskSetError(f"{tasks_json}: cannot be read as JSON ({exc})") from None
    if not isinstance(raw, list) or not raw:
        raise TaskSetError(f"{tasks_json}: expected a non-empty list of tasks")
    tasks = tuple(_task(item, position, tasks_json) for position, item in enumerate(raw))
    ids = [task.id for task in tasks]
    if len(set(ids)) != len(ids):
        raise TaskSetError(f"{tasks_json}: task ids repeat")
    return TaskSet(directory, db_json, tasks)


def _task(item: Any, position: int, path: Path) -> EvalTask:
    where = f"{path}: task {position + 1}"
    if not isinstance(item, dict) or "id" not in item:
        raise TaskSetError(f"{where}: not a τ² task (no id)")
    where = f"{path}: task {item['id']}"
    scenario = item.get("user_scenario")
    if not isinstance(scenario, dict) or "instructions" not in scenario:
        raise TaskSetError(f"{where}: no user_scenario.instructions")
    criteria = item.get("evaluation_criteria") or {}
    if not isinstance(criteria, dict):
        raise TaskSetError(f"{where}: evaluation_criteria is not an object")
    actions = []
    for index, action in enumerate(criteria.get("actions") or []):
        if not isinstance(action, dict) or not isinstance(action.get("name"), str):
            raise TaskSetError(f"{where}: action {index + 1} has no tool name")
        arguments = action.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise TaskSetError(f"{where}: action {index + 1}'s arguments are not an object")
        action_id = str(action.get("action_id") or f"{item['id']}_{index}")
        actions.append(ReferenceAction(action_id, action["name"], arguments))
    basis = tuple(criteria.get("reward_basis") or ("DB", "COMMUNICATE"))
    unknown = [b for b in basis if b not in REWARD_BASES]
    if unknown:
        raise TaskSetError(f"{where}: unknown reward basis {', '.join(map(str, unknown))}")
    unsupported = [b for b in basis if b not in SCORED_BASES]
    if unsupported:
        raise TaskSetError(
            f"{where}: reward basis {', '.join(unsupported)} is not scored here (DB and "
            "COMMUNICATE are, as for τ²'s airline tasks)"
        )
    return EvalTask(
        id=str(item["id"]),
        instructions=_instructions(scenario, where),
        actions=tuple(actions),
        communicate_info=tuple(str(info) for info in criteria.get("communicate_info") or ()),
        nl_assertions=tuple(str(text) for text in criteria.get("nl_assertions") or ()),
        reward_basis=basis,
        source=item,
    )


def _instructions(scenario: dict[str, Any], where: str) -> CustomerInstructions:
    given = scenario["instructions"]
    persona = str(scenario.get("persona") or "")
    if isinstance(given, str):  # τ² also allows plain text
        return CustomerInstructions(given, "", "", "", persona)
    if not isinstance(given, dict):
        raise TaskSetError(f"{where}: user_scenario.instructions is neither text nor an object")

    def text(name: str) -> str:
        value = given.get(name)
        return "" if value is None else str(value).strip()

    return CustomerInstructions(
        reason_for_call=text("reason_for_call"),
        known_info=text("known_info"),
        unknown_info=text("unknown_info"),
        task_instructions=text("task_instructions"),
        persona=persona,
    )
