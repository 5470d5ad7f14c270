"""eval's DB check: the records a trial or its reference touched, compared field by field
in `export --format tau2` shape (each difference names its record, field, reference and
actual value); what a trial changed, for its scenario; the reference end states, made
once per task on a copy, with failing actions skipped as τ²'s evaluator skips them.
On the small world of tests/support/world.py (no τ² data needed)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest

from airline_agent.domain.db import Database
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.evaluation import reward
from airline_agent.evaluation.reward import (
    DatabaseCheck,
    EndStates,
    FieldDifference,
    ReferenceStates,
    database_check,
    end_states,
    touched,
)
from airline_agent.evaluation.tasks import CustomerInstructions, EvalTask, ReferenceAction
from airline_agent.scenarios import datasets
from airline_agent.scenarios.dbdiff import RecordChange
from airline_agent.stack import reference_toolbox
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import RowChange
from tests.support.world import world

R1, R2, U1 = ("reservations", "R1"), ("reservations", "R2"), ("users", "u1")


def _states(reference: dict, actual: dict, before: dict | None = None) -> EndStates:
    keys = frozenset(reference) | frozenset(actual) | frozenset(before or {})
    return EndStates(keys, before or {}, reference, actual)


# ------------------------------------------------------------------ database_check


def test_equal_records_match() -> None:
    record = {"status": "cancelled", "flights": [{"price": 10}]}
    check = database_check(_states({R1: record}, {R1: dict(record)}))
    assert check == DatabaseCheck(True, ())


def test_each_differing_field_is_named_with_both_values() -> None:
    reference = {"status": "cancelled", "flights": [{"price": 10}, {"price": 20}], "bags": 1}
    actual = {"status": None, "flights": [{"price": 10}, {"price": 25}], "bags": 1}
    check = database_check(_states({R1: reference}, {R1: actual}))
    assert check.match is False
    assert check.differences == (
        FieldDifference("reservations/R1", "flights.1.price", 20, 25),
        FieldDifference("reservations/R1", "status", "cancelled", None),
    )


def test_a_field_on_one_side_only_is_null_on_the_other() -> None:
    check = database_check(_states({R1: {"a": 1}}, {R1: {"a": 1, "b": 2}}))
    assert check.differences == (FieldDifference("reservations/R1", "b", None, 2),)
    check = database_check(_states({R1: {"a": 1, "b": {"c": 3}}}, {R1: {"a": 1}}))
    assert check.differences == (FieldDifference("reservations/R1", "b.c", 3, None),)


def test_a_record_on_one_side_only_differs_whole() -> None:
    made = {"reservation_id": "R2", "status": None}
    check = database_check(_states({}, {R2: made}))
    assert check.differences == (FieldDifference("reservations/R2", "", None, made),)
    check = database_check(_states({R2: made}, {}))
    assert check.differences == (FieldDifference("reservations/R2", "", made, None),)
    # a key neither side has (touched, then gone on both): no difference
    assert database_check(EndStates(frozenset({R2}), {}, {}, {})) == DatabaseCheck(True, ())


def test_records_are_compared_in_order_of_their_keys() -> None:
    reference = {U1: {"x": 1}, R2: {"x": 1}, R1: {"x": 1}}
    actual = {U1: {"x": 2}, R2: {"x": 2}, R1: {"x": 2}}
    check = database_check(_states(reference, actual))
    assert [d.record for d in check.differences] == [
        "reservations/R1",
        "reservations/R2",
        "users/u1",
    ]


def test_a_difference_as_json_names_every_part() -> None:
    difference = FieldDifference("reservations/R1", "status", "cancelled", None)
    assert difference.to_json() == {
        "record": "reservations/R1",
        "field": "status",
        "reference": "cancelled",
        "actual": None,
    }


# ------------------------------------------------------------------ what a trial changed


def test_the_changes_are_what_the_trial_did_to_each_record() -> None:
    states = EndStates(
        frozenset({R1, R2, U1, ("users", "gone"), ("users", "same")}),
        before={R1: {"s": 1}, U1: {"s": 1, "t": 1}, ("users", "same"): {"s": 1}},
        reference={},
        actual={R2: {"s": 2}, U1: {"s": 2, "t": 1}, ("users", "same"): {"s": 1}},
    )
    assert states.changes() == [
        RecordChange("reservations", "R1", {"s": 1}, None, ("", "s")),  # removed
        RecordChange("reservations", "R2", None, {"s": 2}, ("", "s")),  # made
        RecordChange("users", "u1", {"s": 1, "t": 1}, {"s": 2, "t": 1}, ("s",)),
    ]


def test_a_record_made_or_removed_empty_is_still_a_change() -> None:
    states = EndStates(frozenset({R1, R2}), before={R1: {}}, reference={}, actual={R2: {}})
    assert states.changes() == [
        RecordChange("reservations", "R1", {}, None, ()),
        RecordChange("reservations", "R2", None, {}, ()),
    ]


def test_touched_names_the_records_rows_belong_to() -> None:
    changes = [
        RowChange("reservation", "R1", {"reservation_id": "R1", "user_id": "u1"}, None),
        RowChange("flightdate", "HAT1/2024-05-17", None, {"flight_number": "HAT1"}),
        RowChange("paymentmethod", "u2/gift_card_1", {"user_id": "u2"}, {"user_id": "u2"}),
        RowChange("no_such_table", "x", None, {"x": 1}),
    ]
    assert touched(changes) == {R1, U1, ("flights", "HAT1"), ("users", "u2")}
    assert touched([]) == set()


# ------------------------------------------------------------------ reference end states


class Copies:
    """The run's databases as files: copies of the small world, every call recorded."""

    def __init__(self, world: Path, folder: Path) -> None:
        self.world, self.folder = world, folder
        self.made: list[str] = []
        self.discarded: list[Path] = []
        self.closed = 0

    def pristine(self) -> Path:
        return self.world

    def fresh_copy(self, name: str) -> Path:
        self.made.append(name)
        copy = self.folder / f"{name}-{len(self.made)}.db"
        shutil.copyfile(self.world, copy)
        return copy

    def discard(self, copy: Path) -> None:
        self.discarded.append(Path(copy))

    def close(self) -> None:
        self.closed += 1


