from pathlib import Path

import pytest

from airline_agent.domain.db import Database
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.tau2 import import_tau2


def test_missing_database_names_the_file_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(
        DatabaseUnavailable, match=r"nope\.db: no such database.*airline-agent seed"
    ):
        Database.open(tmp_path / "nope.db")


def test_foreign_sqlite_file_is_refused(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "other.db"
    sqlite3.connect(path).execute("create table t(x)").connection.commit()
    with pytest.raises(DatabaseUnavailable, match="not an airline-agent database"):
        Database.open(path)


def test_garbage_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "garbage.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(DatabaseUnavailable, match="cannot be read"):
        Database.open(path)


def test_created_database_opens_with_pragmas(tmp_path: Path) -> None:
    # Created and filled (here with nothing): a database opens only once a build finished.
    created = Database.create(tmp_path / "a.db")
    import_tau2(created, {"flights": {}, "users": {}, "reservations": {}})
    created.close()
    database = Database.open(tmp_path / "a.db")
    with database.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert database.meta()["app"] == "airline-agent"


@pytest.mark.filterwarnings("error::DeprecationWarning")
def test_opening_a_database_makes_no_deprecated_call(tmp_path: Path) -> None:
    # A deprecated SQLAlchemy call stops working on the next upgrade: opening (every
    # command does) must use only the supported forms.
    created = Database.create(tmp_path / "a.db")
    import_tau2(created, {"flights": {}, "users": {}, "reservations": {}})
    created.close()
    database = Database.open(tmp_path / "a.db")
    assert database.meta()["app"] == "airline-agent"
    database.close()
