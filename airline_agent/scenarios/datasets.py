"""Fresh databases for replays: each dataset is built once per process, then copied.

Building the sample or importing the τ² data takes a second or so; copying the finished
SQLite file takes milliseconds. Every scenario gets its own copy in a scratch
directory, so nothing leaks between scenarios and the user's database is never opened.

A run that asks for it (`eval --db postgresql://…`) has its copies on a PostgreSQL server
instead (`ServerDatasets`): the dataset built once into a template database, each copy a
`CREATE DATABASE … TEMPLATE` of it, all dropped when the run ends. `FileDatasets` is the
same interface over the files above.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from airline_agent.domain import tau2 as tau2_files
from airline_agent.domain.db import Database
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.integrity import forget_checks, vouch_for_copy
from airline_agent.domain.postgres import TemplateCopies
from airline_agent.domain.sample import seed_sample
from airline_agent.project import PROJECT_ROOT

if TYPE_CHECKING:  # a name for the annotations: the scenario models are not needed here
    from airline_agent.scenarios.model import Dataset

_lock = threading.Lock()
_pristine: dict[str, Path] = {}
_scratch: tempfile.TemporaryDirectory[str] | None = None


class DatasetUnavailable(Exception):
    """The dataset cannot be had here (e.g. the τ² reference data is absent); says why."""


def tau2_dir() -> Path:
    """Where the τ² reference data lives: AIRLINE_AGENT_TAU2_DIR, or beside the project."""
    configured = os.environ.get("AIRLINE_AGENT_TAU2_DIR")
    if configured:
        return Path(configured).expanduser()
    return PROJECT_ROOT.parent / "shared" / "reference" / "tau2"


def scratch_dir() -> Path:
    """A temporary directory for this process, removed when it exits."""
    global _scratch
    if _scratch is None:
        _scratch = tempfile.TemporaryDirectory(prefix="airline-agent-replay-")
    return Path(_scratch.name)


def _source(dataset: Dataset, tau2: Path | None) -> Path | None:
    """The file a dataset is imported from (τ²'s db.json), None for the built sample."""
    if dataset != "tau2":
        return None
    source = (tau2 or tau2_dir()) / "db.json"
    if not source.is_file():
        hint = "" if tau2 else " (set AIRLINE_AGENT_TAU2_DIR)"  # a folder given: it is wrong
        raise DatasetUnavailable(f"τ² reference data not found at {source}{hint}")
    return source


def pristine(dataset: Dataset, tau2: Path | None = None) -> Path:
    """The untouched database file of a dataset, built on first use in this process."""
    source = _source(dataset, tau2)
    key = f"{dataset}:{source}" if source else dataset
    with _lock:
        if key not in _pristine:
            target = scratch_dir() / f"pristine-{len(_pristine)}.db"
            _build(dataset, source, target)
            _pristine[key] = target
        return _pristine[key]


def fresh_copy(dataset: Dataset, name: str, tau2: Path | None = None) -> tuple[Path, Path]:
    """A private copy of the dataset for one run, and the pristine file it came from."""
    original = pristine(dataset, tau2)
    descriptor, made = tempfile.mkstemp(prefix=f"{name}-", suffix=".db", dir=scratch_dir())
    os.close(descriptor)  # only its name is needed: one left open per trial ran out of files
    copy = Path(made)
    shutil.copyfile(original, copy)
    # Built here and copied whole a moment ago: SQLite's page check of every copy was
    # most of what starting an eval trial cost.
    vouch_for_copy(copy)
    return copy, original


def refill(dataset: Dataset, copy: Path, tau2: Path | None = None) -> None:
    """Make a copy pristine again where it is (for the next run of the same database):
    a new copy of the pristine file put in its place, and its -wal and -shm gone. A
    connection still open on the old file keeps the old file, never sees the new one."""
    fresh = copy.with_name(f"{copy.name}.refill")
    shutil.copyfile(pristine(dataset, tau2), fresh)
    for companion in (Path(f"{copy}-wal"), Path(f"{copy}-shm")):
        companion.unlink(missing_ok=True)
    os.replace(fresh, copy)
    vouch_for_copy(copy)


def discard(copy: Path) -> None:
    forget_checks(copy)
    for companion in (copy, Path(f"{copy}-wal"), Path(f"{copy}-shm")):
        companion.unlink(missing_ok=True)


def _build(dataset: Dataset, source: Path | None, target: Path | str) -> None:

    database = Database.create(target)
    try:
        if source is not None:
            try:
                tau2_files.import_tau2(database, source)
            except ValueError as exc:  # a file that is not τ² data
                raise DatasetUnavailable(str(exc)) from exc
        else:
            seed_sample(database)
    finally:
        # Closing the last connection folds the WAL into the file, so a copy is complete
        # (on a server: nobody is left on the template, so it can be copied).
        database.close()


Location = Path | str  # a SQLite file, or a database URL


class DatasetCopies(Protocol):
    """Where one run's fresh databases of a dataset come from."""

    def pristine(self) -> Location:
        """The untouched dataset, to read (never written to)."""
        ...

    def fresh_copy(self, name: str) -> Location:
        """A private copy for one run (`name` says whose)."""
        ...

    def discard(self, copy: Location) -> None: ...

    def close(self) -> None:
        """Remove whatever the run still holds."""
        ...


class FileDatasets:
    """Copies as files in this process's scratch directory (the functions above)."""

    def __init__(self, dataset: Dataset, tau2: Path | None = None) -> None:
        self.dataset, self.tau2 = dataset, tau2

    def pristine(self) -> Path:
        return pristine(self.dataset, self.tau2)

    def fresh_copy(self, name: str) -> Path:
        return fresh_copy(self.dataset, name, self.tau2)[0]

    def discard(self, copy: Location) -> None:
        discard(Path(copy))

    def refill(self, copy: Location) -> None:
        refill(self.dataset, Path(copy), self.tau2)

    def close(self) -> None:
        pass  # the scratch directory goes when the process ends


class ServerDatasets:
    """Copies on the PostgreSQL server `location` names (its database name is the prefix
    of the run's databases; that database itself is never touched): the dataset is built
    once into a template (domain/postgres.py `TemplateCopies`), the pristine state is
    read from a copy of it (reading the template would stop the server from copying it),
    and every fresh copy is a TEMPLATE copy. `close` drops them all."""

    def __init__(self, location: str, dataset: Dataset, tau2: Path | None = None) -> None:
        self.location, self.dataset, self.tau2 = location, dataset, tau2
        self._copies: TemplateCopies | None = None
        self._pristine: str | None = None
        self._lock = threading.Lock()

    def _ready(self) -> TemplateCopies:
        with self._lock:
            if self._copies is None:
                source = _source(self.dataset, self.tau2)
                copies = TemplateCopies.built(
                    self.location, lambda url: _build(self.dataset, source, url)
                )
                try:
                    self._pristine = copies.copy("pristine")
                except BaseException:
                    copies.close()
                    raise
                self._copies = copies
            return self._copies

    def pristine(self) -> str:
        self._ready()
        assert self._pristine is not None
        return self._pristine

    def fresh_copy(self, name: str) -> str:
        return self._ready().copy(name)

    def discard(self, copy: Location) -> None:
        if self._copies is not None:
            # A server that went away: `close` tries again, and says what it left.
            with contextlib.suppress(DatabaseUnavailable):
                self._copies.discard(str(copy))

    def close(self) -> None:
        with self._lock:
            copies, self._copies, self._pristine = self._copies, None, None
        if copies is not None:
            copies.close()
