"""Fresh databases for replays: each dataset is built once per process, then copied.

Building the sample or importing the τ² data takes a second or so; copying the finished
SQLite file takes milliseconds. Every scenario gets its own copy in a scratch
directory, so nothing leaks between scenarios and the user's database is never opened.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

from airline_agent.project import PROJECT_ROOT
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


def pristine(dataset: Dataset, tau2: Path | None = None) -> Path:
    """The untouched database file of a dataset, built on first use in this process."""
    source = None
    if dataset == "tau2":
        source = (tau2 or tau2_dir()) / "db.json"
        if not source.is_file():
            hint = "" if tau2 else " (set AIRLINE_AGENT_TAU2_DIR)"  # a folder given: it is wrong
            raise DatasetUnavailable(f"τ² reference data not found at {source}{hint}")
    key = f"{dataset}:{source}" if source else dataset
    with _lock:
        if key not in _pristine:
            _pristine[key] = _build(
                dataset, source, scratch_dir() / f"pristine-{len(_pristine)}.db"
            )
        return _pristine[key]


def fresh_copy(dataset: Dataset, name: str, tau2: Path | None = None) -> tuple[Path, Path]:
    """A private copy of the dataset for one run, and the pristine file it came from."""
    original = pristine(dataset, tau2)
    copy = Path(tempfile.mkstemp(prefix=f"{name}-", suffix=".db", dir=scratch_dir())[1])
    shutil.copyfile(original, copy)
    return copy, original


def discard(copy: Path) -> None:
    for companion in (copy, Path(f"{copy}-wal"), Path(f"{copy}-shm")):
        companion.unlink(missing_ok=True)


def _build(dataset: Dataset, source: Path | None, target: Path) -> Path:
    from airline_agent.domain.db import Database

    database = Database.create(target)
    try:
        if source is not None:
            from airline_agent.domain.tau2 import import_tau2

            try:
                import_tau2(database, source)
            except ValueError as exc:  # a file that is not τ² data
                raise DatasetUnavailable(str(exc)) from exc
        else:
            from airline_agent.domain.sample import seed_sample

            seed_sample(database)
    finally:
        # Closing the last connection folds the WAL into the file, so a copy is complete.
        database.close()
    return target
