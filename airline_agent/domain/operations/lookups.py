"""Reads of customers and reservations, in τ² shape (`tau2_shape`, shared with export).

Each lookup is one read transaction (`Database.read`): its queries see one committed
state. Every query is served by an index (see schema.py; tests/unit/domain/test_reads.py
checks the plans).
"""

from __future__ import annotations

from collections.abc import Sequence

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
)
from airline_agent.domain.tau2_shape import (
    Tau2Reservation,
    Tau2User,
    reservation_record,
    user_record,
)


def get_user(database: Database, user_id: str) -> Tau2User:
    """The customer's profile in τ² shape, with payment methods, passengers, reservations."""
    with database.read() as session:
        # The exact id is the common case: one query; tolerant resolution only on a miss.
        user = session.get(User, user_id)
        if user is None:
            user = session.get(User, require(session, USER_ID, user_id, "User"))
            assert user is not None  # just resolved, in the same snapshot
        key = user.user_id
        methods = session.exec(
            select(PaymentMethod)
            .where(PaymentMethod.user_id == key)
            .order_by(col(PaymentMethod.position))
        ).all()
        saved = session.exec(
            select(SavedPassenger)
            .where(SavedPassenger.user_id == key)
            .order_by(col(SavedPassenger.position))
        ).all()
        reservations = session.exec(
            select(Reservation.reservation_id)
            .where(Reservation.user_id == key)
            .order_by(col(Reservation.seq))
        ).all()
    return user_record(user, methods, saved, reservations)


def find_reservation(session: Session, reservation_id: str) -> Reservation | None:
    """The reservation with this id: exactly (the common case, one query), else as
    `ids.resolve` finds it."""
    query = select(Reservation).where(Reservation.reservation_id == reservation_id)
    reservation = session.exec(query).first()
    if reservation is None:
        key = resolve_tolerantly(session, RESERVATION_ID, reservation_id)
        if key is not None:
            reservation = session.exec(
                select(Reservation).where(Reservation.reservation_id == key)
            ).one()
    return reservation


def reservation_parts(
    session: Session, reservation_id: str
) -> tuple[Sequence[ReservationFlight], Sequence[ReservationPassenger], Sequence[Payment]]:
    """A reservation's segments, passengers and payments, each in its stored order."""
    return (
        session.exec(
            select(ReservationFlight)
            .where(ReservationFlight.reservation_id == reservation_id)
            .order_by(col(ReservationFlight.position))
        ).all(),
        session.exec(
            select(ReservationPassenger)
            .where(ReservationPassenger.reservation_id == reservation_id)
            .order_by(col(ReservationPassenger.position))
        ).all(),
        session.exec(
            select(Payment)
            .where(Payment.reservation_id == reservation_id)
            .order_by(col(Payment.position))
        ).all(),
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
        rows = session.exec(
            select(User.user_id, User.first_name, User.last_name).order_by(col(User.user_id))
        ).all()
    return [(user_id, f"{first} {last}") for user_id, first, last in rows]
