"""Provisioning: building a database file (the sample or a τ² import), opening it, or
building it first when it is absent.

A file is built under a temporary name beside the target and renamed into place only
when complete; a URL is built in place. Either way the database records that it is
complete only in the transaction that finishes the build (see loading.py).
"""

from __future__ import annotations

import os
from pathlib import Path

from airline_agent.domain.db import Database, describe
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.loading import Progress
from airline_agent.domain.sample import DEFAULT_SEED, seed_sample


class DatabaseExists(DatabaseUnavailable):
    """The target already holds a database and `force` was not given."""


def _is_url(location: str | Path) -> bool:
    return "://" in str(location)


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
    from airline_agent.domain.tau2 import import_tau2

    def fill(database: Database) -> None:
        if tau2 is not None:
            import_tau2(database, tau2, progress=progress)
        else:
            seed_sample(database, seed=seed, scale=scale, progress=progress)

    name = describe(location)
    if _is_url(location):
        return _build_at_url(str(location), fill, force=force)
    target = Path(location).expanduser()
    if target.exists() and not force:
        raise DatabaseExists(
            f"{name}: already exists. Use `--force` to replace it, or choose another `--db`."
        )
    _make_folder(target, name)
    building = target.with_name(f".{target.name}.building-{os.getpid()}")
    _remove_database_files(building)
    try:
        database = Database.create(building)
        try:
            fill(database)
        finally:
            # Closing the last connection folds any WAL into the file, so the rename
            # moves the whole database.
            database.close()
        _remove_database_files(target)
        os.replace(building, target)
    finally:
        _remove_database_files(building)
    return Database.open(target)


def _remove_database_files(path: Path) -> None:
    """The database file and SQLite's companions (a stale -wal must not outlive its db)."""
    for companion in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        companion.unlink(missing_ok=True)


def _build_at_url(url: str, fill, *, force: bool) -> Database:
    from sqlalchemy import inspect
    from sqlmodel import SQLModel

    from airline_agent.domain.db import make_engine

    engine = make_engine(url)
    try:
        existing = inspect(engine).get_table_names()
        if existing and not force:
            raise DatabaseExists(f"{describe(url)}: already holds tables. Use `--force`.")
        if existing:
            SQLModel.metadata.drop_all(engine)
    finally:
        engine.dispose()
    database = Database.create(url)
    fill(database)
    return database


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
    if not _is_url(location) and not Path(location).expanduser().exists():
        return build_database(location, progress=progress)
    return Database.open(location)
