"""PostgreSQL: its URLs, the databases on a server (made, copied, dropped), and what the
server's errors mean for a user.

A location is a PostgreSQL database when its URL's dialect is `postgresql`
(`postgresql+psycopg://user:password@host:port/name`, or a unix socket:
`postgresql+psycopg://user@/name?host=/run/postgresql`). `postgresql://` and
`postgres://` mean the same, through psycopg 3 (the `postgres` extra).

Creating, copying and dropping a database happen on the server's maintenance database
(`postgres`), outside any transaction, as PostgreSQL requires. A copy is `CREATE
DATABASE … TEMPLATE …`: the server copies the files, which takes tens of milliseconds
whatever the size, and it does so only while nobody is connected to the source.

Errors are read from their SQLSTATE (psycopg's `sqlstate`), never from their words,
except where the server gives none: a connection that never got to the server.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Connection, create_engine, text
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.pool import NullPool

from airline_agent.domain.database_urls import mask_passwords, redact_url
from airline_agent.domain.errors import ConnectionLost, DatabaseUnavailable, ServerUnreachable
from airline_agent.domain.schema import Reservation, SQLModel

DRIVER = "postgresql+psycopg"
# A connection attempt that gets no answer gives up after this long (the server is down,
# or a firewall swallows the packets), instead of the operating system's minutes.
CONNECT_TIMEOUT_S = 10
# The database connected to for CREATE / DROP DATABASE (every server has it).
MAINTENANCE_DATABASE = "postgres"

# SQLSTATEs (PostgreSQL's appendix A) this project acts on.
SERIALIZATION_FAILURE = "40001"
DEADLOCK_DETECTED = "40P01"
UNIQUE_VIOLATION = "23505"
LOCK_NOT_AVAILABLE = "55P03"
INSUFFICIENT_PRIVILEGE = "42501"
READ_ONLY_TRANSACTION = "25006"
INVALID_CATALOG_NAME = "3D000"  # no such database
INVALID_PASSWORD = "28P01"
INVALID_AUTHORIZATION = "28000"  # no pg_hba.conf entry, no such role
OBJECT_IN_USE = "55006"  # a template, or a database to drop, has other sessions
DUPLICATE_DATABASE = "42P04"
# Class 08 (connection exception) and 57P01-57P03 (the server shutting down or
# restarting): the connection is gone.
_CONNECTION_GONE = ("08", "57P01", "57P02", "57P03")


def postgres_url(location: str) -> URL | None:
    """The URL, driver made explicit (psycopg 3), when `location` names a PostgreSQL
    database; None for anything else (a path, another database, not a URL). A URL that
    cannot be used as written is a DatabaseUnavailable that says why (its password
    masked): a port that is not a number, an `@` in the password not written `%40`
    (SQLAlchemy would take what follows it for the host, and the server's error would
    name that part of the password)."""
    if "://" not in location:
        return None
    if location.startswith("postgres://"):
        location = "postgresql://" + location.removeprefix("postgres://")
    try:
        url = make_url(location)
    except ArgumentError:
        return None
    except ValueError:  # SQLAlchemy's int() of the port
        raise DatabaseUnavailable(
            f"{redact_url(location)}: not a usable database URL (its port is not a number)."
        ) from None
    if url.get_backend_name() != "postgresql":
        return None
    if url.host is not None and "@" in url.host:
        raise DatabaseUnavailable(
            f"{redact_url(location)}: the URL holds an `@` after its login's: write an `@` "
            "of the user name or password as %40."
        )
    if url.drivername == "postgresql":
        url = url.set(drivername=DRIVER)
    return url


def engine_options(url: URL) -> dict[str, Any]:
    """What every engine on a PostgreSQL server gets: a connection is checked before use
    (one the server closed while idle, e.g. after a restart, is replaced, which is always
    safe: nothing was sent on it), and attempts to connect give up in time."""
    options: dict[str, Any] = {"pool_pre_ping": True}
    if "connect_timeout" not in url.query:
        options["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT_S}
    return options


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a driver error (or of the driver error a SQLAlchemy one wraps)."""
    driver_error = getattr(exc, "orig", exc)
    state = getattr(driver_error, "sqlstate", None)
    return state if isinstance(state, str) else None


def first_line(exc: BaseException) -> str:
    """The server's message without SQLAlchemy's SQL and parameters, or psycopg's
    connection details after the first line; any password it quotes masked."""
    driver_error = getattr(exc, "orig", None) or exc
    text = str(driver_error).split("[SQL:")[0].strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return mask_passwords(lines[0]) if lines else type(driver_error).__name__


