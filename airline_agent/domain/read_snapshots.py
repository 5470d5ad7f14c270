"""Read snapshots: how the read tools reach the database (plain SQL, one consistent
snapshot per tool call).

Reads are the hot path of every conversation (each turn looks up a customer, a
reservation, flights), so they skip SQLAlchemy's statement building, connection pool and
result machinery. The SQL is written once, with `:name` parameters, and runs on one of:

- `SqliteReads`: a SQLite file database. One long-lived `sqlite3` connection per
  `Database` in autocommit mode, so sqlite3's statement cache keeps every read prepared;
  the `:name` parameters are bound by position (`by_position`), as sqlite3 does fastest.
  Thread-safety: the TUI calls tools from worker threads, so the connection is opened
  with `check_same_thread=False` and every snapshot holds a (re-entrant) lock. One
  connection and a lock rather than a connection per thread: reads take microseconds,
  so contention is negligible, and there is exactly one connection for
  `Database.close()` to close (per-thread connections of finished threads would linger
  until garbage collection, holding the file open).
- `ConnectionReads`: any SQLAlchemy connection, through `text()` (other URLs, in-memory
  SQLite).
- `reads_on(connection)`: the reads a write transaction makes in itself (the guard's
  facts, the result it returns), on its own connection, so they see its uncommitted rows
  (flushed first). On the pysqlite driver they go straight to that connection's sqlite3
  cursor (`DriverReads`), as fast as the read tools' own; elsewhere through `text()`.

A snapshot is one read transaction (`BEGIN` … `COMMIT`): the several queries of one
lookup see the same committed state, and committed writes from other connections are
visible to the next snapshot (WAL). A lookup that is one statement (or whose later
statements only resolve ids that never change) uses a source's `statements` instead:
no block and no transaction to begin and end, each statement its own snapshot
(autocommit); inside an open snapshot of the same thread they run in its transaction.
Every query is fetched completely so no statement keeps a read transaction open after
the snapshot ends.
"""

from __future__ import annotations

import operator
import re
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from sqlalchemy import Connection, text
from sqlalchemy.engine import Engine
from sqlalchemy.sql.elements import TextClause

from airline_agent.domain.sqlite_files import SqliteFile

# What a column holds and a parameter binds (SQLite's storage classes, as drivers give them).
SqlValue = str | int | float | bytes | None
Params = Mapping[str, SqlValue]
Row = Sequence[SqlValue]


class Reads(Protocol):
    """Plain SQL (with `:name` parameters) in, rows as tuples out."""

    def rows(self, sql: str, params: Params = ...) -> Sequence[Row]: ...

    def row(self, sql: str, params: Params = ...) -> Row | None: ...

    def value(self, sql: str, params: Params = ...) -> SqlValue: ...


class ReadSource(Protocol):
    """Something that opens a snapshot (`with source.snapshot() as reads: ...`) and reads
    outside one (`source.statements.value(...)`, each statement its own snapshot)."""

    statements: Reads

    def snapshot(self) -> AbstractContextManager[Reads]: ...

    def close(self) -> None: ...


_NO_PARAMS: Params = {}


# ---------------------------------------------------------------- sqlite3: bound by position

