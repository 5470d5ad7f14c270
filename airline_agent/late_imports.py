"""Modules imported late, behind a door in a worker thread, load one thread at a time.

Two threads may import one module at once, but not two halves of a package whose modules
import each other (SQLAlchemy's, pydantic's): the second thread is handed the module
half-initialized, and fails with "cannot import name … from partially initialized
module". In the TUI that was a scenario chosen while the library was still being checked
in its thread: "Could not start …" in the chat, or the app closing on the library's
error. Every door imports inside `importing`, so the doors take turns; a door whose
module is loaded already waits for no one (the screen's own door is on its loop).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_one_at_a_time = threading.RLock()


@contextmanager
def importing(module: str) -> Iterator[None]:
    """Around a door's import of `module`: alone, unless it is loaded already."""
    loaded = sys.modules.get(module)
    spec = getattr(loaded, "__spec__", None)
    if loaded is not None and not getattr(spec, "_initializing", False):
        yield
        return
    with _one_at_a_time:
        yield
