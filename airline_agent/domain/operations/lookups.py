"""Reads of customers and reservations, in τ² shape (`tau2_shape`, shared with export).

Each lookup is one read transaction (`Database.read`): its queries see one committed
state. Each query is written once, below, its values bound when it runs. Every query is
served by an index (see schema.py; tests/unit/domain/test_reads.py checks the plans).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from airline_agent.domain.db import Database
from airline_agent.domain.errors import NotFound
from airline_agent.domain.operations.ids import (
    RESERVATION_ID,
    USER_ID,
    require,
    resolve,
    resolve_tolerantly,
)
from airline_agent.domain.schema import (
    Payment,
    PaymentMethod,
    Reservation,
    ReservationFlight,
    ReservationPassenger,
    SavedPassenger,
    User,
    UserReservation,
)
from airline_agent.domain.tau2_shape import (
    Tau2Reservation,
    Tau2User,
    reservation_record,
    user_record,
)

_USER = select(User).where(User.user_id == bindparam("user_id"))
_PAYMENT_METHODS = (
    select(PaymentMethod)
    .where(PaymentMethod.user_id == bindparam("user_id"))
    .order_by(col(PaymentMethod.position))
)
_SAVED_PASSENGERS = (
    select(SavedPassenger)
    .where(SavedPassenger.user_id == bindparam("user_id"))
    .order_by(col(SavedPassenger.position))
)
# The user's list as τ² keeps it (schema.UserReservation), not derived from the reservations.
_RESERVATIONS_OF = (
    select(UserReservation.reservation_id)
    .where(UserReservation.user_id == bindparam("user_id"))
    .order_by(col(UserReservation.position))
)

_RESERVATION = select(Reservation).where(Reservation.reservation_id == bindparam("reservation_id"))
_SEGMENTS = (
    select(ReservationFlight)
    .where(ReservationFlight.reservation_id == bindparam("reservation_id"))
    .order_by(col(ReservationFlight.position))
)
_PASSENGERS = (
    select(ReservationPassenger)
    .where(ReservationPassenger.reservation_id == bindparam("reservation_id"))
    .order_by(col(ReservationPassenger.position))
)
_PAYMENTS = (
    select(Payment)
    .where(Payment.reservation_id == bindparam("reservation_id"))
    .order_by(col(Payment.position))
)

_CUSTOMERS = select(User.user_id, User.first_name, User.last_name).order_by(col(User.user_id))


def get_user(database: Database, user_id: str) -> Tau2User:
    """The customer's profile in τ² shape, with payment methods, passengers, reservations."""
    with database.read() as session:
        # The exact id is the common case: one query; tolerant resolution only on a miss.
        user = session.exec(_USER, params={"user_id": user_id}).first()
        if user is None:
            key = require(session, USER_ID, user_id, "User")
            user = session.exec(_USER, params={"user_id": key}).one()
        of_user = {"user_id": user.user_id}
        return user_record(
            user,
            session.exec(_PAYMENT_METHODS, params=of_user).all(),
            session.exec(_SAVED_PASSENGERS, params=of_user).all(),
            session.exec(_RESERVATIONS_OF, params=of_user).all(),
        )


def find_reservation(session: Session, reservation_id: str) -> Reservation | None:
    """The reservation with this id: exactly (the common case, one query), else as
    `ids.resolve` finds it."""
    reservation = session.exec(_RESERVATION, params={"reservation_id": reservation_id}).first()
    if reservation is None:
        key = resolve_tolerantly(session, RESERVATION_ID, reservation_id)
        if key is not None:
            reservation = session.exec(_RESERVATION, params={"reservation_id": key}).one()
    return reservation


def reservation_parts(
    session: Session, reservation_id: str
) -> tuple[Sequence[ReservationFlight], Sequence[ReservationPassenger], Sequence[Payment]]:
    """A reservation's segments, passengers and payments, each in its stored order."""
    key = {"reservation_id": reservation_id}
    return (
        session.exec(_SEGMENTS, params=key).all(),
        session.exec(_PASSENGERS, params=key).all(),
        session.exec(_PAYMENTS, params=key).all(),
    )


def get_reservation(database: Database, reservation_id: str) -> Tau2Reservation:
    """One reservation in τ² shape: segments with prices, passengers, payment history."""
    with database.read() as session:
        reservation = find_reservation(session, reservation_id)
        if reservation is None:
            raise NotFound(f"Reservation {reservation_id!r} not found")
        parts = reservation_parts(session, reservation.reservation_id)
    return reservation_record(reservation, *parts, as_tool_result=True)


def reservation_owner(database: Database, reservation_id: str) -> str | None:
    """The user id of the reservation's owner, None when there is no such reservation."""
    with database.read() as session:
        reservation = find_reservation(session, reservation_id)
        return None if reservation is None else reservation.user_id


def resolve_user_id(database: Database, user_id: str) -> str | None:
    with database.read() as session:
        return resolve(session, USER_ID, user_id)


def list_customers(database: Database) -> list[tuple[str, str]]:
    """Every customer's id and full name, by id (the TUI's customer picker searches them)."""
    with database.read() as session:
        rows = session.exec(_CUSTOMERS).all()
    return [(user_id, f"{first} {last}") for user_id, first, last in rows]
