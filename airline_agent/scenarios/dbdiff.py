"""What a run changed in a database, in the `export --format tau2` shape.

Exporting a whole database takes a quarter of a second, too slow to do twice per
scenario. Instead the changed rows are found with SQL (`EXCEPT` against the pristine
copy, attached), mapped to the τ² records they belong to, and only those records are
exported by `export_tau2` itself, asked for those records only, so the shape is exactly
the export's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from airline_agent.domain import schema
from airline_agent.domain.db import Database
from airline_agent.domain.sqlite_files import SqliteFile
from airline_agent.domain.tau2 import export_tau2
from airline_agent.scenarios.model import RecordKind
from airline_agent.tools.outcome import RowChange

Kind = RecordKind  # a τ² record's kind
RecordKey = tuple[Kind, str]
Record = dict[str, object]  # one τ² record as `export --format tau2` writes it


def _table(model: type[schema.SQLModel]) -> str:
    """A table model's name (SQLModel types `__tablename__` as a name or a function)."""
    name = model.__tablename__
    assert isinstance(name, str), model
    return name


# Which τ² record each table's rows belong to: table -> (kind, key column).
_OWNER: dict[str, tuple[Kind, str]] = {
    _table(schema.Flight): ("flights", "flight_number"),
    _table(schema.FlightDate): ("flights", "flight_number"),
    _table(schema.User): ("users", "user_id"),
    _table(schema.PaymentMethod): ("users", "user_id"),
    _table(schema.SavedPassenger): ("users", "user_id"),
    schema.USER_RESERVATION: ("users", "user_id"),
    _table(schema.Reservation): ("reservations", "reservation_id"),
    _table(schema.ReservationFlight): ("reservations", "reservation_id"),
    _table(schema.ReservationPassenger): ("reservations", "reservation_id"),
    _table(schema.Payment): ("reservations", "reservation_id"),
}
_RESERVATION = _table(schema.Reservation)


class Missing:
    """What `get_path` finds where a path leads nowhere (one instance: `MISSING`)."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING = Missing()


def changed_records(pristine: Path, current: Path) -> set[RecordKey]:
    """The τ² records whose rows differ between two databases of the same schema."""
    changed: set[RecordKey] = set()
    with _attached(current, pristine) as conn:
        for table, (kind, key) in _OWNER.items():
            if _same_rows(conn, table):
                continue
            query = (
                f'SELECT "{key}" FROM (SELECT * FROM main."{table}" EXCEPT '
                f'SELECT * FROM base."{table}") UNION SELECT "{key}" FROM '
                f'(SELECT * FROM base."{table}" EXCEPT SELECT * FROM main."{table}")'
            )
            changed.update((kind, row[0]) for row in conn.execute(query))
            if table != _RESERVATION:
                continue
            # A reservation created or removed changes its owner's `reservations` list.
            query = (
                f'SELECT user_id FROM (SELECT user_id, reservation_id FROM main."{table}" '
                f'EXCEPT SELECT user_id, reservation_id FROM base."{table}") UNION '
                f'SELECT user_id FROM (SELECT user_id, reservation_id FROM base."{table}" '
                f'EXCEPT SELECT user_id, reservation_id FROM main."{table}")'
            )
            changed.update(("users", row[0]) for row in conn.execute(query))
    return changed


def _same_rows(conn: sqlite3.Connection, table: str) -> bool:
    """Whether the table holds the same rows in both databases, known without sorting
    them: each row of `main` has its copy at the same rowid in `base`, and both hold as
    many rows. A run leaves most tables as they were, and this answers for one of them
    in a quarter of the time the two `EXCEPT`s take; a row written again elsewhere (a
    new rowid) only sends the table to them."""
    columns = [row[1] for row in conn.execute(f'PRAGMA main.table_info("{table}")')]
    mine = ", ".join(f'm."{column}"' for column in columns)
    theirs = ", ".join(f'b."{column}"' for column in columns)
    same, in_main, in_base = conn.execute(
        f'SELECT (SELECT count(*) FROM main."{table}" AS m JOIN base."{table}" AS b '
        f"ON b.rowid = m.rowid WHERE ({mine}) IS ({theirs})), "
        f'(SELECT count(*) FROM main."{table}"), (SELECT count(*) FROM base."{table}")'
    ).fetchone()
    return bool(same == in_main == in_base)


def owners_of(change: RowChange) -> set[RecordKey]:
    """The τ² records a tool's `RowChange` belongs to (as the tool reported it)."""
    kind_key = _OWNER.get(change.table)
    row = change.after or change.before or {}
    if kind_key is None or kind_key[1] not in row:
        return set()
    kind, column = kind_key
    owners = {(kind, str(row[column]))}
    if change.table == _RESERVATION and (change.before is None or change.after is None):
        owners.add(("users", str(row["user_id"])))
    return owners


