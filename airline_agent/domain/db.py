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

PostgreSQL (postgres.py): writes run in READ COMMITTED and lock, `FOR UPDATE`, every row
their decision reads; a transaction the server rolls back because another got in its way
(a serialization failure, a deadlock, two new rows with one key) is run again from the
start by `Database.run_write`, a few times, before it is a CONFLICT. A connection lost
before the commit was sent changed nothing (the server rolls back what it never saw
committed) and is tried again on a new connection; one lost while committing is said as
what it is: the change may or may not have been saved. A database is built in one
transaction (its DDL is transactional: `Database.create` leaves the schema to the load),
so a failed or killed build leaves the database as it was.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, TypeVar

from sqlalchemy import Connection, delete, event, insert
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError
from sqlmodel import Session, SQLModel, col, create_engine, select

from airline_agent.domain import schema
from airline_agent.domain.database_urls import redact_url
from airline_agent.domain.errors import (
    CommitUncertain,
    Conflict,
    ConnectionLost,
    Contended,
    DatabaseUnavailable,
    DomainError,
    ReadOnlyDatabase,
)
from airline_agent.domain.integrity import check_opened, not_ours_hint, unreadable
from airline_agent.domain.postgres import (
    Server,
    connection_lost,
    database_name,
    engine_options,
    first_line,
    lost_while_reading,
    postgres_url,
    unreachable,
    unreachable_now,
    write_problem,
)
from airline_agent.domain.sqlite_files import (
    SqliteFile,
    copy_sqlite,
    not_a_database_file,
    sqlite_file,
    sqlite_path,
)

# How long a write waits for another writer's lock before it is a CONFLICT.
BUSY_TIMEOUT_MS = 20_000
# While a write waits for the lock it asks again every few ms. SQLite's own wait is not
# a queue: a waiter sleeps longer and longer (up to 100 ms between tries), so under
# sustained contention the writers that just finished win again at once and an early
# waiter starves (16 processes writing flat out on two busy cores: writes failed after
# 5 s, and after 20 s). Short waits, tried again until the deadline, keep every waiter
# as quick to ask as a newcomer.
_LOCK_POLL_MS = 10
# How many times a write the server rolled back for a concurrent one (PostgreSQL: a
# serialization failure, a deadlock, a key taken at the same moment) or whose connection
# was lost before its commit is run again before the caller is told.
WRITE_ATTEMPTS = 5

T = TypeVar("T")


def database_url(db: str | Path) -> str:
    """A path becomes a sqlite URL; anything with `://` is taken as a URL already
    (`postgresql://` and `postgres://` with psycopg 3 as the driver)."""
    text = str(db)
    if "://" in text:
        url = postgres_url(text)
        return text if url is None else url.render_as_string(hide_password=False)
    return f"sqlite:///{Path(text).expanduser()}"


def describe(db: str | Path) -> str:
    """How to name the database to a user: the path for files, the URL as written with
    its password masked in every place a URL (or a connection string given as a path) can
    carry one (database_urls.py), also when the URL cannot be parsed."""
    return redact_url(str(db))


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


def _driver(connection: Connection) -> sqlite3.Connection:
    """The sqlite3 connection under a pysqlite one (where this module begins transactions)."""
    driver = connection.connection.dbapi_connection
    assert isinstance(driver, sqlite3.Connection), driver
    return driver


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


def _postgres_url(db: str | Path) -> URL | None:
    """The PostgreSQL URL `db` names, or None."""
    return postgres_url(str(db))


def _mark_ours(connection: Connection) -> None:
    """The `meta` facts that make a database recognisably ours (not yet complete)."""
    facts = {"app": schema.APP_MARKER, "schema_version": schema.SCHEMA_VERSION}
    connection.execute(delete(schema.Meta).where(col(schema.Meta.key).in_(facts)))
    connection.execute(insert(schema.Meta), [{"key": k, "value": v} for k, v in facts.items()])


def first_connection(engine: Engine, name: str) -> Connection:
    """The engine's first connection; on a server, a failure to reach it, log in or find
    the database is one line saying which (postgres.unreachable)."""
    try:
        return engine.connect()
    except DBAPIError as exc:
        if engine.dialect.name != "postgresql":
            raise
        raise unreachable(name, exc) from exc


