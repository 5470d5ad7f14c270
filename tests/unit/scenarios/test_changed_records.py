"""`changed_records` finds the records whose rows differ, whatever rowids the rows have:
it compares the rows a run moved (changed, added, removed, written again elsewhere) only,
so a row written again with the same values at another rowid, or two rows that swapped
rowids, change nothing, and a row written again with another value is found."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from airline_agent.scenarios import datasets
from airline_agent.scenarios.dbdiff import changed_records


@pytest.fixture
def edited(tmp_path: Path) -> Callable[[str], set[tuple[str, str]]]:
    """`edit(sql)`: the sample copied, the SQL run on the copy, and what changed."""
    pristine = datasets.pristine("sample")

    def edit(sql: str) -> set[tuple[str, str]]:
        copy = tmp_path / "copy.db"
        shutil.copyfile(pristine, copy)
        with sqlite3.connect(copy) as conn:
            conn.executescript(sql)
        conn.close()
        return changed_records(pristine, copy)

    return edit


def test_a_copy_changes_nothing(edited: Callable[[str], set[tuple[str, str]]]) -> None:
    assert edited("") == set()


def test_a_row_written_again_at_a_new_rowid_changes_nothing(
    edited: Callable[[str], set[tuple[str, str]]],
) -> None:
    assert (
        edited(
            "CREATE TEMP TABLE kept AS SELECT * FROM payment WHERE rowid = 1;"
            "DELETE FROM payment WHERE rowid = 1;"
            "INSERT INTO payment SELECT * FROM kept;"
        )
        == set()
    )


def test_two_rows_that_swapped_rowids_change_nothing(
    edited: Callable[[str], set[tuple[str, str]]],
) -> None:
    assert (
        edited(
            "CREATE TEMP TABLE kept AS"
            " SELECT rowid AS was, * FROM flightdate WHERE rowid IN (1, 2);"
            "DELETE FROM flightdate WHERE rowid IN (1, 2);"
            "INSERT INTO flightdate (rowid, flight_number, date, status, seats_basic_economy,"
            " seats_economy, seats_business, price_basic_economy, price_economy, price_business,"
            " actual_departure_time_est, actual_arrival_time_est, estimated_departure_time_est,"
            " estimated_arrival_time_est) SELECT 3 - was, flight_number, date, status,"
            " seats_basic_economy, seats_economy, seats_business, price_basic_economy,"
            " price_economy, price_business, actual_departure_time_est, actual_arrival_time_est,"
            " estimated_departure_time_est, estimated_arrival_time_est FROM kept;"
        )
        == set()
    )


def test_a_changed_value_is_found_in_place_or_written_again_elsewhere(
    edited: Callable[[str], set[tuple[str, str]]],
) -> None:
    pristine = datasets.pristine("sample")
    with sqlite3.connect(pristine) as conn:
        (number,) = conn.execute("SELECT flight_number FROM flightdate WHERE rowid = 1").fetchone()
        (reservation,) = conn.execute(
            "SELECT reservation_id FROM payment WHERE rowid = 1"
        ).fetchone()
    conn.close()
    in_place = "UPDATE flightdate SET status = status || '!' WHERE rowid = 1;"
    assert edited(in_place) == {("flights", number)}
    elsewhere = (
        "CREATE TEMP TABLE kept AS SELECT * FROM payment WHERE rowid = 1;"
        "DELETE FROM payment WHERE rowid = 1;"
        "UPDATE kept SET amount = amount + 1;"
        "INSERT INTO payment SELECT * FROM kept;"
    )
    assert edited(elsewhere) == {("reservations", reservation)}


def test_a_reservation_removed_changes_it_and_its_owner(
    edited: Callable[[str], set[tuple[str, str]]],
) -> None:
    pristine = datasets.pristine("sample")
    with sqlite3.connect(pristine) as conn:
        reservation, user = conn.execute(
            "SELECT reservation_id, user_id FROM reservation WHERE rowid = 1"
        ).fetchone()
    conn.close()
    assert edited("DELETE FROM reservation WHERE rowid = 1;") == {
        ("reservations", reservation),
        ("users", user),
    }
