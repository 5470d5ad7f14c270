"""Provisioning: building a database (the sample or a τ² import), opening it or building
it first when it is absent, and rebuilding it exactly as it was built.

A file is built under a temporary name beside the target (`.NAME.building-PID`) and
renamed into place only when complete; what a killed build leaves behind is removed by
the next build there (only files whose process is gone). A URL is built in place.
Either way the database records that it is complete, and how it was built, only in the
transaction that finishes the build (loading.py), so `open` refuses a half-built one.
On PostgreSQL the whole build, the schema included (and, with `force`, dropping the old
tables), is that one transaction: a failed or killed build leaves the old database as it
was, and a database `seed` created for the build is dropped again when the build fails.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from airline_agent.domain.db import Database, describe, first_connection, make_engine
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.integrity import forget_checks, is_ours
from airline_agent.domain.loading import Progress
from airline_agent.domain.postgres import Server, columns_present, database_name, postgres_url
from airline_agent.domain.provenance import Provenance
from airline_agent.domain.sample import DEFAULT_SEED, seed_sample
from airline_agent.domain.sqlite_files import (
    SqliteFile,
    build_path,
    not_a_database_file,
    remove_database_files,
    sqlite_path,
)
from airline_agent.domain.tau2 import import_tau2


class DatabaseExists(DatabaseUnavailable):
    """The target already holds a database and `force` was not given."""


class CannotRebuild(DatabaseUnavailable):
    """The database cannot be built again exactly as it was (the message says why);
    a caller that must reset it falls back to a copy it took."""

    def __init__(self, message: str, provenance: Provenance) -> None:
        super().__init__(message)
        self.provenance = provenance


Fill = Callable[[Database], None]


def build_database(
    location: str | Path,
    *,
    seed: int = DEFAULT_SEED,
    scale: int = 1,
    tau2: Path | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> Database:
    """Create and fill a database (the sample, or a τ² db.json) and open it.

    A file is built under a temporary name beside the target and renamed into place only
    when complete, so a failure leaves no half-written database. Refuses an existing
    database unless `force`. (For a URL the build happens in place.)
    """

    def fill(database: Database) -> None:
        if tau2 is not None:
            import_tau2(database, tau2, progress=progress)
        else:
            seed_sample(database, seed=seed, scale=scale, progress=progress)

    if "://" in str(location):
        return _build_at_url(str(location), fill, force=force)
    return _build_file(Path(location).expanduser(), describe(location), fill, force=force)


def _build_file(target: Path, name: str, fill: Fill, *, force: bool) -> Database:
    if os.path.lexists(target):
        if not force:
            raise DatabaseExists(
                f"{name}: already exists. Use `--force` to replace it, or choose another `--db`."
            )
        _replaceable_or_raise(target, name)
    _make_folder(target, name)
    remove_abandoned_builds(target)
    building = build_path(target, os.getpid())
    remove_database_files(building)
    try:
        database = Database.create(building)
        try:
            fill(database)
        finally:
            # Closing the last connection folds any WAL into the file, so the rename
            # moves the whole database.
            database.close()
        forget_checks(target)
        remove_database_files(target)
        os.replace(building, target)
    finally:
        remove_database_files(building)
    return Database.open(target)


def _replaceable_or_raise(target: Path, name: str) -> None:
    """`--force` replaces only a file that is recognisably one of our databases (any
    schema, complete or not); anything else is refused, untouched, saying what it is."""
    refused = "`--force` replaces only an airline-agent database; nothing was changed"
    if target.is_symlink():
        raise DatabaseUnavailable(
            f"{name}: is a symbolic link (to {os.readlink(target)}): {refused}. "
            "Give the path it points to, to rebuild that database."
        )
    why = not_a_database_file(target)
    if why is None:
        facts = _meta_facts_of(target)
        why = None if facts is not None and is_ours(facts) else "is not an airline-agent database"
    if why is not None:
        raise DatabaseUnavailable(f"{name}: {why}: {refused}.")


def _meta_facts_of(path: Path) -> dict[str, str] | None:
    """The `meta` facts of an SQLite file, read without writing to it; None when there
    are none to read (not ours, or not readable as a database)."""

    try:
        connection = SqliteFile.of(path).connect()
    except (OSError, sqlite3.Error):
        return None
    try:
        return dict(connection.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.Error:
        return None
    finally:
        connection.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def remove_abandoned_builds(target: Path) -> list[Path]:
    """Remove what builds of `target` killed half-way left (`.NAME.building-PID` and its
    companions) when that process is gone; a build still running is left alone."""
    pattern = re.compile(rf"\.{re.escape(target.name)}\.building-(\d+)")
    folder = target.parent if str(target.parent) else Path(".")
    pids = set()
    for leftover in folder.glob(f".{target.name}.building-*"):
        found = pattern.match(leftover.name)
        if found is not None:
            pids.add(int(found[1]))
    removed = []
    for pid in sorted(pids):
        if pid != os.getpid() and _alive(pid):
            continue
        base = build_path(target, pid)
        remove_database_files(base)
        removed.append(base)
    return removed


def _build_at_url(url: str, fill: Fill, *, force: bool) -> Database:

    if postgres_url(url) is not None:
        return _build_on_server(url, fill, force=force)
    engine = make_engine(url)
    try:
        existing = inspect(engine).get_table_names()
        if existing and not force:
            raise DatabaseExists(f"{describe(url)}: already holds tables. Use `--force`.")
        if existing:
            if not _holds_our_meta(engine, existing):
                raise DatabaseUnavailable(
                    f"{describe(url)}: holds tables of another program: `--force` replaces "
                    "only an airline-agent database; nothing was changed."
                )
            SQLModel.metadata.drop_all(engine)
    finally:
        engine.dispose()
    path = sqlite_path(url)
    if path is not None:
        forget_checks(path)
    database = Database.create(url)
    fill(database)
    return database


def _build_on_server(url: str, fill: Fill, *, force: bool) -> Database:
    """Build a PostgreSQL database in one transaction (see the module docstring); the
    database is created first when the server has none of that name."""

    name = describe(url)
    address = postgres_url(url)
    assert address is not None
    server = Server(address)
    created = not server.exists(database_name(address, name))
    tables: list[str] = []
    if not created:
        engine = make_engine(url)
        try:
            with first_connection(engine, name) as connection:
                tables = sorted(columns_present(connection))
        finally:
            engine.dispose()
        if tables and not force:
            raise DatabaseExists(
                f"{name}: already holds tables. Use `--force` to replace an airline-agent "
                "database, or choose another `--db`."
            )
        if tables and not _holds_our_meta(make_engine(url), tables):
            raise DatabaseUnavailable(
                f"{name}: holds tables of another program: `--force` replaces only an "
                "airline-agent database; nothing was changed."
            )
    database = Database.create(url, replace=bool(tables))
    try:
        fill(database)
    except BaseException:
        database.close()
        if created:
            server.drop(database_name(address, name))
        raise
    database.close()
    return Database.open(url)


def _holds_our_meta(engine: Engine, tables: list[str]) -> bool:

    if "meta" not in tables:
        return False
    try:
        with engine.connect() as connection:
            meta = connection.execute(text("SELECT key, value FROM meta"))
            facts: dict[str, str] = {key: value for key, value in meta}
    except DBAPIError:
        return False
    finally:
        engine.dispose()
    return is_ours(facts)


def _make_folder(target: Path, name: str) -> None:
    """The database's folder, or DatabaseUnavailable naming what is in the way."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        # A file in the way reads "File exists" or "Not a directory": name that file.
        folders = [target.parent, *target.parent.parents]
        blocked = next((f for f in folders if f.exists() and not f.is_dir()), None)
        if blocked is not None:
            why = f"{blocked} is a file, not a folder"
        else:
            why = f"{exc.filename or target.parent}: {exc.strerror or exc}"
        raise DatabaseUnavailable(f"{name}: cannot be created ({why})") from None


