"""A trial's database is a fresh copy of the run's import of db.json, made by the run: it
opens without SQLite's page check of the whole file (`PRAGMA quick_check`, most of what
starting a trial cost), and a copy that changed since it was made is checked again."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

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
