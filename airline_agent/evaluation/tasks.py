"""τ²-bench's airline tasks, read once and typed: what the simulated customer is told,
the reference actions, what the agent must say, and how the reward is made.

A task directory holds τ²'s `tasks.json` and `db.json` (its `LICENSE` beside them). A
missing or malformed one is a `TaskSetError` that says what is wrong; nothing is run.

A task id is data, text as τ² types it (`Task.id: str`), and names the files of its trials
(`file_stem`): any text is kept ("a/b", "../x", ".", "Ünïcode"), and written in a file name
so that two ids never name one file, even where a file system ignores case. Refused, in
one line that shows the id escaped: an id that is not text, is empty, holds a character a
terminal obeys or that reorders what follows (an escape sequence, a NUL, a bidirectional
override: ids are printed in tables and messages), is not valid Unicode, or is too long to
name a file by.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from airline_agent.terminal_text import escape_controls
from airline_agent.tools.untrusted import JsonObject

REWARD_BASES = frozenset({"DB", "COMMUNICATE", "ENV_ASSERTION", "NL_ASSERTION", "ACTION"})
SCORED_BASES = frozenset({"DB", "COMMUNICATE"})  # what the airline tasks are scored on
# The longest a task id may be once written for its trials' names (`file_stem`): a file
# name has at most 255 bytes; the trial's number, suffix and temporary name take the rest.
MAX_STEM = 200
# An id of lower-case letters and digits names its files as it is; any other is written
# as `x-` and the hex of its UTF-8 bytes (a plain id holds no dash: the two never meet).
_PLAIN_ID = re.compile(r"[a-z0-9]+")
_SHOWN = 40  # characters of an id shown in a message
_JSON_KINDS = {
    list: "a list",
    dict: "an object",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}


class TaskSetError(Exception):
    """The task directory cannot be used; one sentence says why."""


@dataclass(frozen=True)
class ReferenceAction:
    action_id: str
    name: str
    arguments: JsonObject


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
    source: JsonObject  # the task as τ² wrote it (tau2_results.json carries it)


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
        unknown = [shown_id(task_id) for task_id in ids if task_id not in by_id]
        if unknown:
            raise TaskSetError(
                f"no task {', '.join(unknown)} in {self.directory / 'tasks.json'} "
                f"(ids {shown_id(self.tasks[0].id)}..{shown_id(self.tasks[-1].id)})"
            )
        return tuple(by_id[task_id] for task_id in dict.fromkeys(ids))


def file_stem(task_id: str) -> str:
    """The task id as its trials' scenario name and part of their file names: one to one,
    and only lower-case letters, digits and dashes (a scenario's name; no file system
    takes two of them for one file, none reaches outside its folder)."""
    if _PLAIN_ID.fullmatch(task_id):
        return task_id
    return "x-" + task_id.encode("utf-8", "surrogatepass").hex()


def shown_id(task_id: str) -> str:
    """The id as a message shows it: escaped (never a raw control character, a lone
    surrogate as `\\udXXX`), and cut short when long."""
    shown = escape_controls(task_id[:_SHOWN]).encode("utf-8", "backslashreplace").decode()
    return shown if len(task_id) <= _SHOWN else f"{shown}… ({len(task_id)} characters)"


def _unusable_id(task_id: str) -> str | None:
    """Why a task id cannot be used (see the module's docstring), or None."""
    if not task_id:
        return "is empty"
    if escape_controls(task_id) != task_id:
        return "holds control characters (an escape sequence, a NUL, a direction override)"
    try:
        task_id.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode text (a lone surrogate)"
    if len(file_stem(task_id)) > MAX_STEM:
        return (
            f"is too long to name its trials' files by (at most {MAX_STEM} lower-case "
            f"letters and digits, or {(MAX_STEM - 2) // 2} bytes of other text)"
        )
    return None


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
        repeated = next(task_id for task_id in ids if ids.count(task_id) > 1)
        raise TaskSetError(f"{tasks_json}: task ids repeat ('{shown_id(repeated)}')")
    return TaskSet(directory, db_json, tasks)


def _task(item: Any, position: int, path: Path) -> EvalTask:
    where = f"{path}: task {position + 1}"
    if not isinstance(item, dict) or "id" not in item:
        raise TaskSetError(f"{where}: not a τ² task (no id)")
    task_id = item["id"]
    if not isinstance(task_id, str):
        raise TaskSetError(
            f"{where}: its id is {_JSON_KINDS.get(type(task_id), 'not text')}, not text "
            "(τ²'s task ids are strings)"
        )
    why = _unusable_id(task_id)
    if why is not None:
        raise TaskSetError(f"{where}: its id '{shown_id(task_id)}' {why}")
    where = f"{path}: task {shown_id(task_id)}"
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
        action_id = str(action.get("action_id") or f"{task_id}_{index}")
        actions.append(ReferenceAction(action_id, action["name"], arguments))
    basis = tuple(criteria.get("reward_basis") or ("DB", "COMMUNICATE"))
    unknown = [b for b in basis if b not in REWARD_BASES]
    if unknown:
        shown = ", ".join(escape_controls(str(b)) for b in unknown)
        raise TaskSetError(f"{where}: unknown reward basis {shown}")
    unsupported = [b for b in basis if b not in SCORED_BASES]
    if unsupported:
        raise TaskSetError(
            f"{where}: reward basis {', '.join(unsupported)} is not scored here (DB and "
            "COMMUNICATE are, as for τ²'s airline tasks)"
        )
    return EvalTask(
        id=task_id,
        instructions=_instructions(scenario, where),
        actions=tuple(actions),
        communicate_info=tuple(str(info) for info in criteria.get("communicate_info") or ()),
        nl_assertions=tuple(str(text) for text in criteria.get("nl_assertions") or ()),
        reward_basis=basis,
        source=item,
    )


def _instructions(scenario: JsonObject, where: str) -> CustomerInstructions:
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
