"""Bulk loading of a whole database in one transaction (seeding and τ² import).

Rows go in as executemany of plain dicts, never ORM object by object: a default-scale
database is ~25,000 rows, `--scale 100` ~1.5 million. On SQLite the dicts go straight to
the driver with a named-parameter INSERT (SQLAlchemy's per-row parameter processing
costs ~1.7× the insert itself); other databases get Core `insert(table)` executemany.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sqlalchemy import Table, delete, insert

from airline_agent.domain import schema
from airline_agent.domain.db import Database

Progress = Callable[[str, int, int], None]

# Large tables are written in chunks so a progress bar moves at `--scale 100`.
CHUNK = 50_000


@dataclass
class TableRows:
    """Every row of a database, table by table, in an order that satisfies foreign keys."""

    airports: list[dict] = field(default_factory=list)
    flights: list[dict] = field(default_factory=list)
    flight_dates: list[dict] = field(default_factory=list)
    users: list[dict] = field(default_factory=list)
    payment_methods: list[dict] = field(default_factory=list)
    saved_passengers: list[dict] = field(default_factory=list)
    reservations: list[dict] = field(default_factory=list)
    reservation_flights: list[dict] = field(default_factory=list)
    reservation_passengers: list[dict] = field(default_factory=list)
    payments: list[dict] = field(default_factory=list)

    def in_order(self) -> list[tuple[Table, list[dict]]]:
        return [
            (schema.Airport.__table__, self.airports),
            (schema.Flight.__table__, self.flights),
            (schema.FlightDate.__table__, self.flight_dates),
            (schema.User.__table__, self.users),
            (schema.PaymentMethod.__table__, self.payment_methods),
            (schema.SavedPassenger.__table__, self.saved_passengers),
            (schema.Reservation.__table__, self.reservations),
            (schema.ReservationFlight.__table__, self.reservation_flights),
            (schema.ReservationPassenger.__table__, self.reservation_passengers),
            (schema.Payment.__table__, self.payments),
        ]

    def total(self) -> int:
        return sum(len(rows) for _, rows in self.in_order())


def _named_insert(table: Table) -> str:
    columns = [column.name for column in table.columns]
    quoted = ", ".join(f'"{c}"' for c in columns)
    named = ", ".join(f":{c}" for c in columns)
    return f'INSERT INTO "{table.name}" ({quoted}) VALUES ({named})'


def load_rows(
    database: Database,
    batches: TableRows | Iterable[TableRows],
    *,
    source: str,
    check_references: bool,
    progress: Progress | None = None,
) -> None:
    """Write every row and the `source` meta fact in one transaction.

    Foreign-key enforcement is paused during the load (SQLite checks each child row
    otherwise); with `check_references` the whole database is checked once at the end
    and a dangling reference rolls everything back with a ValueError.
    """
    if isinstance(batches, TableRows):
        batches = [batches]
        total = batches[0].total()
    else:
        total = 0  # unknown: the generator reports its own progress
    done = 0
    with database.engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # A bulk load through the WAL writes every page twice (WAL, then checkpoint);
            # a rollback journal writes it once. WAL comes back when the load is done.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.exec_driver_sql("PRAGMA journal_mode=DELETE").fetchall()
            connection.commit()
        try:
            with connection.begin():
                for rows in batches:
                    for table, table_rows in rows.in_order():
                        for start in range(0, len(table_rows), CHUNK):
                            chunk = table_rows[start : start + CHUNK]
                            if sqlite:
                                connection.exec_driver_sql(_named_insert(table), chunk)
                            else:
                                connection.execute(insert(table), chunk)
                            done += len(chunk)
                            if progress and total:
                                progress("writing", done, total)
                meta = schema.Meta.__table__
                connection.execute(delete(meta).where(meta.c.key == "source"))
                connection.execute(insert(meta), [{"key": "source", "value": source}])
                if sqlite and check_references:
                    dangling = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if dangling:
                        table, _rowid, parent, _fk = dangling[0]
                        raise ValueError(
                            f"{len(dangling)} row(s) refer to missing records "
                            f"(first: a `{table}` row refers to a missing `{parent}`)"
                        )
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA journal_mode=WAL").fetchall()
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()
