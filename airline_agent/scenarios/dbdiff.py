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
            owners = _differing(conn, table, key)
            changed.update((kind, owner) for owner in owners)
            if table != _RESERVATION or not owners:
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


def _differing(conn: sqlite3.Connection, table: str, key: str) -> set[str]:
    """`key` of the rows in one database and not in the other (`main` EXCEPT `base` and
    `base` EXCEPT `main`), with only the rows a run may have changed sorted and compared.

    A run leaves almost every row where it was: a row with its copy at the same rowid on
    the other side is in both. The other rows (`moved`: changed, added, removed, or
    written again at a new rowid) are the only ones that can differ, and among them a row
    of one side is in the other exactly when it is among the other's moved rows: its copy
    there, at another rowid, cannot be the copy of a row of its own side, which would then
    hold the row twice (a table's rows are distinct: it has a primary key). So the two
    `EXCEPT`s are taken between the moved rows, and a table with none (the same rows,
    as many on both sides) is not compared further."""
    columns = [row[1] for row in conn.execute(f'PRAGMA main.table_info("{table}")')]
    mine = ", ".join(f'm."{column}"' for column in columns)
    theirs = ", ".join(f'b."{column}"' for column in columns)
    moved = {
        side: f'SELECT {side}.* FROM {schema}."{table}" AS {side} LEFT JOIN '
        f'{other_schema}."{table}" AS {other} ON {other}.rowid = {side}.rowid '
        f"WHERE {other}.rowid IS NULL OR ({mine}) IS NOT ({theirs})"
        for side, schema, other, other_schema in (
            ("m", "main", "b", "base"),
            ("b", "base", "m", "main"),
        )
    }
    moved_in_main, in_main, in_base = conn.execute(
        f'SELECT (SELECT count(*) FROM ({moved["m"]})), (SELECT count(*) FROM main."{table}"), '
        f'(SELECT count(*) FROM base."{table}")'
    ).fetchone()
    if moved_in_main == 0 and in_main == in_base:
        return set()  # every row of main is in base, and base holds no other
    query = (
        f"WITH m_moved AS MATERIALIZED ({moved['m']}), b_moved AS MATERIALIZED ({moved['b']}) "
        f'SELECT "{key}" FROM (SELECT * FROM m_moved EXCEPT SELECT * FROM b_moved) UNION '
        f'SELECT "{key}" FROM (SELECT * FROM b_moved EXCEPT SELECT * FROM m_moved)'
    )
    return {row[0] for row in conn.execute(query)}


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
