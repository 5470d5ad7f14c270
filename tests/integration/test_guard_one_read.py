"""One decision, one read (issue 21): two writers whose guard decisions depend on the
same reservation cannot both pass the guard on the state from before the other's write.

Made deterministic with two hooks, each active in one thread only: the first writer is
held right after its guard has decided (around `guard.check`) until the second writer
asks for the database's write lock (around `db._begin_immediate`, which every write
transaction and every preview's rehearsal calls first). When the decision is read
outside the write's transaction, the second writer decides on the old state and both
writes go through (a flight change on a cancelled reservation, bags taken away). When the
decision is inside it, the second writer waits for the first one's commit, then its
guard sees the change and refuses. Each writer has its own `Database` (connections), as
separate processes would; every wait has a generous deadline.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from airline_agent.domain import db as db_module
from airline_agent.domain.db import Database
from airline_agent.tools import guard
from tests.support.toolbox_fixtures import toolbox

NOAH = "noah_lee_1001"
DEADLINE_S = 120


@dataclass(frozen=True)
class Race:
    first: tuple[str, dict[str, Any]]  # the write whose decision is held
    second: tuple[str, dict[str, Any]]  # decided while the first is held
    refusal: str  # the rule the second must meet, once the first is committed
    after: Callable[[Database], None]  # the database once both are done


def _cancelled_with_its_flights(database: Database) -> None:
    reservation = toolbox(database).call("get_reservation_details", {"reservation_id": "NEW001"})
    assert reservation.result["status"] == "cancelled"
    assert reservation.result["flights"][0]["date"] == "2024-05-20"  # not changed after
    assert [line["amount"] for line in reservation.result["payment_history"]] == [100, -100]


def _bags_only_added(database: Database) -> None:
    reservation = toolbox(database).call("get_reservation_details", {"reservation_id": "ECON01"})
    assert (reservation.result["total_baggages"], reservation.result["nonfree_baggages"]) == (3, 2)


CANCEL_NEW001 = ("cancel_reservation", {"reservation_id": "NEW001"})  # booked < 24 h ago
CHANGE_NEW001 = (
    "update_reservation_flights",
    {
        "reservation_id": "NEW001",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT050", "date": "2024-05-19"}],
        "payment_id": "credit_card_1111111",
    },
)
RACES = {
    # Each passes on the reservation as it was; after the cancellation, C5 refuses the change.
    "a cancellation, then a flight change": Race(
        CANCEL_NEW001, CHANGE_NEW001, "C5", _cancelled_with_its_flights
    ),
    # ECON01 has 1 bag (0 paid): 3 bags (2 paid), then 2 bags (1 paid) would take one away.
    "two bag changes": Race(
        (
            "update_reservation_baggages",
            {
                "reservation_id": "ECON01",
                "total_baggages": 3,
                "nonfree_baggages": 2,
                "payment_id": "gift_card_2222222",
            },
        ),
        (
            "update_reservation_baggages",
            {
                "reservation_id": "ECON01",
                "total_baggages": 2,
                "nonfree_baggages": 1,
                "payment_id": "gift_card_2222222",
            },
        ),
        "M5",
        _bags_only_added,
    ),
}


@pytest.fixture
def race_db(world_template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "race.db"
    for suffix in ("", "-wal"):
        if Path(f"{world_template}{suffix}").exists():
            shutil.copyfile(f"{world_template}{suffix}", f"{path}{suffix}")
    return path


class Hold:
    """The hooks: the thread named FIRST waits after its guard's decision until the
    thread named SECOND asks for the write lock."""

    FIRST, SECOND = "first-writer", "second-writer"

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.decided = threading.Event()
        self.second_asks_for_lock = threading.Event()
        real_check, real_begin = guard.check, db_module._begin_immediate

        def check_then_hold(*args: Any, **kwargs: Any) -> None:
            real_check(*args, **kwargs)
            if threading.current_thread().name == self.FIRST:
                self.decided.set()
                if not self.second_asks_for_lock.wait(DEADLINE_S):
                    raise AssertionError("the second writer never asked for the write lock")

        def announce_then_begin(driver: Any) -> None:
            if threading.current_thread().name == self.SECOND:
                self.second_asks_for_lock.set()
            real_begin(driver)

        monkeypatch.setattr(guard, "check", check_then_hold)
        monkeypatch.setattr(db_module, "_begin_immediate", announce_then_begin)


def _in_thread(name: str, work: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    done: list[Any] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # reported to the test, which fails with it
            done.append(exc)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread, done


def _race(
    path: Path, monkeypatch: pytest.MonkeyPatch, first: Callable, second: Callable
) -> tuple[Any, Any]:
    """`first(tools)` held after its decision while `second(tools)` runs; both results."""
    hold = Hold(monkeypatch)
    databases = [Database.open(path), Database.open(path)]
    try:
        tools = [toolbox(database, acting_user=NOAH) for database in databases]
        first_thread, first_done = _in_thread(Hold.FIRST, lambda: first(tools[0]))
        assert hold.decided.wait(DEADLINE_S), f"the first writer never decided: {first_done}"
        second_thread, second_done = _in_thread(Hold.SECOND, lambda: second(tools[1]))
        for thread in (first_thread, second_thread):
            thread.join(DEADLINE_S)
            assert not thread.is_alive(), f"{thread.name} did not finish"
    finally:
        for database in databases:
            database.close()
    return first_done[0], second_done[0]


@pytest.mark.parametrize("race", RACES.values(), ids=RACES.keys())
def test_the_second_writer_is_judged_on_the_first_ones_change(
    race_db: Path, monkeypatch: pytest.MonkeyPatch, race: Race
) -> None:
    first, second = _race(
        race_db,
        monkeypatch,
        lambda tools: tools.call(*race.first),
        lambda tools: tools.call(*race.second),
    )
    assert first.error is None, first.result
    assert (second.error, second.result.get("rule")) == ("POLICY_VIOLATION", race.refusal), (
        "both writers passed the guard: the second decided on the state before the first "
        f"one's write; it answered {second.result}"
    )
    assert second.changes == ()
    database = Database.open(race_db)
    try:
        race.after(database)
    finally:
        database.close()


def test_a_preview_is_judged_on_the_state_the_write_would_meet(
    race_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The approval step's preview decides in its own rolled-back rehearsal of the write:
    asked while a cancellation is being decided, it waits for it, then says the guard
    would refuse the change (instead of describing a change the call would be refused)."""
    first, preview = _race(
        race_db,
        monkeypatch,
        lambda tools: tools.call(*CANCEL_NEW001),
        lambda tools: tools.preview(*CHANGE_NEW001),
    )
    assert first.error is None, first.result
    assert preview.startswith("The guard would refuse this (POLICY_VIOLATION C5)"), preview
