"""The SQL statements the driver runs, as sqlite3's own trace callback sees them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event
from sqlalchemy.pool import Pool


@contextmanager
def traced() -> Iterator[list[str]]:
    """Every statement that the SQLite connections opened inside the block run, in order
    (open the Database inside the block, or `disconnect` it there first)."""
    statements: list[str] = []

    def trace(connection: sqlite3.Connection, _record: object) -> None:
        connection.set_trace_callback(statements.append)

    event.listen(Pool, "connect", trace)
    try:
        yield statements
    finally:
        event.remove(Pool, "connect", trace)