def connection_lost(exc: BaseException) -> bool:
    """The error means the connection to the server is gone (the server restarted, was
    shut down, killed this session, or the network dropped)."""
    if getattr(exc, "connection_invalidated", False):
        return True
    state = sqlstate(exc)
    return state is not None and (
        state.startswith(_CONNECTION_GONE[0]) or state in _CONNECTION_GONE[1:]
    )


WriteProblem = Literal["retry", "lost", "read-only", "busy"]


def write_problem(exc: BaseException) -> WriteProblem | None:
    """What a failed write transaction's error means: `retry` — the server rolled it back
    because another transaction got in its way (serialization failure, deadlock, two new
    rows with the same key at once), so running it again from the start is safe; `lost`
    — the connection went away; `read-only` — this user or this server may not write;
    `busy` — a lock was not granted in time; None: anything else (a bug)."""
    state = sqlstate(exc)
    if state in (SERIALIZATION_FAILURE, DEADLOCK_DETECTED, UNIQUE_VIOLATION):
        return "retry"
    if state == LOCK_NOT_AVAILABLE:
        return "busy"
    if state in (INSUFFICIENT_PRIVILEGE, READ_ONLY_TRANSACTION):
        return "read-only"
    if connection_lost(exc):
        return "lost"
    return None


def unreachable_now(exc: BaseException) -> ServerUnreachable:
    """A tool's one line for a server that cannot be reached in the middle of a conversation
    (`unreachable` says it when a database is opened)."""
    return ServerUnreachable(
        f"the database server cannot be reached ({first_line(exc)}); nothing was changed. "
        "Try again once it is back."
    )


def lost_while_reading(exc: BaseException) -> ConnectionLost:
    return ConnectionLost(
        f"the connection to the database server was lost while reading ({first_line(exc)}); "
        "nothing was changed, try again"
    )


def seed_hint(name: str) -> str:
    return f"Create it with `airline-agent seed --db {name}`."


# What the server says when it turns a connection away, before it is made (libpq
# gives these as text only, after "FATAL:"): the error codes they stand for.
_CONNECTION_REFUSALS = (
    ("does not exist", INVALID_CATALOG_NAME),  # database "x" (a role is said as 28000)
    ("password authentication failed", INVALID_PASSWORD),
    ("no pg_hba.conf entry", INVALID_AUTHORIZATION),
    ("role ", INVALID_AUTHORIZATION),
)


def _refusal(said: str) -> str | None:
    if "FATAL:" not in said:
        return None
    fatal = said.split("FATAL:", 1)[1].strip()
    if fatal.startswith("role "):
        return INVALID_AUTHORIZATION
    return next((state for words, state in _CONNECTION_REFUSALS if words in fatal), None)


def unreachable(name: str, exc: BaseException) -> DatabaseUnavailable:
    """The one line for a failure to connect: no server, a refused login, no such
    database, or anything else the server said."""
    said = first_line(exc)
    state = sqlstate(exc) or _refusal(said)
    reason = said.split("FATAL:", 1)[1].strip() if "FATAL:" in said else said
    if state == INVALID_CATALOG_NAME:
        return DatabaseUnavailable(f"{name}: no such database on the server. {seed_hint(name)}")
    if state in (INVALID_PASSWORD, INVALID_AUTHORIZATION):
        return DatabaseUnavailable(
            f"{name}: the PostgreSQL server refused the login ({reason}). Check the user name "
            "and password in the URL, and that the server lets this user in (pg_hba.conf)."
        )
    if "no password supplied" in said:
        return DatabaseUnavailable(
            f"{name}: the PostgreSQL server asks for a password, and the URL gives none. Give "
            "it in the URL (postgresql+psycopg://user:password@host/name) or in ~/.pgpass."
        )
    if "FATAL:" in said:
        return DatabaseUnavailable(
            f"{name}: the PostgreSQL server refused the connection ({reason})."
        )
    return DatabaseUnavailable(
        f"{name}: cannot reach the PostgreSQL server ({said}). Is it running, and are "
        "the host, port or socket folder in the URL right?"
    )


# ---------------------------------------------------------------- databases on a server


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def database_name(url: URL, name: str) -> str:
    """The database the URL names (checked: present, at most 63 bytes)."""
    database = url.database
    if not database:
        raise DatabaseUnavailable(f"{name}: the URL names no database (…/NAME at its end).")
    if len(database.encode()) > 63:
        raise DatabaseUnavailable(
            f"{name}: a PostgreSQL database name has at most 63 bytes ({database!r} has "
            f"{len(database.encode())})."
        )
    return database


