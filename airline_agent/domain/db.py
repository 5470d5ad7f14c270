"""Engine, sessions and transactions for the reservations database.

`AIRLINE_AGENT_DB` (or `--db`) may be a file path or any SQLAlchemy URL. SQLite gets
foreign keys, WAL and a busy timeout on every connection.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, OperationalError
from sqlmodel import Session, SQLModel, create_engine, select

from airline_agent.domain import schema
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.read_snapshots import ReadSource, read_source


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


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def make_engine(db: str | Path) -> Engine:
    url = database_url(db)
    try:
        engine = create_engine(url)
    except (ArgumentError, ImportError) as exc:
        raise DatabaseUnavailable(f"{describe(db)}: not a usable database URL ({exc})") from exc
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


class Database:
    """One reservations database: read sessions, and write transactions that commit or
    roll back as a whole (a failed write leaves the database exactly as it was)."""

    def __init__(self, engine: Engine, location: str) -> None:
        self.engine = engine
        self.location = location
        self._read_source: ReadSource | None = None
        self._read_source_lock = threading.Lock()

    @classmethod
    def create(cls, db: str | Path) -> Database:
        """Create an empty database with the current schema (the file must not be ours yet)."""
        if "://" not in str(db):
            Path(db).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = make_engine(db)
        SQLModel.metadata.create_all(engine)
        database = cls(engine, describe(db))
        with database.write() as session:
            session.merge(schema.Meta(key="app", value=schema.APP_MARKER))
            session.merge(schema.Meta(key="schema_version", value=schema.SCHEMA_VERSION))
        return database

    @classmethod
    def open(cls, db: str | Path) -> Database:
        """Open an existing database built by this project, or explain what is wrong."""
        name = describe(db)
        if "://" not in str(db) and Path(db).expanduser().is_dir():
            raise DatabaseUnavailable(f"{name}: is a directory, not a database file.")
        if "://" not in str(db) and not Path(db).expanduser().is_file():
            raise DatabaseUnavailable(
                f"{name}: no such database. Create it with `airline-agent seed --db {name}`."
            )
        engine = make_engine(db)
        try:
            tables = set(inspect(engine).get_table_names())
            if "meta" not in tables:
                raise DatabaseUnavailable(
                    f"{name}: not an airline-agent database (no `meta` table). "
                    f"Rebuild it with `airline-agent seed --db {name} --force`."
                )
            with Session(engine) as session:
                facts = {m.key: m.value for m in session.exec(select(schema.Meta))}
        except (DatabaseError, OperationalError) as exc:
            engine.dispose()
            raise DatabaseUnavailable(
                f"{name}: cannot be read as a database ({exc.orig}). "
                f"Rebuild it with `airline-agent seed --db {name} --force`."
            ) from exc
        except DatabaseUnavailable:
            engine.dispose()
            raise
        if facts.get("app") != schema.APP_MARKER:
            engine.dispose()
            raise DatabaseUnavailable(f"{name}: not an airline-agent database.")
        if facts.get("schema_version") != schema.SCHEMA_VERSION:
            engine.dispose()
            raise DatabaseUnavailable(
                f"{name}: built with schema {facts.get('schema_version')}, this version "
                f"needs {schema.SCHEMA_VERSION}. "
                f"Rebuild it with `airline-agent seed --db {name} --force`."
            )
        return cls(engine, name)

    def session(self) -> Session:
        """A session for reads; nothing it does is committed."""
        return Session(self.engine, autoflush=False, expire_on_commit=False)

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One transaction: commits when the block ends, rolls back when it raises."""
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            yield session

    def reads(self, consistent: bool = True) -> Any:
        """A read snapshot for plain SQL (read_snapshots.py): `with database.reads() as r:`.
        Opened on first use; committed writes are visible to the next snapshot.
        `consistent=False`: each statement is its own snapshot (for one-statement reads)."""
        source = self._read_source
        if source is None:
            with self._read_source_lock:
                if self._read_source is None:
                    self._read_source = read_source(self.engine)
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