def ensure_database(location: str | Path, *, progress: Progress | None = None) -> Database:
    """Open the database; build the default sample there first when the file is absent.

    A corrupt or foreign file raises DatabaseUnavailable (never overwritten).
    """
    if "://" not in str(location) and not Path(location).expanduser().exists():
        return build_database(location, progress=progress)
    return Database.open(location)


def provenance(database: Database) -> Provenance:
    """How the database was built, as it records it."""
    return Provenance.from_meta(database.meta())


def build_as_built(
    built: Provenance,
    location: str | Path,
    *,
    force: bool = False,
    progress: Progress | None = None,
) -> Database:
    """Build a database at `location` exactly as `built` says (e.g. a scratch copy to
    compare the current database with, before a reset). CannotRebuild when it cannot be
    (a τ² file gone or changed, an unknown build)."""
    why = built.why_not_rebuildable()
    if why is not None:
        raise CannotRebuild(f"{describe(location)}: cannot be rebuilt as built: {why}.", built)
    if built.kind == "tau2" and built.tau2_file is not None:
        return build_database(location, tau2=Path(built.tau2_file), force=force, progress=progress)
    assert built.seed is not None and built.scale is not None
    return build_database(
        location, seed=built.seed, scale=built.scale, force=force, progress=progress
    )


def rebuild_as_built(location: str | Path, *, progress: Progress | None = None) -> Database:
    """Replace the database at `location` with a fresh build of what it was built from
    (the same seed and scale, or the same τ² file if its hash still matches), and open
    it. CannotRebuild (nothing touched) when that cannot be done; DatabaseUnavailable
    when the database cannot be opened or is read-only here."""
    database = Database.open(location)
    try:
        if database.read_only:
            raise DatabaseUnavailable(
                f"{database.location}: is read-only here; it cannot be rebuilt in place."
            )
        built = provenance(database)
    finally:
        database.close()
    return build_as_built(built, location, force=True, progress=progress)