@dataclass(frozen=True)
class Server:
    """The server a database URL points at, reached through its maintenance database."""

    url: URL  # of any database on it

    def describe(self, database: str | None = None) -> str:
        url = self.url if database is None else self.url.set(database=database)
        return redact_url(url.render_as_string(hide_password=True))

    def _engine(self) -> Engine:
        maintenance = self.url.set(database=MAINTENANCE_DATABASE)
        return create_engine(
            maintenance,
            isolation_level="AUTOCOMMIT",
            poolclass=NullPool,
            connect_args={"connect_timeout": CONNECT_TIMEOUT_S},
        )

    def _execute(self, statement: str, **params: Any) -> list[Any]:
        """One statement on the maintenance database, in autocommit (CREATE and DROP
        DATABASE cannot run in a transaction); a failure to connect is said plainly."""
        engine = self._engine()
        try:
            try:
                connection = engine.connect()
            except DBAPIError as exc:
                raise unreachable(self.describe(), exc) from exc
            with connection:
                result = connection.execute(text(statement), params)
                return list(result) if result.returns_rows else []
        finally:
            engine.dispose()

    def exists(self, database: str) -> bool:
        found = self._execute("SELECT 1 FROM pg_database WHERE datname = :name", name=database)
        return bool(found)

    def create(self, database: str) -> None:
        """A new, empty database (UTF-8, whatever the server's default encoding)."""
        self._run_ddl(
            f"CREATE DATABASE {_quoted(database)} ENCODING 'UTF8' TEMPLATE template0", database
        )

    def copy(self, source: str, target: str) -> None:
        """`target`, a new database, as a copy of `source` (nobody may be connected to it)."""
        self._run_ddl(
            f"CREATE DATABASE {_quoted(target)} TEMPLATE {_quoted(source)}",
            target,
            source=source,
        )

    def drop(self, database: str) -> None:
        """Drop the database, disconnecting whoever is still on it (a scratch copy only)."""
        self._run_ddl(f"DROP DATABASE IF EXISTS {_quoted(database)} WITH (FORCE)", database)

    def sessions_on(self, database: str) -> int:
        found = self._execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = :name", name=database
        )
        return int(found[0][0])

    def _run_ddl(self, statement: str, database: str, *, source: str | None = None) -> None:
        try:
            self._execute(statement)
        except DBAPIError as exc:
            state = sqlstate(exc)
            if state == OBJECT_IN_USE and source is not None:
                raise DatabaseUnavailable(
                    f"{self.describe(source)}: cannot be copied while other sessions are "
                    f"connected to it ({first_line(exc)}). PostgreSQL copies a database only "
                    "while nobody uses it: close them, or copy a database nobody works on."
                ) from exc
            if state == DUPLICATE_DATABASE:
                raise DatabaseUnavailable(
                    f"{self.describe(database)}: already exists; nothing was changed."
                ) from exc
            if state == INVALID_CATALOG_NAME and source is not None:
                raise DatabaseUnavailable(
                    f"{self.describe(source)}: no such database on the server; nothing was copied."
                ) from exc
            if state == INSUFFICIENT_PRIVILEGE:
                raise DatabaseUnavailable(
                    f"{self.describe(database)}: this user may not create or drop databases "
                    f"on the server ({first_line(exc)}). Ask for CREATEDB, or create the "
                    "database with another user and give it to this one."
                ) from exc
            raise DatabaseUnavailable(
                f"{self.describe(database)}: the server refused ({first_line(exc)})."
            ) from exc


# ---------------------------------------------------------------- copies for runs


# A copy's name: the run's prefix, a number, a label; PostgreSQL names have 63 bytes.
_NAME_BYTES = 63
_PREFIX_BYTES = 30


def _short(text: str, size: int) -> str:
    return text.encode()[:size].decode(errors="ignore")


def _label(text: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in text.lower())