def _task(task_id: str, *actions: tuple[str, dict]) -> EvalTask:
    return EvalTask(
        id=task_id,
        instructions=CustomerInstructions("r", "", "", "", ""),
        actions=tuple(ReferenceAction(f"{task_id}_{i}", n, a) for i, (n, a) in enumerate(actions)),
        communicate_info=(),
        nl_assertions=(),
        reward_basis=("DB", "COMMUNICATE"),
        source={},
    )


@pytest.fixture
def copies(world_db: Database, tmp_path: Path) -> Copies:
    world = Path(str(world_db.engine.url.database))
    world_db.close()
    return Copies(world, tmp_path)


def test_a_task_without_actions_ends_where_it_began(copies: Copies) -> None:
    references = ReferenceStates(Path("unused"), copies=copies)
    assert references.of(_task("0")) == (copies.world, frozenset())
    assert copies.made == []  # no copy made for it


def test_a_reference_is_its_actions_replayed_once_on_a_copy(copies: Copies) -> None:
    references = ReferenceStates(Path("unused"), now="2024-05-15T15:00:00", copies=copies)
    cancel = _task("a/B", ("cancel_reservation", {"reservation_id": "ECON01"}))
    location, keys = references.of(cancel)
    assert copies.made == ["reference-x-612f42"]  # named safely after the task id
    assert keys == frozenset({("reservations", "ECON01")})
    after = end_states(copies.world, location, copies.world, set(keys))
    assert after.reference[("reservations", "ECON01")]["status"] == "cancelled"
    assert "status" not in after.before[("reservations", "ECON01")]  # τ² writes none
    check = database_check(after)  # the untouched world against the reference
    assert not check.match
    assert FieldDifference("reservations/ECON01", "status", "cancelled", None) in check.differences
    assert references.of(cancel) == (location, keys)  # made once
    assert copies.made == ["reference-x-612f42"]