# sqlite3 binds a `:name` parameter by asking SQLite for the name, making a Python string
# of it and looking that up in the dict, for each parameter of each statement run: a
# tenth of a one-row lookup's cost. The same SQL with `?NNN` parameters is bound by
# position from a tuple, which one `itemgetter` picks out of the dict in C.
_STRING_OR_NAME = re.compile(
    r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\]|--[^\n]*|/\*.*?\*/|(?<![:\w]):(\w+)""",
    re.S,
)
Pick = Callable[[Params], Sequence[SqlValue]]
_BY_POSITION: dict[str, tuple[str, Pick]] = {}


def _no_values(_params: Params) -> tuple[()]:
    return ()


def by_position(sql: str) -> tuple[str, Pick]:
    """`sql` with its `:name` parameters numbered (`?1`, `?2`, … in order of first use; a
    name used twice keeps its number), and what picks their values out of a params dict
    in that order. Quoted text, quoted names and comments are left as they are. Worked
    out once per statement text."""
    found = _BY_POSITION.get(sql)
    if found is not None:
        return found
    numbers: dict[str, int] = {}

    def number(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:  # a quoted string or name, or a comment
            return match.group()
        return f"?{numbers.setdefault(name, len(numbers) + 1)}"

    text = _STRING_OR_NAME.sub(number, sql)
    names = list(numbers)
    pick: Pick
    if not names:
        text, pick = sql, _no_values
    elif len(names) == 1:
        (only,) = names

        def pick(params: Params) -> tuple[SqlValue]:
            return (params[only],)
    else:
        pick = operator.itemgetter(*names)
    if len(_BY_POSITION) >= _MAX_TEXTS:  # statements built per call (IN lists) stay few
        _BY_POSITION.clear()
    found = _BY_POSITION[sql] = (text, pick)
    return found


_MAX_TEXTS = 1024


# ---------------------------------------------------------------- SQLite file: bare sqlite3


class SqliteReads:
    """One sqlite3 connection for every read of one database (see the module docstring)."""

    def __init__(self, sqlite_file: SqliteFile) -> None:
        # Opened with the database's own access (read-only where it cannot be written).
        connection = sqlite_file.connect(isolation_level=None, cached_statements=512)
        # The same settings as the engine's connections (db.py); WAL is a property of
        # the file and already set by whoever created it.
        connection.execute("PRAGMA foreign_keys=ON")
        connection.execute("PRAGMA busy_timeout=5000")
        connection.execute("PRAGMA query_only=ON")  # this connection never writes
        self._connection = connection
        self._cursor = connection.cursor()  # only used with the lock held
        # Re-entrant: a read made inside another read of the same thread (a helper that
        # looks something up) joins it instead of waiting for itself forever.
        self._lock = threading.RLock()
        # Each statement taking the lock by itself: one object serves every thread.
        self.statements = _SqliteStatements(self)

    def snapshot(self) -> _SqliteSnapshot:
        return _SqliteSnapshot(self)

    def close(self) -> None:
        with self._lock:
            self._connection.close()


class _SqliteStatements:
    """Reads outside any snapshot: each statement its own (autocommit), under the lock."""

    __slots__ = ("_cursor", "_lock")

    def __init__(self, source: SqliteReads) -> None:
        self._cursor = source._cursor
        self._lock = source._lock

    # acquire/release rather than `with`: half the cost, a tenth of a one-row lookup's.
    def rows(self, sql: str, params: Params = _NO_PARAMS) -> list[Row]:
        text, pick = _BY_POSITION.get(sql) or by_position(sql)
        self._lock.acquire()
        try:
            return self._cursor.execute(text, pick(params)).fetchall()
        finally:
            self._lock.release()

    def row(self, sql: str, params: Params = _NO_PARAMS) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def value(self, sql: str, params: Params = _NO_PARAMS) -> SqlValue:
        found = self.rows(sql, params)
        return found[0][0] if found else None


class _SqliteSnapshot:
    """The lock held and one read transaction open for a `with` block."""

    __slots__ = ("_began", "_connection", "_cursor", "_lock")

    def __init__(self, source: SqliteReads) -> None:
        self._connection = source._connection
        self._cursor = source._cursor
        self._lock = source._lock
        self._began = False

    def __enter__(self) -> _SqliteSnapshot:
        self._lock.acquire()
        # Inside an enclosing snapshot, its transaction is already the snapshot.
        if not self._connection.in_transaction:
            try:
                self._cursor.execute("BEGIN")
            except BaseException:
                self._lock.release()
                raise
            self._began = True
        return self

    def __exit__(self, *_exc: object) -> None:
        try:
            if self._began and self._connection.in_transaction:
                self._cursor.execute("COMMIT")  # nothing was written: just ends the read
        finally:
            self._lock.release()

    def rows(self, sql: str, params: Params = _NO_PARAMS) -> list[Row]:
        text, pick = _BY_POSITION.get(sql) or by_position(sql)
        return self._cursor.execute(text, pick(params)).fetchall()

    def row(self, sql: str, params: Params = _NO_PARAMS) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def value(self, sql: str, params: Params = _NO_PARAMS) -> SqlValue:
        found = self.rows(sql, params)
        return found[0][0] if found else None


class _SnapshotPerStatement:
    """Reads outside any snapshot for a source whose blocks are connections (SQLAlchemy,
    psycopg): each statement in an autocommit block of its own (`open_block`)."""

    __slots__ = ("_open_block",)

    def __init__(self, open_block: Callable[[], AbstractContextManager[Reads]]) -> None:
        self._open_block = open_block

    def rows(self, sql: str, params: Params = _NO_PARAMS) -> Sequence[Row]:
        with self._open_block() as reads:
            return reads.rows(sql, params)

    def row(self, sql: str, params: Params = _NO_PARAMS) -> Row | None:
        with self._open_block() as reads:
            return reads.row(sql, params)

    def value(self, sql: str, params: Params = _NO_PARAMS) -> SqlValue:
        with self._open_block() as reads:
            return reads.value(sql, params)


# ---------------------------------------------------------------- anything else: SQLAlchemy


_TEXTS: dict[str, TextClause] = {}


def _text(sql: str) -> TextClause:
    clause = _TEXTS.get(sql)
    if clause is None:
        clause = _TEXTS[sql] = text(sql)
    return clause


class ConnectionReads:
    """The same reads on a SQLAlchemy connection (inside a write, or a non-SQLite URL)."""

    __slots__ = ("_connection",)

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def rows(self, sql: str, params: Params = _NO_PARAMS) -> Sequence[Row]:
        return self._connection.execute(_text(sql), dict(params)).all()

    def row(self, sql: str, params: Params = _NO_PARAMS) -> Row | None:
        return self._connection.execute(_text(sql), dict(params)).first()

    def value(self, sql: str, params: Params = _NO_PARAMS) -> SqlValue:
        found = self._connection.execute(_text(sql), dict(params)).first()
        return None if found is None else found[0]


class DriverReads:
    """The reads on a pysqlite connection's own sqlite3 cursor, in the transaction
    SQLAlchemy holds open on it (see `reads_on`)."""

    __slots__ = ("_cursor",)

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._cursor = connection.cursor()

    def rows(self, sql: str, params: Params = _NO_PARAMS) -> list[Row]:
        text, pick = _BY_POSITION.get(sql) or by_position(sql)
        return self._cursor.execute(text, pick(params)).fetchall()

    def row(self, sql: str, params: Params = _NO_PARAMS) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def value(self, sql: str, params: Params = _NO_PARAMS) -> SqlValue:
        found = self.rows(sql, params)
        return found[0][0] if found else None


def reads_on(connection: Connection) -> Reads:
    """Plain-SQL reads inside the transaction open on `connection` (a write's)."""
    if connection.dialect.driver == "pysqlite":
        driver = connection.connection.dbapi_connection
        if isinstance(driver, sqlite3.Connection):
            return DriverReads(driver)
    return ConnectionReads(connection)


class EngineReads:
    """Snapshots on pooled SQLAlchemy connections (one transaction each)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.statements = _SnapshotPerStatement(lambda: _EngineSnapshot(engine, False))

    def snapshot(self) -> _EngineSnapshot:
        return _EngineSnapshot(self._engine, True)

    def close(self) -> None:  # the engine's pool is closed with the engine
        pass


class _EngineSnapshot:
    """One pooled connection for a `with` block. PostgreSQL's default isolation (READ
    COMMITTED) takes a new snapshot per statement, so a consistent read of several
    statements asks for REPEATABLE READ: one snapshot for the whole transaction."""

    def __init__(self, engine: Engine, consistent: bool) -> None:
        self._engine = engine
        self._consistent = consistent and engine.dialect.name == "postgresql"
        self._connection: Connection | None = None

    def __enter__(self) -> ConnectionReads:
        connection = self._engine.connect()
        if self._consistent:
            connection = connection.execution_options(
                isolation_level="REPEATABLE READ", postgresql_readonly=True
            )
        self._connection = connection
        return ConnectionReads(connection)

    def __exit__(self, *_exc: object) -> None:
        assert self._connection is not None
        self._connection.close()  # rolls back the read transaction
        self._connection = None


# ---------------------------------------------------------------- PostgreSQL: bare psycopg


_PYFORMAT: dict[str, str] = {}


def _pyformat(sql: str) -> str:
    """`:name` parameters as psycopg's `%(name)s` (the read SQL has no other colons or
    percent signs), converted once per statement text."""
    converted = _PYFORMAT.get(sql)
    if converted is None:
        import re

        converted = _PYFORMAT[sql] = re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", sql)
    return converted


class PostgresReads:
    """One psycopg connection in autocommit for every read of one database, as
    `SqliteReads` for a file: no pool checkout, no reset on return, and psycopg prepares
    a statement on the server once it has run a few times. A consistent snapshot is
    `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY` … `COMMIT` (READ COMMITTED would
    see a new state per statement). A connection the server dropped (a restart) is
    replaced when a snapshot's first statement finds it gone: nothing was read on it
    yet, so reading again is safe; a server that cannot be reached is `ServerUnreachable`,
    one lost half-way through a snapshot `ConnectionLost` (each one line for a tool)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._connection: Any = None
        self._lock = threading.RLock()
        self.statements = _SnapshotPerStatement(lambda: _PostgresSnapshot(self, False))

    def connect(self) -> Any:
        import psycopg

        if self._connection is None or self._connection.closed or self._connection.broken:
            args, options = self._engine.dialect.create_connect_args(self._engine.url)
            options = {**options, "autocommit": True}
            options.setdefault("connect_timeout", 10)
            try:
                self._connection = psycopg.connect(*args, **options)
            except psycopg.OperationalError as exc:
                from airline_agent.domain.postgres import unreachable_now

                raise unreachable_now(exc) from exc
        return self._connection

    def snapshot(self) -> _PostgresSnapshot:
        return _PostgresSnapshot(self, True)

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