class TemplateCopies:
    """Copies of one database state on a PostgreSQL server for runs that must not touch the
    original (eval's trials, MCP sessions): a template database that nobody connects to
    (PostgreSQL copies a database only while nobody is on it), and any number of
    `CREATE DATABASE … TEMPLATE` copies of it, made by the server from its files (no
    re-import). Every name starts with the URL's database name and a token of this run
    (`airline_3f9a1c_template`, `airline_3f9a1c_4_task_12_trial_0`); `discard` drops a
    copy, `close` the template and every copy still there.

    Made with `built` (a new template filled by a build) or `copied` (a template copy of
    an existing database, taken once: refused in one line while others are connected)."""

    def __init__(self, url: URL, template: str, prefix: str) -> None:
        self._url = url
        self._server = Server(url)
        self.template = template
        self._prefix = prefix
        self._count = 0
        self._live: set[str] = set()
        self._lock = threading.Lock()

    @staticmethod
    def _prefix_for(url: URL) -> str:
        named = database_name(url, Server(url).describe())
        return f"{_short(_label(named), _PREFIX_BYTES)}_{secrets.token_hex(3)}"

    @classmethod
    def built(cls, location: str, build: Callable[[str], object]) -> TemplateCopies:
        """A new template on the server `location` names, filled by `build(url)` (which
        must close what it opens); a failed build leaves no database behind."""
        url = _server_url(location)
        prefix = cls._prefix_for(url)
        template = f"{prefix}_template"
        try:
            build(url.set(database=template).render_as_string(hide_password=False))
        except BaseException:
            # The server may be gone: then the build's own error says more.
            with contextlib.suppress(DatabaseUnavailable):
                Server(url).drop(template)
            raise
        return cls(url, template, prefix)

    @classmethod
    def copied(cls, location: str) -> TemplateCopies:
        """A template copy of the database at `location` as it is now (whoever holds a
        connection to it must close it first)."""
        url = _server_url(location)
        prefix = cls._prefix_for(url)
        template = f"{prefix}_template"
        Server(url).copy(url.database or "", template)
        return cls(url, template, prefix)

    def copy(self, label: str) -> str:
        """A new copy of the template; its URL (password kept: it is for connecting)."""
        with self._lock:
            self._count += 1
            name = _short(f"{self._prefix}_{self._count}_{_label(label)}", _NAME_BYTES)
            self._live.add(name)
        try:
            self._server.copy(self.template, name)
        except BaseException:
            with self._lock:
                self._live.discard(name)
            raise
        return self._url.set(database=name).render_as_string(hide_password=False)

    def discard(self, copy: str) -> None:
        """Drop a copy (whoever is still connected is disconnected); one the server could
        not drop is tried again by `close`."""
        name = make_url(copy).database or ""
        with self._lock:
            if name not in self._live:
                return
            self._live.discard(name)
        try:
            self._server.drop(name)
        except DatabaseUnavailable:
            with self._lock:
                self._live.add(name)
            raise

    def close(self) -> None:
        """Drop every copy still there and the template (as far as the server lets)."""
        with self._lock:
            names, self._live = [*self._live, self.template], set()
        problems = []
        for name in names:
            try:
                self._server.drop(name)
            except DatabaseUnavailable as exc:
                problems.append(str(exc))
        if problems:
            raise DatabaseUnavailable(
                f"{problems[0]} ({len(problems)} of this run's databases were not dropped; "
                f"their names start with {self._prefix}_)"
            )


def _server_url(location: str) -> URL:
    url = postgres_url(location)
    if url is None:
        raise DatabaseUnavailable("not a PostgreSQL URL (postgresql://…/NAME).")
    return url


# ---------------------------------------------------------------- what a database holds


def columns_present(connection: Connection) -> dict[str, set[str]]:
    """Every table of the connection's schema (`search_path`'s first) and its columns,
    in one query."""
    rows = connection.execute(
        text(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema()"
        )
    )
    present: dict[str, set[str]] = {}
    for table, column in rows:
        present.setdefault(table, set()).add(column)
    return present


def advance_sequences(connection: Connection) -> None:
    """After rows were loaded with their own keys (`reservation.seq`), the key sequences
    continue after the largest (SQLite's INTEGER PRIMARY KEY does so by itself)."""
    table = Reservation.__tablename__
    connection.execute(
        text(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'seq'), "
            f"coalesce(max(seq), 1), max(seq) IS NOT NULL) FROM {table}"
        )
    )


def gather_statistics(connection: Connection) -> None:
    """ANALYZE the tables just loaded, in the load's transaction. Without statistics the
    planner takes a new table for nearly empty until autovacuum gets to it (a minute or
    more) and picks plans for that: the one-stop search, 300 nested index scans of the
    flights, took ~10 ms instead of under one. A TEMPLATE copy carries the statistics."""
    for table in SQLModel.metadata.sorted_tables:
        connection.execute(text(f'ANALYZE "{table.name}"'))
