"""Engine, sessions and transactions for the reservations database.

`AIRLINE_AGENT_DB` (or `--db`) may be a file path or any SQLAlchemy URL. SQLite gets
foreign keys, WAL and a busy timeout on every connection.

A write transaction takes the database's write lock before its first read, so what it
reads (seats left, a balance, the next free id) stays true until it commits, and
concurrent writers queue for the lock (up to the busy timeout) instead of overwriting
each other. Readers are never blocked (WAL). On SQLite, as in SQLAlchemy's pysqlite
recipe ("Serializable isolation / Savepoints / Transactional DDL"), the driver's own
transaction handling is off (`isolation_level = None`: it would begin only before the
first INSERT/UPDATE, after the reads), and the write emits `BEGIN IMMEDIATE` itself on
its connection before anything else. It does so directly rather than from the recipe's
`begin` event listener: any connection-event listener makes SQLAlchemy dispatch events
around every statement of the engine (measured: +35 % function calls, ~5-12 % slower
single-writer writes). Other databases lock the rows a write reads (`FOR UPDATE`, see
operations/rows.py).

A SQLite file that cannot be written (its file or its folder) is opened read-only
(`mode=ro`, or `immutable=1` when not even the -wal/-shm companions can be made): reads
work, writes fail with `ReadOnlyDatabase`.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, OperationalError
from sqlmodel import Session, SQLModel, create_engine, select

from airline_agent.domain import schema
from airline_agent.domain.errors import (
    Conflict,
    DatabaseUnavailable,
    DomainError,
    ReadOnlyDatabase,
)
from airline_agent.domain.integrity import check_opened, not_ours_hint, unreadable
from airline_agent.domain.read_snapshots import ReadSource, read_source
from airline_agent.domain.sqlite_files import SqliteFile, not_a_database_file, sqlite_path

# How long a write waits for another writer's lock before it is a CONFLICT.
BUSY_TIMEOUT_MS = 20_000
# While a write waits for the lock it asks again every few ms. SQLite's own wait is not
# a queue: a waiter sleeps longer and longer (up to 100 ms between tries), so under
# sustained contention the writers that just finished win again at once and an early
# waiter starves (16 processes writing flat out on two busy cores: writes failed after
# 5 s, and after 20 s). Short waits, tried again until the deadline, keep every waiter
# as quick to ask as a newcomer.
_LOCK_POLL_MS = 10


def database_url(db: str | Path) -> str:
    """A path becomes a sqlite URL; anything with `://` is taken as a URL already."""
    text = str(db)
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).expanduser()}"


def describe(db: str | Path) -> str:
    """How to name the database to a user: the path for files, the URL without password."""
    text = str(db)
    if "://" not in text:
        return text
    try:
        return make_url(text).render_as_string(hide_password=True)
    except ArgumentError:
        return text


def _sqlite_connected(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    # No `journal_mode=WAL` here: it would write to any file opened, ours or not, before
    # `open` has checked it (`_write_ahead` sets it once a database proved ours).
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.close()


def _sqlite_connected_read_only(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    # The journal mode is the file's; a read-only connection can neither set nor need it.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()


def _write_ahead(connection: Connection) -> None:
    """WAL mode (readers never blocked by a writer), set in the file itself (it persists),
    on a database that is ours and may be written."""
    if connection.dialect.name != "sqlite":
        return
    mode = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
    if mode not in ("wal", "memory"):
        connection.exec_driver_sql("PRAGMA journal_mode=WAL").all()


def _driver_begins_nothing(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    # Transactions begin where this module says (`Database._locked`), never implicitly.
    dbapi_connection.isolation_level = None


def _busy(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _begin_immediate(driver: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE, waiting up to BUSY_TIMEOUT_MS for the lock in short waits (see
    _LOCK_POLL_MS); still busy at the deadline: the driver's OperationalError."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    driver.execute(f"PRAGMA busy_timeout={_LOCK_POLL_MS}")
    try:
        while True:
            try:
                driver.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not _busy(exc) or time.monotonic() >= deadline:
                    raise
    finally:
        driver.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")


def make_engine(db: str | Path, *, sqlite_file: SqliteFile | None = None) -> Engine:
    """An engine for the database; a SQLite file opened read-only gets its connections
    from `sqlite_file` (the URL keeps naming the file)."""
    url = database_url(db)
    options: dict[str, Any] = {}
    if sqlite_file is not None and sqlite_file.read_only:
        options["creator"] = sqlite_file.connect
    try:
        engine = create_engine(url, **options)
    except (ArgumentError, ImportError) as exc:
        raise DatabaseUnavailable(f"{describe(db)}: not a usable database URL ({exc})") from exc
    if engine.dialect.name == "sqlite":
        read_only = sqlite_file is not None and sqlite_file.read_only
        pragmas = _sqlite_connected_read_only if read_only else _sqlite_connected
        event.listen(engine, "connect", pragmas)
        if engine.dialect.driver == "pysqlite":
            event.listen(engine, "connect", _driver_begins_nothing)
    return engine


class Database:
    """One reservations database: read sessions, and write transactions that commit or
    roll back as a whole (a failed write leaves the database exactly as it was)."""

    def __init__(
        self, engine: Engine, location: str, *, sqlite_file: SqliteFile | None = None
    ) -> None:
        self.engine = engine
        self.location = location
        self.sqlite_file = sqlite_file
        self._begins_itself = engine.dialect.name == "sqlite" and engine.dialect.driver == (
            "pysqlite"
        )
        self._read_source: ReadSource | None = None
        self._read_source_lock = threading.Lock()

    @property
    def read_only(self) -> bool:
        return self.sqlite_file is not None and self.sqlite_file.read_only

    @classmethod
    def create(cls, db: str | Path) -> Database:
        """Create an empty database with the current schema (the file must not be ours yet).

        It is not complete until a build has filled it (`loading.load_rows`), so
        `open` refuses it until then."""
        path = sqlite_path(db)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        sqlite_file = SqliteFile(path, "read-write") if path is not None else None
        engine = make_engine(db)
        with engine.connect() as connection:
            _write_ahead(connection)
        SQLModel.metadata.create_all(engine)
        database = cls(engine, describe(db), sqlite_file=sqlite_file)
        with database.write() as session:
            session.merge(schema.Meta(key="app", value=schema.APP_MARKER))
            session.merge(schema.Meta(key="schema_version", value=schema.SCHEMA_VERSION))
        return database

    @classmethod
    def open(cls, db: str | Path) -> Database:
        """Open an existing, complete database built by this project, or explain what is
        wrong in one line (see integrity.py for what is checked)."""
        name = describe(db)
        path = sqlite_path(db)
        sqlite_file = None
        if path is not None:
            if not path.exists():
                raise DatabaseUnavailable(
                    f"{name}: no such database. Create it with `airline-agent seed --db {name}`."
                )
            # Looked at before SQLite opens it: a FIFO would block, and what is no
            # database is said as what it is (never with advice that would replace it).
            why = not_a_database_file(path)
            if why is not None:
                raise DatabaseUnavailable(
                    f"{name}: cannot be read as a database: it {why}. {not_ours_hint()}"
                )
            try:
                sqlite_file = SqliteFile.of(path)
            except OSError as exc:
                raise DatabaseUnavailable(f"{name}: cannot be opened: {exc}.") from None
        engine = make_engine(db, sqlite_file=sqlite_file)
        try:
            with engine.connect() as connection:
                check_opened(connection, name, sqlite_file)
                if sqlite_file is None or not sqlite_file.read_only:
                    _write_ahead(connection)
        except DBAPIError as exc:
            engine.dispose()
            raise unreadable(name, exc) from exc
        except DatabaseUnavailable:
            engine.dispose()
            raise
        return cls(engine, name, sqlite_file=sqlite_file)

    def session(self) -> Session:
        """A session for reads; nothing it does is committed."""
        return Session(self.engine, autoflush=False, expire_on_commit=False)

    @contextmanager
    def _locked(self) -> Iterator[Connection]:
        """A connection whose transaction holds the write lock from its first statement
        (SQLite: `BEGIN IMMEDIATE` at the driver; SQLAlchemy's commit and rollback end it)."""
        with self.engine.connect() as connection:
            if self._begins_itself:
                _begin_immediate(connection.connection.dbapi_connection)
            yield connection

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One transaction under the write lock: commits when the block ends, rolls back
        when it raises. A busy or read-only database is a domain error, not SQL."""
        if self.read_only:
            raise ReadOnlyDatabase(self._read_only_message())
        try:
            with (
                self._locked() as connection,
                Session(bind=connection, expire_on_commit=False) as session,
                session.begin(),
            ):
                yield session
        except (OperationalError, sqlite3.OperationalError) as exc:
            refusal = self._write_refused(exc)
            if refusal is None:
                raise
            raise refusal from exc
        except IntegrityError as exc:
            if self.engine.dialect.name == "sqlite":
                raise  # under SQLite's lock no writer can collide: this is a bug
            raise Conflict(
                "another change to the same records was made at the same moment; "
                "nothing was changed, try again"
            ) from exc

    @contextmanager
    def rehearsal(self) -> Iterator[Session]:
        """A write transaction that always rolls back (for previews): the same lock, so
        what it reads is what the real write would read."""
        if self.read_only:
            raise ReadOnlyDatabase(self._read_only_message())
        try:
            with (
                self._locked() as connection,
                Session(bind=connection, expire_on_commit=False) as session,
            ):
                session.begin()
                try:
                    yield session
                finally:
                    session.rollback()
        except (OperationalError, sqlite3.OperationalError) as exc:
            refusal = self._write_refused(exc)
            if refusal is None:
                raise
            raise refusal from exc

    def _read_only_message(self) -> str:
        return (
            f"the reservations database ({self.location}) is read-only here: its file or "
            "folder cannot be written. Nothing was changed; reads still work."
        )

    def _write_refused(self, exc: Exception) -> DomainError | None:
        """The domain error a driver's refusal to write means, if it is one of ours."""
        driver_error = getattr(exc, "orig", exc)
        code = getattr(driver_error, "sqlite_errorcode", None)
        primary = None if code is None else code & 0xFF
        if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            return Conflict(
                f"the database is busy with other changes (waited {BUSY_TIMEOUT_MS / 1000:g} s); "
                "nothing was changed, try again"
            )
        if primary == sqlite3.SQLITE_READONLY:
            return ReadOnlyDatabase(self._read_only_message())
        return None

    @contextmanager
    def bulk_load(self) -> Iterator[Connection]:
        """A connection for loading a whole database in one transaction (loading.py),
        the write lock taken; the caller begins and commits it (`connection.begin()`).

        On SQLite, foreign-key enforcement is paused (SQLite checks each child row
        otherwise) and the rollback journal replaces the WAL (a bulk load through the WAL
        writes every page twice); both come back afterwards. These pragmas only work
        outside a transaction, so they go straight to the driver, before the BEGIN."""
        with self.engine.connect() as connection:
            driver = connection.connection.dbapi_connection if self._begins_itself else None
            if driver is not None:
                driver.execute("PRAGMA foreign_keys=OFF")
                driver.execute("PRAGMA journal_mode=DELETE").fetchall()
                _begin_immediate(driver)
            try:
                yield connection
            finally:
                if driver is not None:
                    if driver.in_transaction:
                        driver.rollback()  # the caller's transaction did not commit
                    driver.execute("PRAGMA journal_mode=WAL").fetchall()
                    driver.execute("PRAGMA foreign_keys=ON")

    def reads(self, consistent: bool = True) -> Any:
        """A read snapshot for plain SQL (read_snapshots.py): `with database.reads() as r:`.
        Opened on first use; committed writes are visible to the next snapshot.
        `consistent=False`: each statement is its own snapshot (for one-statement reads)."""
        source = self._read_source
        if source is None:
            with self._read_source_lock:
                if self._read_source is None:
                    self._read_source = read_source(self.engine, self.sqlite_file)
                source = self._read_source
        return source.snapshot(consistent)

    def meta(self) -> dict[str, str]:
        with self.session() as session:
            return {m.key: m.value for m in session.exec(select(schema.Meta))}

    def close(self) -> None:
        if self._read_source is not None:
            self._read_source.close()
            self._read_source = None
        self.engine.dispose()
