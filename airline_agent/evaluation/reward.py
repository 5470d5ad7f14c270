"""The reward, as τ²-bench's evaluator computes it for the airline tasks.

- DB: the trial's final database equals the one the task's reference actions give on a
  fresh import of `db.json` (τ² compares the two databases' hashes). Here only the records
  that a write of the trial or of the reference solution touched can differ (each tool
  reports the rows it changed, `RowChange`; `replay --tau2` checks that against SQL), and
  those are compared in `export --format tau2` shape, so a failure names each record and
  field with the reference and the actual value. Comparing whole databases with SQL took
  half a second a trial.
- COMMUNICATE: every `communicate_info` string is in some message of the agent, matched
  as τ²'s evaluator (`evaluator_communicate.py`, its English path) matches it: the text of
  the agent's messages only (`agent_messages`: an assistant message's content, also one
  that carries tool calls; never the customer's words, a tool's result, a call's arguments,
  the model's reasoning or the framework's notices), skipping a message that is empty or
  white space; `info.lower()` a substring (not a word) of `message.lower()` with its
  commas removed — its commas only, and the message's only: an info that holds a comma is
  never found, as in τ². `str.lower`, not `casefold`: "Straße" does not say "strasse".
- The reward is the product of the task's `reward_basis` parts (DB and COMMUNICATE for
  every airline task), and 0 when the trial did not end by the customer's (or the agent's)
  own stop, as τ² gives 0 to every other termination.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from airline_agent.agent.events import AssistantMessage
from airline_agent.domain.db import Database
from airline_agent.evaluation.tasks import EvalTask, file_stem
from airline_agent.scenarios import datasets
from airline_agent.scenarios.datasets import Location
from airline_agent.scenarios.dbdiff import (
    MISSING,
    RecordChange,
    RecordKey,
    changed_paths,
    export_records,
    get_path,
    owners_of,
)
from airline_agent.stack import open_existing_database, reference_toolbox
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import RowChange
from airline_agent.tools.untrusted import JsonValue


@dataclass(frozen=True)
class FieldDifference:
    record: str  # "reservations/EHGLP3"
    field: str  # a dotted path in the record, "" for the whole record
    reference: JsonValue  # the reference end state's value (None: no such record)
    actual: JsonValue

    def to_json(self) -> dict[str, JsonValue]:
        return {
            "record": self.record,
            "field": self.field,
            "reference": self.reference,
            "actual": self.actual,
        }


@dataclass(frozen=True)
class DatabaseCheck:
    match: bool
    differences: tuple[FieldDifference, ...]


@dataclass(frozen=True)
class CommunicateCheck:
    expected: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def met(self) -> bool:
        return not self.missing


def agent_messages(events: Iterable[object]) -> list[str]:
    """What the agent said to the customer, as τ² counts it: the content of each of its
    assistant messages (an `AssistantMessage` event), in order."""
    return [e.content for e in events if isinstance(e, AssistantMessage) and e.content]


def communicated(info: str, agent_messages: list[str]) -> str | None:
    """The first agent message that says `info` as τ² matches it, or None."""
    for message in agent_messages:
        if message.strip() and info.lower() in message.lower().replace(",", ""):
            return message
    return None


def communicate_check(task: EvalTask, agent_messages: list[str]) -> CommunicateCheck:
    missing = tuple(i for i in task.communicate_info if communicated(i, agent_messages) is None)
    return CommunicateCheck(task.communicate_info, missing)


def touched(changes: Iterable[RowChange]) -> set[RecordKey]:
    """The τ² records that these `RowChange`s belong to."""
    keys: set[RecordKey] = set()
    for change in changes:
        keys |= owners_of(change)
    return keys


@dataclass(frozen=True)
class EndStates:
    """The records a trial or its reference touched, as they were, as the reference left
    them and as the trial left them."""

    keys: frozenset[RecordKey]
    before: dict[RecordKey, dict]
    reference: dict[RecordKey, dict]
    actual: dict[RecordKey, dict]

    def changes(self) -> list[RecordChange]:
        """What the trial changed (`dbdiff.diff_databases`' shape, for its scenario)."""
        found = []
        for key in sorted(self.keys):
            old, new = self.before.get(key), self.actual.get(key)
            paths = changed_paths(old or {}, new or {})
            if old is None and new is None:
                continue
            if old is None or new is None or paths:
                found.append(RecordChange(key[0], key[1], old, new, tuple(paths)))
        return found


def end_states(
    pristine: Location | Database,
    reference: Location | Database,
    final: Location | Database,
    keys: set[RecordKey],
) -> EndStates:
    return EndStates(
        frozenset(keys),
        export_records(pristine, keys),
        export_records(reference, keys),
        export_records(final, keys),
    )


def database_check(states: EndStates) -> DatabaseCheck:
    expected, actual = states.reference, states.actual
    differences: list[FieldDifference] = []
    for key in sorted(states.keys):
        record = f"{key[0]}/{key[1]}"
        old, new = expected.get(key), actual.get(key)
        if old is None or new is None:
            if old is not None or new is not None:
                differences.append(FieldDifference(record, "", old, new))
            continue
        for path in changed_paths(old, new):
            differences.append(
                FieldDifference(
                    record, path, _value(get_path(old, path)), _value(get_path(new, path))
                )
            )
    return DatabaseCheck(not differences, tuple(differences))


def _value(value: object) -> JsonValue:
    """A leaf's value, or None where one side has no such leaf."""
    # A path into a JSON record leads to a JSON value (or to MISSING).
    return None if value is MISSING else cast(JsonValue, value)


def reward_of(
    task: EvalTask, database: DatabaseCheck, communicate: CommunicateCheck, *, evaluated: bool
) -> float:
    """τ²'s reward: 0 for a trial it does not evaluate, else the product of the basis."""
    if not evaluated:
        return 0.0
    reward = 1.0
    if "DB" in task.reward_basis:
        reward *= 1.0 if database.match else 0.0
    if "COMMUNICATE" in task.reward_basis:
        reward *= 1.0 if communicate.met else 0.0
    return reward


class ReferenceStates:
    """Each task's reference end state: its reference actions replayed, guard off, on a
    fresh import of `db.json` (as τ²'s evaluator replays them), made once per run.
    The run's databases (the import, the references, each trial's copy) come from
    `copies`: files in a scratch folder, or databases on a PostgreSQL server (`eval
    --db`); `close` removes what is left of them.

    An action that fails is skipped, as τ²'s evaluator skips one that raises."""

    def __init__(
        self,
        tau2_directory: Path,
        now: str | None = None,
        *,
        copies: datasets.DatasetCopies | None = None,
    ) -> None:
        self.now = now
        self.copies = copies or datasets.FileDatasets("tau2", tau2_directory)
        self._made: dict[str, tuple[Location, frozenset[RecordKey]]] = {}
        # One lock per task: a trial waits for its own task's reference, never another's.
        self._locks: dict[str, threading.Lock] = {}
        # The import and the references, each opened once for the run and read by every
        # trial's end states: opening one (its checks) cost more than reading its records.
        self._opened: dict[str, Database] = {}
        # Their records, exported once each (None: no such record): neither changes during
        # a run, and every trial of a task compares the same records of both.
        self._exported: dict[str, dict[RecordKey, dict | None]] = {}
        # Trials' databases given back (`give_back`), pristine again, for the next trials.
        self._spare: list[tuple[Location, Database]] = []
        self._lock = threading.Lock()  # over _locks, _opened, _exported and _spare

    def pristine(self) -> Location:
        return self.copies.pristine()

    def fresh_copy(self, name: str) -> Location:
        return self.copies.fresh_copy(name)

    def discard(self, copy: Location) -> None:
        self.copies.discard(copy)

    def trial_database(self, name: str) -> tuple[Location, Database]:
        """A fresh copy of the dataset for one trial (`name` says whose), opened: one that
        an earlier trial gave back, pristine again, or else a new one. A database opened
        once serves trial after trial: opening one (its checks) and its first run of each
        statement (SQLAlchemy compiles a statement once per opened database) were most of
        what a trial of instant models spent on its database."""
        with self._lock:
            if self._spare:
                return self._spare.pop()
        copy = self.fresh_copy(name)
        try:
            return copy, open_existing_database(copy)
        except BaseException:
            self.discard(copy)
            raise

    def give_back(self, copy: Location, database: Database) -> None:
        """A trial's database, the trial done with it: closed, and made pristine again in
        place for the next trial (a file); a database on a server is dropped instead (a
        new copy of the template is made for the next trial)."""
        database.close()
        if isinstance(self.copies, datasets.FileDatasets):
            try:
                self.copies.refill(copy)
            except OSError:
                self.discard(copy)
                return
            with self._lock:
                self._spare.append((copy, database))
            return
        self.discard(copy)

    def close(self) -> None:
        with self._lock:
            opened, self._opened = list(self._opened.values()), {}
            spare, self._spare = self._spare, []
        for database in opened:
            database.close()
        for copy, database in spare:
            database.close()
            self.discard(copy)
        self.copies.close()

    def end_states(self, reference: Location, final: Database, keys: set[RecordKey]) -> EndStates:
        """The records `keys` as the import holds them, as the reference left them and as
        the trial's database (`final`, still open) holds them."""
        return EndStates(
            frozenset(keys),
            self._records(self.pristine(), keys),
            self._records(reference, keys),
            export_records(final, keys),
        )

    def _records(self, location: Location, keys: set[RecordKey]) -> dict[RecordKey, dict]:
        """Records of the import or of a reference (read-only: shared by the trials)."""
        with self._lock:
            known = self._exported.setdefault(str(location), {})
            missing = {key for key in keys if key not in known}
        if missing:
            found = export_records(self._database(location), missing)
            with self._lock:
                for key in missing:
                    known[key] = found.get(key)
        with self._lock:
            return {key: record for key in keys if (record := known[key]) is not None}

    def _database(self, location: Location) -> Database:
        """The run's database at `location`, opened on first use and kept open."""
        with self._lock:
            found = self._opened.get(str(location))
        if found is not None:
            return found
        opened = open_existing_database(location)
        with self._lock:
            found = self._opened.setdefault(str(location), opened)
        if found is not opened:  # another trial opened it meanwhile
            opened.close()
        return found

    def of(self, task: EvalTask) -> tuple[Location, frozenset[RecordKey]]:
        """The reference end state's database, and the records its actions touched
        (made on first use; thread-safe)."""
        with self._lock:
            lock = self._locks.setdefault(task.id, threading.Lock())
        with lock:
            if task.id not in self._made:
                self._made[task.id] = self._make(task)
            return self._made[task.id]

    def _make(self, task: EvalTask) -> tuple[Location, frozenset[RecordKey]]:
        if not task.actions:
            return self.pristine(), frozenset()
        path = self.fresh_copy(f"reference-{file_stem(task.id)}")
        database = open_existing_database(path)
        keys: set[RecordKey] = set()
        try:
            tools = reference_toolbox(database, now=self.now)
            conversation = ToolConversation()
            for action in task.actions:
                keys |= touched(tools.call(action.name, action.arguments, conversation).changes)
        except BaseException:
            database.close()
            raise
        with self._lock:  # kept open: every trial of the task reads its end state
            self._opened[str(path)] = database
        return path, frozenset(keys)