def test_an_action_that_fails_is_skipped(copies: Copies) -> None:
    references = ReferenceStates(Path("unused"), copies=copies)
    task = _task(
        "7",
        ("cancel_reservation", {"reservation_id": "NOSUCH"}),
        ("no_such_tool", {}),
        ("cancel_reservation", {"reservation_id": "ECON01"}),
    )
    location, keys = references.of(task)
    assert ("reservations", "ECON01") in keys
    assert (
        end_states(copies.world, location, location, set(keys)).actual[("reservations", "ECON01")][
            "status"
        ]
        == "cancelled"
    )


def test_the_run_s_databases_come_from_its_copies(copies: Copies) -> None:
    references = ReferenceStates(Path("unused"), copies=copies)
    assert references.pristine() == copies.world
    copy = references.fresh_copy("task-1-trial-0")
    assert copies.made == ["task-1-trial-0"] and copy.exists()
    references.discard(copy)
    assert copies.discarded == [copy]
    references.close()
    assert copies.closed == 1


def test_a_trial_s_database_of_other_copies_is_dropped_when_given_back(copies: Copies) -> None:
    # Copies that are not files of this process (a PostgreSQL server's) are not refilled:
    # each trial gets a copy of its own, dropped when it is done.
    references = ReferenceStates(Path("unused"), copies=copies)
    copy, database = references.trial_database("task-1-trial-0")
    assert copies.made == ["task-1-trial-0"] and database.location == str(copy)
    references.give_back(copy, database)
    assert copies.discarded == [copy]
    again, reopened = references.trial_database("task-1-trial-1")
    assert copies.made == ["task-1-trial-0", "task-1-trial-1"] and reopened is not database
    references.give_back(again, reopened)
    references.close()


def test_a_record_on_one_side_only_does_not_stop_the_comparison() -> None:
    made = {"reservation_id": "R1"}
    check = database_check(_states({R2: {"x": 1}}, {R1: made, R2: {"x": 2}}))
    assert check.differences == (
        FieldDifference("reservations/R1", "", None, made),
        FieldDifference("reservations/R2", "x", 1, 2),
    )


BOOKING = {
    "user_id": "emma_kim_9957",
    "origin": "PHX",
    "destination": "SEA",
    "flight_type": "one_way",
    "cabin": "economy",
    "flights": [{"flight_number": "HAT156", "date": "2024-05-20"}],
    "passengers": [{"first_name": "Emma", "last_name": "Kim", "dob": "1990-02-02"}],
    "payment_methods": [{"payment_id": "credit_card_5832574", "amount": 172}],
    "total_baggages": 0,
    "nonfree_baggages": 0,
    "insurance": "no",
}


def test_every_action_s_records_are_touched_on_the_task_s_clock(copies: Copies) -> None:
    """Two actions: the records both touched; a booking made at the run's time."""
    references = ReferenceStates(Path("unused"), now="2024-05-12T08:30:00", copies=copies)
    task = _task(
        "9",
        ("book_reservation", BOOKING),
        ("cancel_reservation", {"reservation_id": "ECON01"}),
    )
    location, keys = references.of(task)
    made = {key for key in keys if key[0] == "reservations"} - {("reservations", "ECON01")}
    assert len(made) == 1
    assert {("reservations", "ECON01"), ("users", "emma_kim_9957"), ("flights", "HAT156")} <= keys
    (booked,) = made
    states = end_states(copies.world, location, location, set(keys))
    assert states.reference[booked]["created_at"] == "2024-05-12T08:30:00"