def make_engine(db: str | Path, *, sqlite_file: SqliteFile | None = None) -> Engine:
    """An engine for the database; a SQLite file opened read-only gets its connections
    from `sqlite_file` (the URL keeps naming the file)."""
    url = database_url(db)
    options: dict[str, Any] = {}
    if sqlite_file is not None and sqlite_file.read_only:
        options["creator"] = sqlite_file.connect
    try:
        parsed = make_url(url)
        if parsed.get_backend_name() == "postgresql":
            options.update(engine_options(parsed))
        engine = create_engine(url, **options)
    except ImportError as exc:
        raise DatabaseUnavailable(
            f"{describe(db)}: this URL's database driver is not installed ({exc}). For "
            "PostgreSQL: pip install 'airline-agent[postgres]' (psycopg 3)."
        ) from exc
    except ArgumentError as exc:
        raise DatabaseUnavailable(f"{describe(db)}: not a usable database URL ({exc})") from exc
    except ValueError:  # SQLAlchemy's int() of a port that is not a number
        raise DatabaseUnavailable(
            f"{describe(db)}: not a usable database URL (its port is not a number)."
        ) from None
    if engine.dialect.name == "sqlite":
        read_only = sqlite_file is not None and sqlite_file.read_only
        pragmas = _sqlite_connected_read_only if read_only else _sqlite_connected
        event.listen(engine, "connect", pragmas)
        if engine.dialect.driver == "pysqlite":
            event.listen(engine, "connect", _driver_begins_nothing)
    return engine


SchemaPending = Literal["create", "replace"]


