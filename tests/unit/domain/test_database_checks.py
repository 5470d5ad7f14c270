"""What `Database.open` refuses (issue 10 §4): a database missing a table or a column, a
file with damaged pages, a build that never finished; and what the next build cleans."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from airline_agent.domain.db import Database
from airline_agent.domain.errors import DatabaseUnavailable


@pytest.fixture
def copy(world_template: Path, tmp_path: Path) -> Path:
    """A private copy of the small world database (no -wal: the template was closed)."""
    path = tmp_path / "world.db"
    path.write_bytes(world_template.read_bytes())
    return path


def _execute(path: Path, *statements: str) -> None:
    connection = sqlite3.connect(path)
    try:
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    finally:
        connection.close()


def test_a_missing_table_is_refused_at_open_naming_it_and_what_to_run(copy: Path) -> None:
    _execute(copy, "PRAGMA foreign_keys=OFF", "DROP TABLE payment")
    with pytest.raises(DatabaseUnavailable) as refused:
        Database.open(copy)
    message = str(refused.value)
    assert "the `payment` table is missing" in message
    assert f"airline-agent seed --db {copy} --force" in message
    assert "\n" not in message


def test_a_missing_column_is_refused_at_open_naming_it(copy: Path) -> None:
    _execute(copy, 'ALTER TABLE "user" DROP COLUMN email')
    with pytest.raises(DatabaseUnavailable, match=r"the `email` column of `user` is missing"):
        Database.open(copy)


def _damage_a_page(path: Path, table: str) -> None:
    """Overwrite the root page of `table` with garbage, as a failing disk might; the
    file's size stays the same."""
    connection = sqlite3.connect(path)
    try:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        (root,) = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)
        ).fetchone()
    finally:
        connection.close()
    with path.open("r+b") as file:
        file.seek((root - 1) * page_size)
        file.write(bytes([0xA5]) * page_size)


def _touch(path: Path) -> None:
    """A later mtime: the damaging write may land in the same tick of a coarse file-system
    clock as the last good check, which a change of size and mtime would then miss."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_damaged_pages_are_refused_at_open_with_one_clear_line(copy: Path) -> None:
    Database.open(copy).close()  # a good check on record
    _damage_a_page(copy, "flightdate")
    _touch(copy)
    with pytest.raises(DatabaseUnavailable) as refused:
        Database.open(copy)
    message = str(refused.value)
    assert "damaged" in message and "\n" not in message
    assert "Restore it from a copy" in message


@pytest.fixture
def quick_checks() -> Iterator[list[str]]:
    """The quick checks run on any engine while the test runs."""
    seen: list[str] = []

    def record(_conn, _cursor, statement: str, *_args: object) -> None:
        if "quick_check" in statement:
            seen.append(statement)

    event.listen(Engine, "before_cursor_execute", record)
    yield seen
    event.remove(Engine, "before_cursor_execute", record)


def test_the_quick_check_runs_only_when_the_file_changed(
    copy: Path, quick_checks: list[str]
) -> None:
    Database.open(copy).close()
    assert len(quick_checks) == 1
    Database.open(copy).close()
    assert len(quick_checks) == 1, "an unchanged file is not checked again"
    assert (copy.parent / f".{copy.name}.checked").is_file()  # remembered across processes
    _touch(copy)
    Database.open(copy).close()
    assert len(quick_checks) == 2


def test_a_database_whose_build_never_finished_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "half.db"
    Database.create(path).close()  # created, never filled: what a killed build leaves
    with pytest.raises(DatabaseUnavailable) as refused:
        Database.open(path)
    assert "incomplete" in str(refused.value)
    assert f"airline-agent seed --db {path} --force" in str(refused.value)


def test_the_next_build_removes_abandoned_builds_but_not_running_ones(tmp_path: Path) -> None:
    from airline_agent.domain.provisioning import remove_abandoned_builds

    target = tmp_path / "airline.db"
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead = int(finished.stdout)
    running = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        abandoned = [tmp_path / f".airline.db.building-{dead}{s}" for s in ("", "-journal")]
        alive = tmp_path / f".airline.db.building-{running.pid}"
        for leftover in [*abandoned, alive]:
            leftover.write_bytes(b"half a database")
        removed = remove_abandoned_builds(target)
        assert removed == [tmp_path / f".airline.db.building-{dead}"]
        assert not any(p.exists() for p in abandoned)
        assert alive.exists()
    finally:
        running.communicate(b"")
