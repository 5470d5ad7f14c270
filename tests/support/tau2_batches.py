"""The 50 τ² tasks' reference actions replayed on a few database copies, not fifty.

A copy of the imported database per task, and the whole database exported and compared
after each, cost about a second a task. Tasks that name no common customer or reservation
(directly, or as the owner of a reservation they name) cannot see each other's changes,
except through what every task shares: seats on a flight date and the next new
reservation id, which the oracle models exactly as the tools do. So the default run
replays such tasks one after another on one copy (a fresh conversation each), with the
oracle applied in the same order to one copy of db.json, and compares the state once per
batch: a wrong change by any task of a batch still shows (no other task of it touches
those records). No reference action names a reservation its task books, so a booking's
new id never matters to a later action. `AIRLINE_AGENT_SLOW=1` replays every task alone
on its own copy, as τ²'s evaluator does.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

from tests.support.profile import SLOW


def actions(task: dict[str, Any]) -> list[dict[str, Any]]:
    return (task.get("evaluation_criteria") or {}).get("actions") or []


def touched(task: dict[str, Any], initial: dict[str, Any]) -> set[str]:
    """The customers and reservations the task's actions name (τ²'s lookups ignore case),
    and the owners of those reservations (a payment changes their balances)."""
    names: set[str] = set()
    for action in actions(task):
        arguments = action["arguments"]
        if user := arguments.get("user_id"):
            names.add(f"user {user.strip().lower()}")
        if reservation := arguments.get("reservation_id"):
            names.add(f"reservation {reservation.strip().lower()}")
            known = initial["reservations"].get(reservation)
            if known is not None:
                names.add(f"user {known['user_id'].lower()}")
    return names


def batches(tasks: list[dict[str, Any]], initial: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Every task once, in task order within a batch; a task joins the first batch none of
    whose tasks touches what it touches (each task alone with AIRLINE_AGENT_SLOW=1)."""
    if SLOW:
        return [[task] for task in tasks]
    grouped: list[tuple[set[str], list[dict[str, Any]]]] = []
    for task in tasks:
        names = touched(task, initial)
        for claimed, members in grouped:
            if not claimed & names:
                claimed |= names
                members.append(task)
                break
        else:
            grouped.append((set(names), [task]))
    return [members for _, members in grouped]


def copy_of(initial: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of db.json's dicts (pickle: a fifth of `copy.deepcopy`'s time)."""
    return pickle.loads(pickle.dumps(initial, pickle.HIGHEST_PROTOCOL))


class CopiedOnUse(dict):
    """One kind of db.json's records (`users`, …) for the oracle to change: a record is
    deep-copied from the shared original when first looked up (every write of the oracle
    goes through a lookup), so a task's expected state costs only what it touches."""

    def __init__(self, original: dict) -> None:
        super().__init__(original)
        self.used: set[str] = set()

    def __getitem__(self, key: str) -> dict:
        if key not in self.used:
            self.used.add(key)
            if dict.__contains__(self, key):
                dict.__setitem__(self, key, copy.deepcopy(dict.__getitem__(self, key)))
        return dict.__getitem__(self, key)

    def __setitem__(self, key: str, value: dict) -> None:
        self.used.add(key)
        dict.__setitem__(self, key, value)


def copied_on_use(initial: dict[str, Any]) -> dict[str, CopiedOnUse]:
    """db.json's state for the oracle to change, equal to `copy_of(initial)` and compared
    as a whole as that one is, without copying the records no write touches."""
    return {kind: CopiedOnUse(records) for kind, records in initial.items()}


def differing_records(ours: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """`users/ID`, `reservations/ID`, `flights/NUMBER` where the two states differ."""
    differing = []
    for kind in sorted(ours.keys() | expected.keys()):
        mine, theirs = ours.get(kind, {}), expected.get(kind, {})
        differing += [
            f"{kind}/{key}"
            for key in sorted(mine.keys() | theirs.keys())
            if mine.get(key) != theirs.get(key)
        ]
    return differing