def test_without_copies_the_run_s_databases_are_files_of_the_task_data(tmp_path) -> None:
    """The default: the task folder's db.json imported once, copies of it made as files."""
    folder = tmp_path / "tau2"
    folder.mkdir()
    (folder / "db.json").write_text(json.dumps(world()))
    references = ReferenceStates(folder)
    pristine = Path(references.pristine())
    keys = {("reservations", "ECON01")}
    assert (
        end_states(pristine, pristine, pristine, keys).before[("reservations", "ECON01")]["user_id"]
        == "noah_lee_1001"
    )
    copy = Path(references.fresh_copy("task-1-trial-0"))
    assert copy.name.startswith("task-1-trial-0-") and copy.is_file()
    references.discard(copy)
    assert not copy.exists()


def _status(copy: Path, reservation_id: str) -> str | None:
    with closing(sqlite3.connect(copy)) as connection:
        return connection.execute(
            "SELECT status FROM reservation WHERE reservation_id = ?", (reservation_id,)
        ).fetchone()[0]


def _cancel(database: Database, reservation_id: str) -> None:
    tools = reference_toolbox(database, now="2024-05-15T15:00:00")
    result = tools.call(
        "cancel_reservation", {"reservation_id": reservation_id}, ToolConversation()
    )
    assert result.changes, result


class RefillingCopies(datasets.FileDatasets):
    """Files of the small world, made pristine again in place, every call recorded (the
    refill fails for the copies named in `broken`)."""

    def __init__(self, folder: Path) -> None:
        super().__init__("tau2", folder)
        self.refilled: list[Path] = []
        self.discarded: list[Path] = []
        self.broken: set[Path] = set()

    def refill(self, copy: datasets.Location) -> None:
        self.refilled.append(Path(copy))
        if Path(copy) in self.broken:
            raise OSError("disk full")
        super().refill(copy)

    def discard(self, copy: datasets.Location) -> None:
        self.discarded.append(Path(copy))
        super().discard(copy)


@pytest.fixture
def file_copies(tmp_path: Path) -> RefillingCopies:
    folder = tmp_path / "tau2"
    folder.mkdir()
    (folder / "db.json").write_text(json.dumps(world()))
    return RefillingCopies(folder)


