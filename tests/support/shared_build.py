"""Files that a test run builds once, whatever the number of pytest-xdist workers.

A session fixture runs once per worker: the sample database (seconds to build) and the τ²
import would be built by each of them, at the same moment, on the same two cores. Built
through `built_once`, the first worker to ask builds the file while holding a lock, and
the others wait for that lock and take the finished file (the pattern of pytest-xdist's
documentation, "making session-scoped fixtures execute only once").

The file lives in the run's own temporary folder (each worker's basetemp is a folder of
the run's, `…/pytest-N/popen-gwK`), so it is never reused by another run, with code that
may have changed since. Nothing here depends on where a test file lives.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder of this whole run: every worker's basetemp is inside it."""
    basetemp = tmp_path_factory.getbasetemp()
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """The file `build(path)` writes at `path`, built by the first worker that asks for it.

    The build happens in a private folder and the file is renamed into place once it is
    whole, so a worker never sees half a file; callers copy it, never write to it.
    """
    shared = run_folder(tmp_path_factory) / "built-once"
    shared.mkdir(exist_ok=True)
    target = shared / name
    with FileLock(shared / f"{name}.lock"):
        if not target.exists():
            scratch = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=shared))
            try:
                build(scratch / name)
                # A journal left beside the file would hold part of the data: not moved.
                journals = [Path(f"{scratch / name}{s}") for s in ("-wal", "-journal")]
                if any(j.exists() and j.stat().st_size for j in journals):
                    raise RuntimeError(f"building {name} left a journal beside it")
                os.replace(scratch / name, target)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    return target
