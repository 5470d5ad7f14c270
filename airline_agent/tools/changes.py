"""Which database rows a write changed, before → after (`RowChange`).

A SQLAlchemy `after_flush` listener on every ORM session reads the session's new, dirty
and deleted rows (their attribute history is still there at that point) and adds them to
the log of the `recording()` block running in this context. Several flushes in one
transaction merge: the first `before` and the last `after` of a row are kept, and a row
inserted and deleted again disappears. The log is only meaningful once the transaction
committed; the caller drops it on failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sqlalchemy import event, inspect
from sqlalchemy.orm import InstanceState, Session, UOWTransaction

from airline_agent.domain.schema import Reservation
from airline_agent.tools.outcome import RowChange, RowValues

# Each changed row by (table, key): its values before and after (None: not there).
Changed = dict[tuple[str, str], list[RowValues | None]]
State = InstanceState[object]

_LOG: ContextVar[Changed | None] = ContextVar("row_changes", default=None)
_listening = False


class ChangeLog:
    def __init__(self, rows: Changed) -> None:
        self._rows = rows

    def changes(self) -> tuple[RowChange, ...]:
        """The rows changed, by table and then key: the ORM flushes them in the order of
        its identity sets (memory addresses), and a trace, a recording or a diff must
        list the same write the same way every time."""
        result = []
        for (table, key), (before, after) in sorted(self._rows.items(), key=lambda row: row[0]):
            if before is None and after is None:
                continue
            if before == after:
                continue
            result.append(RowChange(table=table, key=key, before=before, after=after))
        return tuple(result)


@contextmanager
def recording() -> Iterator[ChangeLog]:
    """Record the row changes of the writes inside the block."""
    _listen()
    rows: Changed = {}
    token = _LOG.set(rows)
    try:
        yield ChangeLog(rows)
    finally:
        _LOG.reset(token)


def _listen() -> None:
    global _listening
    if not _listening:
        event.listen(Session, "after_flush", _after_flush)
        _listening = True


def _columns(state: State) -> list[str]:
    return [column.key for column in state.mapper.column_attrs]


def _table(state: State) -> str:
    return str(getattr(state.mapper.local_table, "name", ""))


def _key(state: State) -> str:
    obj = state.obj()
    if isinstance(obj, Reservation):
        return obj.reservation_id  # `seq` is internal; the id names it
    identity = state.mapper.primary_key_from_instance(obj)
    return "/".join(str(part) for part in identity)


def _current(state: State) -> RowValues:
    obj = state.obj()
    return {name: getattr(obj, name) for name in _columns(state)}


def _previous(state: State) -> RowValues:
    values: RowValues = {}
    for name in _columns(state):
        history = state.attrs[name].history
        if history.deleted:
            values[name] = history.deleted[0]
        elif history.unchanged:
            values[name] = history.unchanged[0]
        else:
            values[name] = getattr(state.obj(), name)
    return values


def _record(rows: Changed, state: State, before: RowValues | None, after: RowValues | None) -> None:
    slot = (_table(state), _key(state))
    if slot in rows:
        rows[slot][1] = after
    else:
        rows[slot] = [before, after]


def _after_flush(session: Session, _context: UOWTransaction) -> None:
    rows = _LOG.get()
    if rows is None:
        return
    for obj in session.new:
        _record(rows, inspect(obj), None, _current(inspect(obj)))
    for obj in session.dirty:
        state = inspect(obj)
        if session.is_modified(obj, include_collections=False):
            _record(rows, state, _previous(state), _current(state))
    for obj in session.deleted:
        state = inspect(obj)
        _record(rows, state, _previous(state), None)
