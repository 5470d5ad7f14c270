"""The default sample database at a path of a test's choosing, as `airline-agent seed
--db PATH` builds it: a named database must exist before any command but `seed` opens it.
Built once per process and copied (a build takes seconds, a copy milliseconds)."""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

_lock = threading.Lock()
_template: Path | None = None


def seeded(path: Path) -> Path:
    """`path`, now holding a fresh copy of the default sample database."""
    global _template
    from airline_agent.domain.provisioning import build_database

    with _lock:
        if _template is None:
            folder = Path(tempfile.mkdtemp(prefix="airline-agent-sample-"))
            build_database(folder / "sample.db").close()
            _template = folder / "sample.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_template, path)
    return path
