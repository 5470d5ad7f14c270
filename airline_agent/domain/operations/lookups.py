"""Reads of customers and reservations, in τ² shape (`tau2_shape`, shared with export).

Plain SQL through `database.reads()` and `database.statements()` (see read_snapshots.py):
the same text runs on bare sqlite3 and on any SQLAlchemy connection. Every query is served
by an index (see schema.py; tests/unit/domain/test_reads.py checks the plans).
"""

from __future__ import annotations

from typing import Any

from airline_agent.domain.db import Database
from airline_agent.domain.operations.ids import RESERVATION_ID, USER_ID, require, resolve
from airline_agent.domain.read_snapshots import Reads
from airline_agent.domain.schema import USER_RESERVATION
from airline_agent.domain.tau2_shape import (
    PASSENGER_COLUMNS,
    PAYMENT_COLUMNS,
    PAYMENT_METHOD_COLUMNS,
    RESERVATION_COLUMNS,
    SEGMENT_COLUMNS,
    USER_COLUMNS,
    columns,
    reservation_record,
    user_record,
)

_USER = f'SELECT {columns(USER_COLUMNS)} FROM "user" WHERE user_id = :key'
_USER_METHODS = (
    f"SELECT {columns(PAYMENT_METHOD_COLUMNS)} FROM paymentmethod "
    "WHERE user_id = :key ORDER BY position"
)
_USER_PASSENGERS = (
    f"SELECT {columns(PASSENGER_COLUMNS)} FROM savedpassenger "
    "WHERE user_id = :key ORDER BY position"
)
# The user's list as τ² keeps it (schema.UserReservation), not derived from the reservations.
_USER_RESERVATIONS = (
    f"SELECT reservation_id FROM {USER_RESERVATION} WHERE user_id = :key ORDER BY position"
)

_RESERVATION = f"SELECT {columns(RESERVATION_COLUMNS)} FROM reservation WHERE reservation_id = :key"
_RESERVATION_SEGMENTS = (
    f"SELECT {columns(SEGMENT_COLUMNS)} FROM reservationflight "
    "WHERE reservation_id = :key ORDER BY position"
)
_RESERVATION_PASSENGERS = (
    f"SELECT {columns(PASSENGER_COLUMNS)} FROM reservationpassenger "
    "WHERE reservation_id = :key ORDER BY position"
)
_RESERVATION_PAYMENTS = (
    f"SELECT {columns(PAYMENT_COLUMNS)} FROM payment WHERE reservation_id = :key ORDER BY position"
)
_OWNER = "SELECT user_id FROM reservation WHERE reservation_id = :key"


def get_user(database: Database, user_id: str) -> dict[str, Any]:
    """The customer's profile in τ² shape, with payment methods, passengers, reservations."""
    with database.reads() as reads:
        # The exact id is the common case: one query; tolerant resolution only on a miss.
        user = reads.row(_USER, {"key": user_id})
        if user is None:
            user = reads.row(_USER, {"key": require(reads, USER_ID, user_id, "User")})
        key = {"key": user[0]}
        methods = reads.rows(_USER_METHODS, key)
        saved = reads.rows(_USER_PASSENGERS, key)
        reservations = reads.rows(_USER_RESERVATIONS, key)
    return user_record(user, methods, saved, (reservation_id for (reservation_id,) in reservations))


def reservation_in(reads: Reads, reservation_id: str) -> dict[str, Any]:
    """One reservation in τ² shape, read in an open snapshot (or a write's transaction)."""
    # The exact id is the common case: one query; tolerant resolution only on a miss.
    reservation = reads.row(_RESERVATION, {"key": reservation_id})
    if reservation is None:
        key = require(reads, RESERVATION_ID, reservation_id, "Reservation")
        reservation = reads.row(_RESERVATION, {"key": key})
    key = {"key": reservation[0]}
    return reservation_record(
        reservation,
        reads.rows(_RESERVATION_SEGMENTS, key),
        reads.rows(_RESERVATION_PASSENGERS, key),
        reads.rows(_RESERVATION_PAYMENTS, key),
        as_tool_result=True,
    )


def get_reservation(database: Database, reservation_id: str) -> dict[str, Any]:
    """One reservation in τ² shape: segments with prices, passengers, payment history."""
    with database.reads() as reads:
        return reservation_in(reads, reservation_id)


def reservation_owner(database: Database, reservation_id: str) -> str | None:
    reads = database.statements()
    key = resolve(reads, RESERVATION_ID, reservation_id)
    if key is None:
        return None
    return reads.value(_OWNER, {"key": key})


def resolve_user_id(database: Database, user_id: str) -> str | None:
    return resolve(database.statements(), USER_ID, user_id)


_CUSTOMERS = 'SELECT user_id, first_name, last_name FROM "user" ORDER BY user_id'


def list_customers(database: Database) -> list[tuple[str, str]]:
    """Every customer's id and full name, by id (the TUI's customer picker searches them)."""
    rows = database.statements().rows(_CUSTOMERS)
    return [(user_id, f"{first} {last}") for user_id, first, last in rows]
