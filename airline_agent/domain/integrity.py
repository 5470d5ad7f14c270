"""What `Database.open` checks before it hands out a database, each failure one line
that says what is wrong and what to run:

1. it is ours (`meta` says `app`) and of this schema version;
2. it is complete: the build that made it finished. Every build writes the `source`
   fact in the same transaction as the last of its rows (loading.py), so a build killed
   half-way (kill -9 during `seed`) leaves a database without it;
3. every table and column of the schema is there (one `pragma_table_info` query);
4. SQLite only: its pages are sound (`PRAGMA quick_check`) — run when the file changed
   since the last good check, since it reads every page (~6 ms for the default sample,
   ~0.5 s at `--scale 100`). The last good check is remembered in a small sidecar
   beside the database, `.NAME.checked` (its size, mtime, inode, and the size of a
   non-empty -wal),
   so that every `airline-agent call` does not pay for it again; where the folder
   cannot be written, in this process's memory. A sidecar that is missing, stale or
   garbled only means the check runs again.

Advice to rebuild with `--force` is given only for a file that is recognisably this
project's database (its `meta` says so: an older schema, an unfinished build, a missing
column, damaged pages found after that), never for a permission or locking problem
(rebuilding would destroy an intact database), and never for a file that is not ours or
cannot be read far enough to tell (`seed --force` refuses those: provisioning.py).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path

from sqlalchemy import Connection, inspect, text
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from airline_agent.domain import schema
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.postgres import columns_present
from airline_agent.domain.sqlite_files import SqliteFile, check_record, companions

# SQLite's primary result codes that mean "the file is not a sound database".
_NOT_A_DATABASE = {sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT}
_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}

_checked_lock = threading.Lock()
_checked_here: dict[str, tuple[int, ...]] = {}  # path -> signature of the last good check


def rebuild_hint(name: str) -> str:
    """The advice for a database that is recognisably ours (see the module docstring)."""
    return f"Rebuild it with `airline-agent seed --db {name} --force`."


def not_ours_hint() -> str:
    """The advice for what is not (or cannot be told to be) one of our databases: it is
    left alone, and a new one goes elsewhere."""
    return (
        "Give the path of an airline-agent database, or build one at a new path with "
        "`airline-agent seed --db PATH`."
    )


def unreadable(name: str, exc: DBAPIError, *, ours: bool = False) -> DatabaseUnavailable:
    """The one line for a driver error met while opening: a damaged file of ours may be
    rebuilt; one that cannot be told to be ours is only named; a permission, busy or I/O
    problem is named, and nothing is advised that would replace the file."""
    orig = exc.orig
    code = getattr(orig, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    if primary == sqlite3.SQLITE_CORRUPT:
        rebuild = f", or {rebuild_hint(name).lower()}" if ours else "."
        return DatabaseUnavailable(
            f"{name}: the database file is damaged ({orig}). Restore it from a copy{rebuild}"
        )
    if primary in _BUSY:
        return DatabaseUnavailable(
            f"{name}: busy: another program is changing it ({orig}). Try again in a moment."
        )
    if primary in _NOT_A_DATABASE or (primary is None and "not a database" in str(orig)):
        advice = rebuild_hint(name) if ours else f"Restore it from a copy. {not_ours_hint()}"
        return DatabaseUnavailable(f"{name}: cannot be read as a database ({orig}). {advice}")
    return DatabaseUnavailable(
        f"{name}: cannot be opened ({orig}); check that this user may read the file and its folder."
    )


def check_opened(connection: Connection, name: str, sqlite_file: SqliteFile | None) -> None:
    """Every check, in order, on one connection; raises DatabaseUnavailable (a driver's
    error as `unreadable` says it: with the advice to rebuild only once the file has
    shown it is ours)."""
    try:
        present = _columns_present(connection)
        if not present and connection.dialect.name != "sqlite":
            raise DatabaseUnavailable(
                f"{name}: holds no tables: not an airline-agent database yet. Build one in it "
                f"with `airline-agent seed --db {name}`."
            )
        if "meta" not in present:
            raise DatabaseUnavailable(
                f"{name}: not an airline-agent database (no `meta` table). {not_ours_hint()}"
            )
        rows = connection.execute(text("SELECT key, value FROM meta"))
        facts: dict[str, str] = {key: value for key, value in rows}
    except DBAPIError as exc:
        raise unreadable(name, exc) from exc
    check_facts(facts, name)
    try:
        check_schema(present, name)
        if sqlite_file is not None:
            check_pages(connection, sqlite_file, name)
    except DBAPIError as exc:
        raise unreadable(name, exc, ours=True) from exc


def is_ours(facts: dict[str, str]) -> bool:
    """The `meta` facts of a database this project built (complete or not, any schema)."""
    return facts.get("app") == schema.APP_MARKER


def check_facts(facts: dict[str, str], name: str) -> None:
    if not is_ours(facts):
        raise DatabaseUnavailable(f"{name}: not an airline-agent database. {not_ours_hint()}")
    if facts.get("schema_version") != schema.SCHEMA_VERSION:
        raise DatabaseUnavailable(
            f"{name}: built with schema {facts.get('schema_version')}, this version "
            f"needs {schema.SCHEMA_VERSION}. {rebuild_hint(name)}"
        )
    if facts.get(schema.COMPLETE_FACT) is None:
        raise DatabaseUnavailable(
            f"{name}: incomplete: the build that made it did not finish (interrupted?). "
            f"{rebuild_hint(name)}"
        )


def _columns_present(connection: Connection) -> dict[str, set[str]]:
    if connection.dialect.name == "sqlite":
        rows = connection.exec_driver_sql(
            "SELECT m.name, p.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p "
            "WHERE m.type = 'table'"
        )
        present: dict[str, set[str]] = {}
        for table, column in rows:
            present.setdefault(table, set()).add(column)
        return present
    if connection.dialect.name == "postgresql":
        return columns_present(connection)
    inspector = inspect(connection)
    return {
        table: {column["name"] for column in inspector.get_columns(table)}
        for table in inspector.get_table_names()
    }


def check_schema(present: dict[str, set[str]], name: str) -> None:
    """Every table and column of the schema is there; one line naming the first missing."""
    missing: list[str] = []
    for table in SQLModel.metadata.sorted_tables:
        if table.name not in present:
            missing.append(f"the `{table.name}` table")
            continue
        missing += [
            f"the `{column.name}` column of `{table.name}`"
            for column in table.columns
            if column.name not in present[table.name]
        ]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise DatabaseUnavailable(
            f"{name}: {missing[0]} is missing{more}: not the schema this version builds. "
            f"{rebuild_hint(name)}"
        )


def _signature(path: Path) -> tuple[int, ...]:
    """What changes when the file does: its size, mtime and inode, and the size of a
    write-ahead log holding pages not yet folded in (an empty or absent log, which every
    open and close makes and removes, is no change)."""
    stat = path.stat()
    wal = companions(path)[0]
    try:
        wal_size = wal.stat().st_size
    except FileNotFoundError:
        wal_size = 0
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_dev, wal_size)


def _last_good(path: Path) -> tuple[int, ...] | None:
    key = str(path.absolute())
    with _checked_lock:
        if key in _checked_here:
            return _checked_here[key]
    try:
        return tuple(json.loads(check_record(path).read_text(encoding="utf-8"))["signature"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remember_good(sqlite_file: SqliteFile, signature: tuple[int, ...]) -> None:
    with _checked_lock:
        _checked_here[str(sqlite_file.path.absolute())] = signature
    if sqlite_file.read_only:
        return  # its folder may not be writable either; memory is enough
    try:
        sidecar = check_record(sqlite_file.path)
        partial = sidecar.with_name(f"{sidecar.name}.{os.getpid()}")
        partial.write_text(json.dumps({"signature": list(signature)}), encoding="utf-8")
        os.replace(partial, sidecar)
    except OSError:
        pass  # only costs a check at the next open


def check_pages(connection: Connection, sqlite_file: SqliteFile, name: str) -> None:
    """`PRAGMA quick_check` when the file changed since its last good check."""
    signature = _signature(sqlite_file.path)
    if _last_good(sqlite_file.path) == signature:
        return
    found = [row[0] for row in connection.execute(text("PRAGMA quick_check(1)"))]
    if found != ["ok"]:
        # SQLite reports "*** in database main ***" then the problem, over several lines.
        lines = [line for line in str(found[0]).splitlines() if not line.startswith("***")]
        problem = "; ".join(lines) or "unreadable pages"
        raise DatabaseUnavailable(
            f"{name}: the database file is damaged (SQLite's check found: {problem}). "
            f"Restore it from a copy, or {rebuild_hint(name).lower()}"
        )
    _remember_good(sqlite_file, signature)


def vouch_for_copy(copy: Path) -> None:
    """`copy` was just made by this process from a database this process built (a run's
    fresh copy of its dataset): it is as sound as that one, so opening it does not check
    its pages again while it stays as it is now. Remembered in this process only."""
    with _checked_lock:
        _checked_here[str(copy.absolute())] = _signature(copy)


def forget_checks(path: Path) -> None:
    """Drop what is remembered of a file's last check (it is being replaced)."""
    with _checked_lock:
        _checked_here.pop(str(path.absolute()), None)
    check_record(path).unlink(missing_ok=True)
