"""The rows a write reads and changes, inside its transaction.

`Database.write()` takes the write lock before the first statement (SQLite: `BEGIN
IMMEDIATE`), so everything read here is current until the commit and a change computed
from it (seats left, a gift card's balance, the next id) cannot be lost to a concurrent
writer. On databases with row locks the rows are also read `FOR UPDATE` (what the write
changes or may change: a flight's date, whose seats a booking or a change takes) or `FOR
SHARE` (what the guard's decision only reads: a flight's route and times), so no other
transaction changes them before this one commits.

The tool guard reads its facts here too, in the same transaction as the write it decides
(tools/guard.py): `find_reservation`, `find_user`, `schedule`. The reservation row comes
first and locked, so its segments, passengers and payments (which every writer changes
only after locking it) stay as read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from sqlalchemy import select, tuple_
from sqlmodel import Session

from airline_agent.domain.cabins import CABINS
from airline_agent.domain.errors import Conflict, InvalidArguments, NotFound
from airline_agent.domain.operations.ids import (
    FLIGHT_NUMBER,
    RESERVATION_ID,
    USER_ID,
    require,
    resolve,
)
from airline_agent.domain.operations.values import FlightRef
from airline_agent.domain.policy import SegmentFacts
from airline_agent.domain.read_snapshots import Reads, reads_on
from airline_agent.domain.schema import (
    Flight,
    FlightDate,
    Payment,
    PaymentMethod,
    Reservation,
    ReservationFlight,
    ReservationPassenger,
    User,
)


def in_transaction(session: Session) -> Reads:
    """The plain-SQL reads on a write transaction's connection (it sees its own rows)."""
    return reads_on(session.connection())


def _row_locks(session: Session) -> bool | None:
    """True where the database has row locks; None on SQLite, whose write lock is the
    whole database (taken at BEGIN), so `FOR UPDATE` would only bypass the session's
    identity map for nothing."""
    return None if session.get_bind().dialect.name == "sqlite" else True


def _share_locks(session: Session) -> dict[str, bool] | None:
    """`FOR SHARE` where the database has row locks (rows a decision reads, the write
    does not change); None on SQLite, as for `_row_locks`."""
    return None if session.get_bind().dialect.name == "sqlite" else {"read": True}


def find_user(session: Session, user_id: str) -> User | None:
    key = resolve(in_transaction(session), USER_ID, user_id)
    if key is None:
        return None
    return session.get(User, key, with_for_update=_row_locks(session))


def user_row(session: Session, user_id: str) -> User:
    user = find_user(session, user_id)
    if user is None:
        raise NotFound(f"User {user_id!r} not found")
    return user


def find_reservation(session: Session, reservation_id: str) -> Reservation | None:
    key = resolve(in_transaction(session), RESERVATION_ID, reservation_id)
    if key is None:
        return None
    query = select(Reservation).where(Reservation.reservation_id == key)
    if _row_locks(session):
        query = query.with_for_update()
    return session.scalars(query).one()


def reservation_row(session: Session, reservation_id: str) -> Reservation:
    reservation = find_reservation(session, reservation_id)
    if reservation is None:
        raise NotFound(f"Reservation {reservation_id!r} not found")
    return reservation


def flight_row(session: Session, flight_number: str) -> Flight:
    key = require(in_transaction(session), FLIGHT_NUMBER, flight_number, "Flight")
    return session.get(Flight, key)  # type: ignore[return-value]


def flight_date_row(session: Session, flight: Flight, date: str) -> FlightDate:
    key = (flight.flight_number, date)
    row = session.get(FlightDate, key, with_for_update=_row_locks(session))
    if row is None:
        raise NotFound(f"Flight {flight.flight_number} not found on date {date}")
    return row


def payment_methods(session: Session, user_id: str) -> dict[str, PaymentMethod]:
    """The customer's payment methods by id, in profile order."""
    query = (
        select(PaymentMethod)
        .where(PaymentMethod.user_id == user_id)
        .order_by(PaymentMethod.position)
    )
    if _row_locks(session):
        query = query.with_for_update()
    rows = session.scalars(query)
    return {m.payment_id: m for m in rows}


_ReservationPart = TypeVar("_ReservationPart", ReservationFlight, ReservationPassenger, Payment)


def reservation_parts(
    session: Session, table: type[_ReservationPart], reservation_id: str
) -> list[_ReservationPart]:
    """A reservation's segments, passengers or payments, in their stored order."""
    return list(
        session.scalars(
            select(table).where(table.reservation_id == reservation_id).order_by(table.position)
        )
    )


def seats(flight_date: FlightDate, cabin: str) -> int:
    return getattr(flight_date, f"seats_{cabin}") or 0


def price(flight_date: FlightDate, cabin: str) -> int:
    value = getattr(flight_date, f"price_{cabin}")
    if value is None:
        raise Conflict(
            f"Flight {flight_date.flight_number} has no {cabin} price on {flight_date.date}"
        )
    return value


def check_cabin(cabin: str) -> None:
    if cabin not in CABINS:
        raise InvalidArguments(f"cabin must be one of {', '.join(CABINS)}, not {cabin!r}")


def schedule(session: Session, flights: Sequence[FlightRef]) -> list[SegmentFacts]:
    """Route, departure time and status of each flight on its date (None where the
    schedule does not know it): what the guard judges a reservation's segments and a
    change's new flights by."""
    reads = in_transaction(session)
    lock = _share_locks(session)
    numbers = [resolve(reads, FLIGHT_NUMBER, ref.flight_number) for ref in flights]
    if _row_locks(session):
        _lock_flight_dates(session, numbers, flights)
    facts = []
    for ref, number in zip(flights, numbers, strict=True):
        flight = None if number is None else session.get(Flight, number, with_for_update=lock)
        if flight is None:
            facts.append(SegmentFacts(ref.flight_number, ref.date, None, None, None, None))
            continue
        day = session.get(FlightDate, (flight.flight_number, ref.date))
        facts.append(
            SegmentFacts(
                flight.flight_number,
                ref.date,
                flight.origin,
                flight.destination,
                flight.scheduled_departure_time_est,
                None if day is None else day.status,
            )
        )
    return facts


def _lock_flight_dates(
    session: Session, numbers: Sequence[str | None], flights: Sequence[FlightRef]
) -> None:
    """Lock the flights' dates `FOR UPDATE` before the decision reads them, in one order
    (flight number, date) for every writer: a booking or a change decided on them then
    updates them without upgrading a shared lock (two writers holding FOR SHARE on one
    row and both asking for FOR UPDATE is a deadlock), and writers of the same flights
    queue instead of deadlocking."""
    keys = sorted({(n, ref.date) for n, ref in zip(numbers, flights, strict=True) if n})
    if keys:
        query = (
            select(FlightDate)
            .where(tuple_(FlightDate.flight_number, FlightDate.date).in_(keys))
            .order_by(FlightDate.flight_number, FlightDate.date)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
        list(session.scalars(query))