class _PostgresSnapshot:
    __slots__ = ("_began", "_consistent", "_cursor", "_fresh", "_source")

    def __init__(self, source: PostgresReads, consistent: bool) -> None:
        self._source = source
        self._consistent = consistent
        self._began = False
        self._fresh = True  # nothing read yet: a lost connection may be replaced
        self._cursor: Any = None

    def __enter__(self) -> _PostgresSnapshot:
        self._source._lock.acquire()
        try:
            connection = self._source.connect()
            self._cursor = connection.cursor()
            if self._consistent and connection.info.transaction_status == 0:  # idle
                self._execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", _NO_PARAMS)
                self._began = True
        except BaseException:
            self._source._lock.release()
            raise
        return self

    def __exit__(self, *_exc: object) -> None:
        try:
            connection = self._source._connection
            if self._began and connection is not None and not connection.broken:
                connection.execute("COMMIT")  # nothing was written: just ends the read
        finally:
            self._source._lock.release()

    def _execute(self, sql: str, params: Params) -> None:
        import psycopg

        try:
            self._cursor.execute(sql, params or None)
        except psycopg.OperationalError as exc:
            if not self._source._connection.broken:
                raise
            if not self._fresh:  # part of a snapshot was read on the lost connection
                from airline_agent.domain.postgres import lost_while_reading

                raise lost_while_reading(exc) from exc
            self._cursor = self._source.connect().cursor()
            self._cursor.execute(sql, params or None)
        self._fresh = False

    def rows(self, sql: str, params: Params = _NO_PARAMS) -> list[Row]:
        self._execute(_pyformat(sql), params)
        return self._cursor.fetchall()

    def row(self, sql: str, params: Params = _NO_PARAMS) -> Row | None:
        found = self.rows(sql, params)
        return found[0] if found else None

    def value(self, sql: str, params: Params = _NO_PARAMS) -> SqlValue:
        found = self.rows(sql, params)
        return found[0][0] if found else None


def read_source(engine: Engine, sqlite_file: SqliteFile | None) -> ReadSource:
    """Bare sqlite3 for a SQLite file, bare psycopg for PostgreSQL; SQLAlchemy connections
    for anything else (an in-memory database only exists on the engine's own
    connections, and a URL with options is the user's to have applied)."""
    if sqlite_file is not None and engine.dialect.driver == "pysqlite":
        return SqliteReads(sqlite_file)
    if engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg":
        return PostgresReads(engine)
    return EngineReads(engine)