class Database:
    """One reservations database: read sessions, and write transactions that commit or
    roll back as a whole (a failed write leaves the database exactly as it was)."""

    def __init__(
        self,
        engine: Engine,
        location: str,
        *,
        sqlite_file: SqliteFile | None = None,
        schema_pending: SchemaPending | None = None,
    ) -> None:
        self.engine = engine
        self.location = location
        self.sqlite_file = sqlite_file
        self._begins_itself = engine.dialect.name == "sqlite" and engine.dialect.driver == (
            "pysqlite"
        )
        self._postgres = engine.dialect.name == "postgresql"
        # PostgreSQL: the schema is made (after dropping ours, for "replace") in the
        # transaction of the load that fills it (`bulk_load`).
        self._schema_pending = schema_pending

    @property
    def read_only(self) -> bool:
        return self.sqlite_file is not None and self.sqlite_file.read_only

    @property
    def path(self) -> Path | None:
        """The SQLite file this database is (None: PostgreSQL, or SQLite in memory)."""
        return sqlite_file(self.engine.url)

    @property
    def dialect(self) -> str:
        """`sqlite`, `postgresql`, …: SQLAlchemy's name for the kind of database (its SQL
        dialect; a `ChatBackend` is the model's side)."""
        return self.engine.dialect.name

    @classmethod
    def create(cls, db: str | Path, *, replace: bool = False) -> Database:
        """Create an empty database with the current schema (the file must not be ours yet).

        It is not complete until a build has filled it (`loading.load_rows`), so
        `open` refuses it until then. On PostgreSQL the database itself is created when
        the server has none of that name, and the schema waits for the load (`replace`:
        the load first drops the tables of ours that are there)."""
        postgres = _postgres_url(db)
        if postgres is not None:
            name = database_name(postgres, describe(db))
            server = Server(postgres)
            if not server.exists(name):
                server.create(name)
            pending: SchemaPending = "replace" if replace else "create"
            return cls(make_engine(db), describe(db), schema_pending=pending)
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
            _mark_ours(session.connection())
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
            connection = first_connection(engine, name)
            with connection:
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

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session in one read transaction, rolled back at the end: the several queries
        of one lookup (a profile, its payment methods, its reservations) see the same
        committed state, and the next read sees what was committed meanwhile. Readers
        never wait for a writer (SQLite's WAL; PostgreSQL's MVCC: each read its own
        consistent view).

        SQLite: the driver begins no transaction by itself here (`_driver_begins_nothing`),
        so the read says `BEGIN` on its connection, as the write says `BEGIN IMMEDIATE`.
        PostgreSQL: REPEATABLE READ, READ ONLY (READ COMMITTED would see a new state per
        statement); a server that cannot be reached, or a connection lost half-way, is
        one line for the user (`ServerUnreachable`, `ConnectionLost`)."""
        try:
            connection = self.engine.connect()
        except DBAPIError as exc:
            if not self._postgres:
                raise
            raise unreachable_now(exc) from exc
        with connection:
            if self._begins_itself:
                _driver(connection).execute("BEGIN")
            elif self._postgres:
                connection.execution_options(
                    isolation_level="REPEATABLE READ", postgresql_readonly=True
                )
            try:
                with Session(bind=connection, autoflush=False) as session:
                    yield session
            except DBAPIError as exc:
                if self._postgres and connection_lost(exc):
                    raise lost_while_reading(exc) from exc
                raise

    @contextmanager
    def _locked(self) -> Iterator[Connection]:
        """A connection whose transaction holds the write lock from its first statement
        (SQLite: `BEGIN IMMEDIATE` at the driver; SQLAlchemy's commit and rollback end it).
        PostgreSQL locks rows, not the database: the write reads them `FOR UPDATE`; a
        server that cannot be reached is `ServerUnreachable` (nothing was sent)."""
        try:
            connection = self.engine.connect()
        except DBAPIError as exc:
            if not self._postgres:
                raise
            raise unreachable_now(exc) from exc
        with connection:
            if self._begins_itself:
                _begin_immediate(_driver(connection))
            yield connection

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One transaction under the write lock: commits when the block ends, rolls back
        when it raises. A busy, read-only or unreachable database is a domain error, not
        SQL; one the server rolled back for a concurrent writer is `Contended` (a
        Conflict), which `run_write` runs again."""
        if self.read_only:
            raise ReadOnlyDatabase(self._read_only_message())
        committing = False
        try:
            with (
                self._locked() as connection,
                Session(bind=connection, expire_on_commit=False) as session,
                session.begin(),
            ):
                yield session
                session.flush()
                committing = True  # what fails from here on may have been committed
        except (DBAPIError, sqlite3.OperationalError) as exc:
            refusal = self._write_refused(exc, committing=committing)
            if refusal is None:
                raise
            raise refusal from exc

    def run_write(self, work: Callable[[Session], T]) -> T:
        """`work(session)` in one write transaction (`write`), run again from the start on
        a new transaction when the database rolled it back for a concurrent writer or lost
        the connection before the commit (nothing was changed, so the decision is made
        again on the state as it is then), up to WRITE_ATTEMPTS times in all."""
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                with self.write() as session:
                    return work(session)
            except (Contended, ConnectionLost):
                if attempt == WRITE_ATTEMPTS:
                    raise
                # Spread the next attempts of writers that collided (a few ms).
                time.sleep(0.002 * attempt * (1 + (threading.get_ident() % 7) / 7))
        raise AssertionError("unreachable")

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
        except (DBAPIError, sqlite3.OperationalError) as exc:
            refusal = self._write_refused(exc, committing=False)
            if refusal is None:
                raise
            raise refusal from exc

    def _read_only_message(self, said: str | None = None) -> str:
        if said is not None:
            return (
                f"the reservations database ({self.location}) refuses changes from here "
                f"({said}). Nothing was changed; reads still work."
            )
        return (
            f"the reservations database ({self.location}) is read-only here: its file or "
            "folder cannot be written. Nothing was changed; reads still work."
        )

    def _write_refused(self, exc: Exception, *, committing: bool) -> DomainError | None:
        """The domain error a driver's refusal to write means, if it is one of ours."""
        if self._postgres:
            return self._postgres_write_refused(exc, committing=committing)
        if isinstance(exc, IntegrityError):
            return None  # under SQLite's lock no writer can collide: this is a bug
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

    def _postgres_write_refused(self, exc: Exception, *, committing: bool) -> DomainError | None:
        problem = write_problem(exc)
        if problem == "lost" and committing:
            return CommitUncertain(
                "the connection to the database server was lost while the change was being "
                "committed: it may or may not have been saved. Look the record up before "
                "trying again."
            )
        if problem == "lost":
            return ConnectionLost(
                f"the connection to the database server was lost ({first_line(exc)}); "
                "nothing was changed, try again"
            )
        if problem == "retry":
            return Contended(
                "another change to the same records was made at the same moment; "
                "nothing was changed, try again"
            )
        if problem == "busy":
            return Conflict(
                "the database is busy with other changes (a lock was not granted in time); "
                "nothing was changed, try again"
            )
        if problem == "read-only":
            return ReadOnlyDatabase(self._read_only_message(first_line(exc)))
        return None

    @contextmanager
    def bulk_load(self) -> Iterator[Connection]:
        """A connection in one transaction for loading a whole database (loading.py), the
        write lock taken; it commits when the block ends, rolls back when it raises.

        On SQLite, foreign-key enforcement is paused (SQLite checks each child row
        otherwise) and the rollback journal replaces the WAL (a bulk load through the WAL
        writes every page twice); both come back afterwards. These pragmas only work
        outside a transaction, so they go straight to the driver, before the BEGIN.
        On PostgreSQL the schema a `create` left pending is made first, in the same
        transaction: the database has our tables only if the whole load commits."""
        with self.engine.connect() as connection:
            driver = _driver(connection) if self._begins_itself else None
            if driver is not None:
                driver.execute("PRAGMA foreign_keys=OFF")
                driver.execute("PRAGMA journal_mode=DELETE").fetchall()
                _begin_immediate(driver)
            try:
                with connection.begin():
                    if self._schema_pending is not None:
                        if self._schema_pending == "replace":
                            SQLModel.metadata.drop_all(connection)
                        SQLModel.metadata.create_all(connection)
                        _mark_ours(connection)
                    yield connection
                self._schema_pending = None
            finally:
                if driver is not None:
                    if driver.in_transaction:
                        driver.rollback()  # the caller's transaction did not commit
                    driver.execute("PRAGMA journal_mode=WAL").fetchall()
                    driver.execute("PRAGMA foreign_keys=ON")

    def copy_to(self, location: str | Path) -> Database:
        """A whole copy of this database at `location` (which must hold none), opened.

        SQLite: the backup API, a consistent copy even while others write. PostgreSQL:
        `CREATE DATABASE … TEMPLATE` this one, on the same server (the server copies its
        files: tens of milliseconds); PostgreSQL copies only a database nobody is
        connected to, so this Database's own idle connections are closed first (they
        are opened again when next needed), and one that others use is refused in one
        line. For per-trial or per-session copies (eval, mcp, serve): copy a pristine
        database, as `scenarios.datasets` does."""
        if self._postgres:
            return self._copy_on_server(location)
        source = sqlite_path(self.location) if self.sqlite_file is None else self.sqlite_file.path
        target = sqlite_path(location)
        if source is None or target is None:
            raise DatabaseUnavailable(
                f"{describe(location)}: a copy of {self.location} can only be another file "
                "of the same kind; to move data between kinds of database, export it and "
                "build the other from the export (`seed --from-tau2`)."
            )
        if target.exists():
            raise DatabaseUnavailable(f"{describe(location)}: already exists; nothing was copied.")
        target.parent.mkdir(parents=True, exist_ok=True)
        copy_sqlite(source, target)
        return Database.open(target)

    def _copy_on_server(self, location: str | Path) -> Database:
        source = self.engine.url
        target = _postgres_url(location)
        same_server = target is not None and all(
            getattr(target, part) == getattr(source, part) for part in ("host", "port", "query")
        )
        if target is None or not same_server:
            raise DatabaseUnavailable(
                f"{describe(location)}: a copy of {self.location} is made on the same "
                "PostgreSQL server (the same host, port and options, another database name)."
            )
        self.disconnect()  # our own connections would stop the server from copying
        Server(source).copy(
            database_name(source, self.location), database_name(target, describe(location))
        )
        return Database.open(location)

    def meta(self) -> dict[str, str]:
        with self.read() as session:
            return {m.key: m.value for m in session.exec(select(schema.Meta))}

    def disconnect(self) -> None:
        """Close this Database's connections; they are opened again when next needed
        (PostgreSQL copies a database only while nobody is connected to it)."""
        self.engine.dispose()

    def close(self) -> None:
        self.disconnect()