def export_records(
    database: Path | str | Database, records: set[RecordKey]
) -> dict[RecordKey, Record]:
    """The given records as `export --format tau2` writes them; absent records are left out.
    `database`: a SQLite file, the URL of a database on a server (eval's trials on
    PostgreSQL), or an open Database.

    `export_tau2` itself, asked for these records only (its queries filtered on their
    keys): a scratch database to export from took a fifth of a second per call, most of
    it creating the schema."""
    if not records:
        return {}
    wanted: dict[Kind, list[str]] = {"flights": [], "users": [], "reservations": []}
    for kind, key in records:
        wanted[kind].append(key)
    if isinstance(database, Database):
        return _export(database, wanted)
    opened = Database.open(database)
    try:
        return _export(opened, wanted)
    finally:
        opened.close()


def _export(database: Database, wanted: dict[Kind, list[str]]) -> dict[RecordKey, Record]:
    exported = export_tau2(
        database,
        flights=wanted["flights"],
        users=wanted["users"],
        reservations=wanted["reservations"],
    )
    found: dict[RecordKey, Record] = {}
    for key, flight in exported["flights"].items():
        found[("flights", key)] = dict(flight)
    for key, user in exported["users"].items():
        found[("users", key)] = dict(user)
    for key, reservation in exported["reservations"].items():
        found[("reservations", key)] = dict(reservation)
    return found


@dataclass(frozen=True)
class RecordChange:
    kind: Kind
    key: str
    before: Record | None  # None: created
    after: Record | None  # None: removed
    paths: tuple[str, ...]  # the dotted leaf paths that differ

    @property
    def created(self) -> bool:
        return self.before is None

    @property
    def removed(self) -> bool:
        return self.after is None


def diff_databases(pristine: Path, current: Path) -> list[RecordChange]:
    """Every record that differs, with its export before and after and the paths changed."""
    keys = changed_records(pristine, current)
    before, after = export_records(pristine, keys), export_records(current, keys)
    changes = []
    for key in sorted(keys):
        old, new = before.get(key), after.get(key)
        paths = changed_paths(old or {}, new or {})
        if old is None or new is None or paths:
            changes.append(RecordChange(key[0], key[1], old, new, tuple(paths)))
    return changes


def flatten(value: object, prefix: str = "") -> dict[str, object]:
    """Leaves by dotted path (`dates.2024-05-17.available_seats.economy`, `flights.0.price`)."""
    items: Iterable[tuple[object, object]]
    if isinstance(value, dict) and value:
        items = value.items()
    elif isinstance(value, list) and value:
        items = ((str(i), v) for i, v in enumerate(value))
    else:
        return {prefix: value}
    leaves: dict[str, object] = {}
    for name, child in items:
        leaves.update(flatten(child, f"{prefix}.{name}" if prefix else str(name)))
    return leaves


def changed_paths(before: object, after: object) -> list[str]:
    old, new = flatten(before), flatten(after)
    return sorted(p for p in old.keys() | new.keys() if old.get(p, MISSING) != new.get(p, MISSING))


def get_path(value: object, path: str) -> object:
    """The value at a dotted path, or MISSING; list items are addressed by index."""
    for part in path.split(".") if path else ():
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif (
            isinstance(value, list)
            and part.lstrip("-").isdigit()
            and -len(value) <= int(part) < len(value)
        ):
            value = value[int(part)]
        else:
            return MISSING
    return value


def covers(expected_path: str, changed_path: str) -> bool:
    """An expectation on a path accounts for changes at, under or above it."""
    if expected_path == changed_path:
        return True
    return changed_path.startswith(expected_path + ".") or expected_path.startswith(
        changed_path + "."
    )


class _attached:
    """`current` opened with `pristine` attached as `base` (both only read)."""

    def __init__(self, current: Path, pristine: Path) -> None:
        self.current, self.pristine = current, pristine

    def __enter__(self) -> sqlite3.Connection:
        # Opened for reading only: a file that is gone is an error here, not created
        # again empty where the user's database was.
        self.conn = _for_reading(self.current).connect()
        try:
            self.conn.execute("ATTACH DATABASE ? AS base", (_for_reading(self.pristine).uri(),))
        except sqlite3.Error:
            self.conn.close()
            raise
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()


def _for_reading(path: Path) -> SqliteFile:
    """`path` opened without the right to write, even where this process has it."""
    found = SqliteFile.of(path)
    return found if found.read_only else SqliteFile(path, "read-only")
