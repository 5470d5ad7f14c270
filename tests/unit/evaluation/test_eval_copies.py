"""A trial's database is a fresh copy of the run's import of db.json, made by the run: it
opens without SQLite's page check of the whole file (`PRAGMA quick_check`, most of what
starting a trial cost), and a copy that changed since it was made is checked again. A
trial's database given back is made pristine again for the next trial, and stays open."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event, update
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from airline_agent.domain.schema import Reservation
from airline_agent.evaluation.reward import ReferenceStates
from airline_agent.scenarios.datasets import FileDatasets
from airline_agent.stack import open_existing_database
from tests.conftest import TAU2_DIR, tau2_files


@pytest.fixture
def page_checks() -> Iterator[list[str]]:
    seen: list[str] = []

    def watch(conn, cursor, statement, parameters, context, executemany) -> None:
        if "quick_check" in statement:
            seen.append(statement)

    event.listen(Engine, "before_cursor_execute", watch)
    yield seen
    event.remove(Engine, "before_cursor_execute", watch)


@pytest.fixture
def copies() -> FileDatasets:
    tau2_files()
    return FileDatasets("tau2", TAU2_DIR)


def test_a_fresh_copy_opens_without_a_page_check(copies, page_checks) -> None:
    copy = copies.fresh_copy("trial")
    try:
        open_existing_database(copy).close()
    finally:
        copies.discard(copy)
    assert page_checks == []


def test_a_copy_changed_since_it_was_made_is_checked(copies, page_checks) -> None:
    copy = Path(copies.fresh_copy("trial"))
    try:
        with sqlite3.connect(copy) as changed:
            changed.execute("CREATE TABLE scribble (x)")
        open_existing_database(copy).close()
    finally:
        copies.discard(copy)
    assert len(page_checks) == 1


def _status(copy: Path, reservation_id: str) -> str | None:
    with sqlite3.connect(copy) as connection:
        return connection.execute(
            "SELECT status FROM reservation WHERE reservation_id = ?", (reservation_id,)
        ).fetchone()[0]


def test_a_trial_s_database_given_back_serves_the_next_trial_pristine(copies) -> None:
    references = ReferenceStates(TAU2_DIR, copies=copies)
    copy, database = references.trial_database("task-1-trial-0")
    with database.write() as session:
        session.exec(
            update(Reservation)
            .where(col(Reservation.reservation_id) == "NO6JO3")
            .values(status="cancelled")
        )
    with database.read() as session:  # a connection left in its pool, as a trial leaves one
        session.exec(select(Reservation)).first()
    assert _status(Path(copy), "NO6JO3") == "cancelled"
    references.give_back(copy, database)
    again, reopened = references.trial_database("task-1-trial-1")
    # The same database, opened once (what SQLAlchemy compiled for it kept), the trial's
    # change gone: the next trial starts from the import, as a new copy would.
    assert (again, reopened) == (copy, database)
    assert _status(Path(copy), "NO6JO3") is None
    with reopened.read() as session:
        found = session.exec(
            select(Reservation).where(col(Reservation.reservation_id) == "NO6JO3")
        ).one()
    assert found.status is None
    references.give_back(again, reopened)
    references.close()
    assert not Path(copy).exists()  # the spare went with the run
