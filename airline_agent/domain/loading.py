"""Bulk loading of a whole database in one transaction (seeding and τ² import).

Rows go in as executemany of plain dicts, never ORM object by object: a default-scale
database is ~25,000 rows, `--scale 100` ~1.5 million. On SQLite the dicts go straight to
the driver with a named-parameter INSERT (SQLAlchemy's per-row parameter processing
costs ~1.7× the insert itself); PostgreSQL gets them through `COPY … FROM STDIN`, its
bulk path; other databases get Core `insert(table)` executemany.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sqlalchemy import Connection, Table, delete, insert, text
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from airline_agent.domain import schema
from airline_agent.domain.db import Database
from airline_agent.domain.postgres import advance_sequences, gather_statistics
from airline_agent.domain.provenance import PROVENANCE_FACT, Provenance

Progress = Callable[[str, int, int], None]

# Large tables are written in chunks so a progress bar moves at `--scale 100`.
CHUNK = 50_000
# Each user's list of reservations, made from the reservations a build wrote (one
# statement, on SQLite and PostgreSQL alike: window functions).
_LIST_RESERVATIONS = (
    f"INSERT INTO {schema.USER_RESERVATION} (user_id, position, reservation_id) "
    "SELECT user_id, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY seq) - 1, "
    "reservation_id FROM reservation"
)


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
    # Each user's list of reservations as the data gives it (τ²'s import); None: made by
    # the load, from the reservations, each user's in the order of their `seq` (a build).
    user_reservations: list[dict] | None = None

    def in_order(self) -> list[tuple[Table, list[dict]]]:
        return [
            (schema.table_of(schema.Airport), self.airports),
            (schema.table_of(schema.Flight), self.flights),
            (schema.table_of(schema.FlightDate), self.flight_dates),
            (schema.table_of(schema.User), self.users),
            (schema.table_of(schema.PaymentMethod), self.payment_methods),
            (schema.table_of(schema.SavedPassenger), self.saved_passengers),
            (schema.table_of(schema.Reservation), self.reservations),
            (schema.table_of(schema.ReservationFlight), self.reservation_flights),
            (schema.table_of(schema.ReservationPassenger), self.reservation_passengers),
            (schema.table_of(schema.Payment), self.payments),
            (SQLModel.metadata.tables[schema.USER_RESERVATION], self.user_reservations or []),
        ]

    def total(self) -> int:
        return sum(len(rows) for _, rows in self.in_order())


def _named_insert(table: Table) -> str:
    columns = [column.name for column in table.columns]
    quoted = ", ".join(f'"{c}"' for c in columns)
    named = ", ".join(f":{c}" for c in columns)
    return f'INSERT INTO "{table.name}" ({quoted}) VALUES ({named})'


def _copy_in(connection: Connection, table: Table, rows: list[dict]) -> None:
    """PostgreSQL's COPY, on the load's own driver connection (inside its transaction).
    Foreign keys are checked as rows arrive: the tables come in an order that satisfies
    them, so only a reference to a missing record fails (and rolls the load back)."""
    if not rows:
        return
    names = [column.name for column in table.columns]
    quoted = ", ".join(f'"{name}"' for name in names)
    import psycopg  # PostgreSQL's driver, installed only with the `postgres` extra

    driver = connection.connection.dbapi_connection
    assert driver is not None
    statement = f'COPY "{table.name}" ({quoted}) FROM STDIN'
    try:
        with driver.cursor() as cursor, cursor.copy(statement) as copy:  # type: ignore[attr-defined]
            for row in rows:
                copy.write_row([row.get(name) for name in names])
    except psycopg.errors.ForeignKeyViolation as exc:
        raise ValueError(
            f"rows refer to missing records (first: a `{table.name}` row: "
            f"{exc.diag.message_detail})"
        ) from None
    except psycopg.Error as exc:  # said as SQLAlchemy's errors are, by the callers
        raise DBAPIError(statement, None, exc) from exc


def load_rows(
    database: Database,
    batches: TableRows | Iterable[TableRows],
    *,
    provenance: Provenance,
    check_references: bool,
    progress: Progress | None = None,
) -> None:
    """Write every row and, last, the `source` and `provenance` facts in one transaction:
    `source` says the database is complete (see integrity.py), so an interrupted load
    leaves none; `provenance` says how to build it again (provenance.py).

    Foreign-key enforcement is paused during the load (`Database.bulk_load`); with
    `check_references` the whole database is checked once at the end and a dangling
    reference rolls everything back with a ValueError.
    """
    if isinstance(batches, TableRows):
        batches = [batches]
        total = batches[0].total()
    else:
        total = 0  # unknown: the generator reports its own progress
    done = 0
    listed = False  # whether the data gave the users' lists of reservations
    with database.bulk_load() as connection:
        sqlite = connection.dialect.name == "sqlite"
        postgres = connection.dialect.name == "postgresql"
        for rows in batches:
            listed = listed or rows.user_reservations is not None
            for table, table_rows in rows.in_order():
                for start in range(0, len(table_rows), CHUNK):
                    chunk = table_rows[start : start + CHUNK]
                    if sqlite:
                        connection.exec_driver_sql(_named_insert(table), chunk)
                    elif postgres:
                        _copy_in(connection, table, chunk)
                    else:
                        connection.execute(insert(table), chunk)
                    done += len(chunk)
                    if progress and total:
                        progress("writing", done, total)
        if not listed:
            connection.execute(text(_LIST_RESERVATIONS))
        if sqlite and check_references:
            dangling = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
            if dangling:
                table, _rowid, parent, _fk = dangling[0]
                raise ValueError(
                    f"{len(dangling)} row(s) refer to missing records "
                    f"(first: a `{table}` row refers to a missing `{parent}`)"
                )
        if postgres:
            advance_sequences(connection)
            gather_statistics(connection)
        # Last, in the same transaction: the database is complete only if this commits.
        facts = {schema.COMPLETE_FACT: provenance.source(), PROVENANCE_FACT: provenance.fact()}
        meta = schema.table_of(schema.Meta)
        connection.execute(delete(meta).where(meta.c.key.in_(facts)))
        connection.execute(insert(meta), [{"key": k, "value": v} for k, v in facts.items()])