def test_a_trial_s_file_database_given_back_serves_the_next_trial_pristine(
    file_copies: RefillingCopies, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file copy given back is refilled where it is and kept open for the next trial,
    which finds none of the last trial's changes; a trial that starts while every copy is
    in use gets a new one; the run's end closes and removes the spares."""
    opened = Opened(monkeypatch)
    references = ReferenceStates(Path("unused"), copies=file_copies)
    copy, database = references.trial_database("task-1-trial-0")
    assert Path(copy).name.startswith("task-1-trial-0-") and opened.databases == [database]
    _cancel(database, "ECON01")
    assert _status(Path(copy), "ECON01") == "cancelled"
    references.give_back(copy, database)
    assert file_copies.refilled == [Path(copy)] and file_copies.discarded == []
    assert opened.closes == [1]  # closed: a trial's connections go with it
    assert _status(Path(copy), "ECON01") is None  # pristine again at once
    again, reopened = references.trial_database("task-1-trial-1")
    assert (again, reopened) == (copy, database)  # no copy made, nothing opened
    assert opened.databases == [database]
    other, other_database = references.trial_database("task-2-trial-0")  # the spare in use
    assert Path(other) != Path(copy) and opened.databases == [database, other_database]
    assert Path(other).name.startswith("task-2-trial-0-")
    references.give_back(again, reopened)
    references.give_back(other, other_database)
    assert file_copies.refilled == [Path(copy), Path(copy), Path(other)]
    assert file_copies.discarded == []
    references.close()
    assert sorted(file_copies.discarded) == sorted([Path(copy), Path(other)])
    assert not Path(copy).exists() and not Path(other).exists()
    assert opened.closes == [3, 2]  # given back twice and once, then at the run's end


def test_a_trial_s_file_database_that_cannot_be_refilled_is_dropped(
    file_copies: RefillingCopies,
) -> None:
    references = ReferenceStates(Path("unused"), copies=file_copies)
    copy, database = references.trial_database("task-1-trial-0")
    file_copies.broken.add(Path(copy))
    references.give_back(copy, database)
    assert file_copies.discarded == [Path(copy)] and not Path(copy).exists()
    again, reopened = references.trial_database("task-1-trial-1")  # a new copy, not it
    assert Path(again) != Path(copy) and reopened is not database
    references.give_back(again, reopened)
    references.close()
    assert file_copies.discarded == [Path(copy), Path(again)]


def test_a_trial_s_copy_that_cannot_be_opened_is_dropped(
    copies: Copies, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unopenable(location: Path) -> Database:
        raise DatabaseUnavailable(f"cannot open {location}")

    monkeypatch.setattr(reward, "open_existing_database", unopenable)
    references = ReferenceStates(Path("unused"), copies=copies)
    with pytest.raises(DatabaseUnavailable, match="cannot open"):
        references.trial_database("task-1-trial-0")
    assert copies.made == ["task-1-trial-0"]
    assert copies.discarded == [copies.folder / "task-1-trial-0-1.db"]


# ------------------------------------------------------------------ a run's end states

ECON01, NOAH, NOSUCH = ("reservations", "ECON01"), ("users", "noah_lee_1001"), ("reservations", "X")
CANCEL_ECON01 = ("cancel_reservation", {"reservation_id": "ECON01"})


class Opened:
    """Every database `reward` opens, in order, and how often each was closed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, on_open=None) -> None:
        self.locations: list[Path] = []
        self.databases: list[Database] = []
        self.closes: list[int] = []
        self.on_open = on_open
        monkeypatch.setattr(reward, "open_existing_database", self.open)

    def open(self, location: Path) -> Database:
        database = Database.open(location)
        index = len(self.databases)
        self.locations.append(Path(location))
        self.databases.append(database)
        self.closes.append(0)
        real_close = database.close

        def close() -> None:
            self.closes[index] += 1
            real_close()

        database.close = close
        if self.on_open is not None:
            self.on_open(Path(location))
        return database


def _trial(copies: Copies, *calls: tuple[str, dict]) -> tuple[Database, set]:
    """A trial's database (a copy of the world, still open) after these calls, and the
    records they touched."""
    database = Database.open(copies.fresh_copy("trial"))
    tools = reference_toolbox(database, now="2024-05-15T15:00:00")
    conversation = ToolConversation()
    keys: set = set()
    for name, arguments in calls:
        result = tools.call(name, arguments, conversation)
        assert result.changes, result
        keys |= touched(result.changes)
    return database, keys


def test_a_run_s_end_states_are_the_import_s_the_reference_s_and_the_trial_s_records(
    copies: Copies,
) -> None:
    """The import before, the reference after its actions, the trial's open database after
    its own calls: each record as that database holds it, absent records left out."""
    references = ReferenceStates(Path("unused"), now="2024-05-15T15:00:00", copies=copies)
    location, reference_keys = references.of(_task("c", CANCEL_ECON01))
    bags = {
        "reservation_id": "ECON01",
        "total_baggages": 2,
        "nonfree_baggages": 1,
        "payment_id": "credit_card_1111111",
    }
    final, trial_keys = _trial(copies, ("update_reservation_baggages", bags))
    assert reference_keys == trial_keys == {ECON01}
    keys = {ECON01, NOAH, NOSUCH}  # and a record nobody changed, and one nobody has
    try:
        states = references.end_states(location, final, keys)
        assert states == end_states(copies.world, location, final, keys)
        assert states.keys == frozenset({ECON01, NOAH, NOSUCH})
        assert set(states.before) == set(states.reference) == set(states.actual) == {ECON01, NOAH}
        assert "status" not in states.before[ECON01]
        assert states.before[ECON01]["total_baggages"] == 1
        assert states.reference[ECON01]["status"] == "cancelled"
        assert states.reference[ECON01]["total_baggages"] == 1
        assert "status" not in states.actual[ECON01]
        assert states.actual[ECON01]["total_baggages"] == 2
        assert states.before[NOAH]["reservations"] == ["ECON01", "BIZ001", "NEW001", "RTRIP1"]
        # Asked again, with a record more: the same records (each exported once, then kept).
        again = references.end_states(location, final, {ECON01, ("users", "emma_kim_9957")})
        assert again == end_states(copies.world, location, final, again.keys)
        assert again.before[("users", "emma_kim_9957")]["reservations"] == ["EHGLP3"]
        assert again.reference[ECON01]["status"] == "cancelled"
    finally:
        final.close()
        references.close()


def test_the_import_and_each_reference_are_opened_once_and_closed_with_the_run(
    copies: Copies, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = Opened(monkeypatch)
    references = ReferenceStates(Path("unused"), copies=copies)
    location, keys = references.of(_task("c", CANCEL_ECON01))
    assert opened.locations == [Path(location)]  # the reference, kept open by its making
    final, _ = _trial(copies)
    try:
        first = references.end_states(location, final, set(keys))
        later = references.end_states(location, final, {ECON01, NOAH})
    finally:
        final.close()
    assert opened.locations == [Path(location), copies.world]  # the import on first use
    assert opened.closes == [0, 0]  # kept open for the next trial
    assert first.reference[ECON01]["status"] == "cancelled"
    assert later.before[NOAH]["user_id"] == "noah_lee_1001"
    assert later.reference[NOAH]["user_id"] == "noah_lee_1001"
    references.close()
    assert opened.closes == [1, 1]
    assert copies.closed == 1


def test_a_database_opened_by_two_trials_at_once_is_kept_once(
    copies: Copies, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two trials ask for the import's records at the same time: both open it, the first
    kept is read by both, the other copy is closed."""
    references = ReferenceStates(Path("unused"), copies=copies)
    final, _ = _trial(copies)
    inner: list[EndStates] = []
    asked: list[Path] = []

    def meanwhile(location: Path) -> None:
        if location == copies.world and not asked:  # the other trial, while this one opens
            asked.append(location)
            inner.append(references.end_states(copies.world, final, {ECON01}))

    opened = Opened(monkeypatch, on_open=meanwhile)
    try:
        states = references.end_states(copies.world, final, {ECON01})
    finally:
        final.close()
    assert opened.locations == [copies.world, copies.world]
    assert opened.closes == [1, 0]  # this trial's copy closed, the other's kept
    assert states == inner[0] == end_states(copies.world, copies.world, final, {ECON01})
    assert states.before[ECON01]["reservation_id"] == "ECON01"
    references.close()
    assert opened.closes == [1, 1]


def test_a_trial_waits_for_its_own_task_s_reference_only(copies: Copies) -> None:
    """While one task's reference is being made, another task's is made all the same.
    (The wait below only keeps a broken lock from hanging the suite.)"""
    a_started, b_made = threading.Event(), threading.Event()
    fresh_copy = copies.fresh_copy

    def copy(name: str) -> Path:
        if name == "reference-a":
            a_started.set()
            if not b_made.wait(60):
                raise AssertionError("task b's reference waited for task a's")
        if name == "reference-b":
            b_made.set()
        return fresh_copy(name)

    copies.fresh_copy = copy
    references = ReferenceStates(Path("unused"), copies=copies)
    made: dict[str, object] = {}

    def make_a() -> None:
        try:
            made["a"] = references.of(_task("a", CANCEL_ECON01))
        except BaseException as exc:
            made["a"] = exc

    thread = threading.Thread(target=make_a)
    thread.start()
    try:
        assert a_started.wait(60)
        b_location, b_keys = references.of(_task("b", CANCEL_ECON01))
    finally:
        b_made.set()
        thread.join()
        references.close()
    a = made["a"]
    assert not isinstance(a, BaseException), a
    assert isinstance(a, tuple)
    assert b_keys == a[1] == frozenset({ECON01})
    assert Path(b_location).name.startswith("reference-b") and Path(a[0]).name.startswith(
        "reference-a"
    )
