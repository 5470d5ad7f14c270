"""The rows one write reads and changes, inside its transaction, each read once.

`Database.write()` takes the write lock before the first statement (SQLite: `BEGIN
IMMEDIATE`), so everything read here is current until the commit and a change computed
from it (seats left, a gift card's balance, the next id) cannot be lost to a concurrent
writer. On databases with row locks the rows are also read `FOR UPDATE` (what the write
changes or may change: the reservation, the customer and their payment methods, a
flight's date, whose seats a booking takes) or `FOR SHARE` (what a decision only reads: a
flight's route and times), so no other transaction changes them before this one commits.
(SQLite's dialect writes no locking clause: its lock is the whole database.)

One `WriteRows` per write transaction (the toolbox makes one for each attempt): the tool
guard reads what it decides by through it (tools/guard.py), and the operation it lets
through finds the same rows here instead of reading them again, so the decision and the
write act on one state, read once. The reservation row comes first and locked, so its
segments, passengers and payments (which every writer changes only after locking it)
stay as read. An operation that adds or removes rows of a kind kept here does it through
this class (`add_payment`, `add_payment_method`, `remove_payment_method`, `set_segments`),
so that the result it answers with, built from these rows, is what it wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from sqlalchemy import and_, bindparam, or_
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from airline_agent.domain.cabins import CABINS
from airline_agent.domain.errors import Conflict, InvalidArguments, NotFound
from airline_agent.domain.operations.ids import (
    FLIGHT_NUMBER,
    RESERVATION_ID,
    USER_ID,
    IdColumn,
    resolve_tolerantly,
)
from airline_agent.domain.operations.values import FlightRef
from airline_agent.domain.policy import SegmentFacts
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
from airline_agent.domain.tau2_shape import Tau2Reservation, reservation_record

_Keyed = TypeVar("_Keyed", Reservation, User, Flight)
_Part = TypeVar("_Part", ReservationFlight, ReservationPassenger, Payment)

# Each query written once, its values bound when it runs. What a write may change is
# locked (`FOR UPDATE`); a flight's route and times, which only decide, are shared.
_RESERVATION = (
    select(Reservation).where(Reservation.reservation_id == bindparam("key")).with_for_update()
)
_USER = select(User).where(User.user_id == bindparam("key")).with_for_update()
_FLIGHT = select(Flight).where(Flight.flight_number == bindparam("key")).with_for_update(read=True)
_FLIGHTS = (
    select(Flight)
    .where(col(Flight.flight_number).in_(bindparam("keys", expanding=True)))
    .with_for_update(read=True)
)
_SEGMENTS = (
    select(ReservationFlight)
    .where(ReservationFlight.reservation_id == bindparam("key"))
    .order_by(col(ReservationFlight.position))
)
_PASSENGERS = (
    select(ReservationPassenger)
    .where(ReservationPassenger.reservation_id == bindparam("key"))
    .order_by(col(ReservationPassenger.position))
)
_PAYMENTS = (
    select(Payment)
    .where(Payment.reservation_id == bindparam("key"))
    .order_by(col(Payment.position))
)
_PAYMENT_METHODS = (
    select(PaymentMethod)
    .where(PaymentMethod.user_id == bindparam("key"))
    .order_by(col(PaymentMethod.position))
    .with_for_update()
)


class WriteRows:
    """What one write transaction has read, by key (see the module docstring)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._reservations: dict[str, Reservation | None] = {}
        self._segments: dict[str, list[ReservationFlight]] = {}
        self._passengers: dict[str, list[ReservationPassenger]] = {}
        self._payments: dict[str, list[Payment]] = {}
        self._users: dict[str, User | None] = {}
        self._methods: dict[str, dict[str, PaymentMethod]] = {}
        self._flights: dict[str, Flight | None] = {}
        self._days: dict[tuple[str, str], FlightDate | None] = {}

    # ---------------------------------------------------------------- by id

    def reservation(self, reservation_id: str) -> Reservation | None:
        """The reservation, found as `ids.resolve` finds ids, locked; None when unknown."""
        return self._by_id(_RESERVATION, RESERVATION_ID, reservation_id, self._reservations)

    def user(self, user_id: str) -> User | None:
        """The customer, found as `ids.resolve` finds ids, locked; None when unknown."""
        return self._by_id(_USER, USER_ID, user_id, self._users)

    def flight(self, flight_number: str) -> Flight | None:
        """The scheduled flight (its route and times, which no write changes)."""
        return self._by_id(_FLIGHT, FLIGHT_NUMBER, flight_number, self._flights)

    def _by_id(
        self,
        query: SelectOfScalar[_Keyed],
        column: IdColumn,
        key: str,
        known: dict[str, _Keyed | None],
    ) -> _Keyed | None:
        """The row whose id (`column`) is `key` exactly (one query, the common case), else
        stripped or case-folded (`ids.resolve_tolerantly`), read once under either
        spelling."""
        if key in known:
            return known[key]
        found = self.session.exec(query, params={"key": key}).first()
        if found is None:
            stored = resolve_tolerantly(self.session, column, key)
            if stored is not None:
                if stored not in known:
                    known[stored] = self.session.exec(query, params={"key": stored}).first()
                found = known[stored]
        known[key] = found
        return found

    # ---------------------------------------------------------------- a reservation's parts

    def segments(self, reservation: Reservation) -> list[ReservationFlight]:
        """Its flights, in order, with the price paid per passenger."""
        return self._parts(_SEGMENTS, reservation.reservation_id, self._segments)

    def passengers(self, reservation: Reservation) -> list[ReservationPassenger]:
        return self._parts(_PASSENGERS, reservation.reservation_id, self._passengers)

    def payments(self, reservation: Reservation) -> list[Payment]:
        """Its payment history, in order; refunds are negative lines."""
        return self._parts(_PAYMENTS, reservation.reservation_id, self._payments)

    def _parts(
        self, query: SelectOfScalar[_Part], reservation_id: str, known: dict[str, list[_Part]]
    ) -> list[_Part]:
        if reservation_id not in known:
            known[reservation_id] = list(self.session.exec(query, params={"key": reservation_id}))
        return known[reservation_id]

    def add_payment(self, reservation: Reservation, payment_id: str, amount: float) -> None:
        """A new last line of the reservation's payment history (negative: a refund)."""
        lines = self.payments(reservation)
        line = Payment(
            reservation_id=reservation.reservation_id,
            position=max((line.position for line in lines), default=-1) + 1,
            payment_id=payment_id,
            amount=float(amount),
        )
        self.session.add(line)
        lines.append(line)

    def set_segments(self, reservation: Reservation, segments: list[ReservationFlight]) -> None:
        """The reservation's segments after a change (the operation added and deleted the
        rows in the session)."""
        self._segments[reservation.reservation_id] = segments

    def result(self, reservation: Reservation) -> Tau2Reservation:
        """The reservation as a write tool answers (τ² shape, `status` always there), from
        the rows this transaction holds: what it wrote, flushed, without reading it back."""
        return reservation_record(
            reservation,
            self.segments(reservation),
            self.passengers(reservation),
            self.payments(reservation),
            as_tool_result=True,
        )

    # ---------------------------------------------------------------- a customer's payment methods

    def payment_methods(self, user_id: str) -> dict[str, PaymentMethod]:
        """The customer's payment methods by id, in profile order, locked."""
        if user_id not in self._methods:
            methods = self.session.exec(_PAYMENT_METHODS, params={"key": user_id})
            self._methods[user_id] = {method.payment_id: method for method in methods}
        return self._methods[user_id]

    def add_payment_method(self, method: PaymentMethod) -> None:
        self.payment_methods(method.user_id)[method.payment_id] = method
        self.session.add(method)

    def remove_payment_method(self, method: PaymentMethod) -> None:
        self.payment_methods(method.user_id).pop(method.payment_id, None)
        self.session.delete(method)

    # ---------------------------------------------------------------- flights on dates

    def flight_date(self, flight: Flight, date: str) -> FlightDate | None:
        """The flight on `date` (seats, prices, status), locked; None when not scheduled."""
        key = (flight.flight_number, date)
        if key not in self._days:
            self._read_days([key])
        return self._days[key]

    def schedule(self, flights: Sequence[FlightRef]) -> list[SegmentFacts]:
        """Route, departure time and status of each flight on its date (None where the
        schedule does not know it): what the guard judges a reservation's segments and a
        change's new flights by. The flights are read in one query, their dates in
        another, locked in one order (flight number, date) for every writer: a booking or
        a change decided on them then updates them without upgrading a shared lock (two
        writers holding FOR SHARE on one row and both asking for FOR UPDATE is a
        deadlock), and writers of the same flights queue instead of deadlocking."""
        unread = sorted({ref.flight_number for ref in flights} - self._flights.keys())
        if unread:
            for row in self.session.exec(_FLIGHTS, params={"keys": unread}):
                self._flights[row.flight_number] = row
        found = [self.flight(ref.flight_number) for ref in flights]
        self._read_days(
            [(f.flight_number, ref.date) for ref, f in zip(flights, found, strict=True) if f]
        )
        facts = []
        for ref, flight in zip(flights, found, strict=True):
            if flight is None:
                facts.append(SegmentFacts(ref.flight_number, ref.date, None, None, None, None))
                continue
            day = self._days[(flight.flight_number, ref.date)]
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

    def _read_days(self, keys: Sequence[tuple[str, str]]) -> None:
        unread = sorted(set(keys) - self._days.keys())
        if not unread:
            return
        query = (
            select(FlightDate)
            .where(
                or_(
                    *(
                        and_(col(FlightDate.flight_number) == number, col(FlightDate.date) == date)
                        for number, date in unread
                    )
                )
            )
            .order_by(col(FlightDate.flight_number), col(FlightDate.date))
            .with_for_update()
        )
        found = {(d.flight_number, d.date): d for d in self.session.exec(query)}
        for key in unread:
            self._days[key] = found.get(key)


# ---------------------------------------------------------------- what the writes require


def reservation_row(rows: WriteRows, reservation_id: str) -> Reservation:
    reservation = rows.reservation(reservation_id)
    if reservation is None:
        raise NotFound(f"Reservation {reservation_id!r} not found")
    return reservation


def user_row(rows: WriteRows, user_id: str) -> User:
    user = rows.user(user_id)
    if user is None:
        raise NotFound(f"User {user_id!r} not found")
    return user


def flight_row(rows: WriteRows, flight_number: str) -> Flight:
    flight = rows.flight(flight_number)
    if flight is None:
        raise NotFound(f"Flight {flight_number!r} not found")
    return flight


def flight_date_row(rows: WriteRows, flight: Flight, date: str) -> FlightDate:
    day = rows.flight_date(flight, date)
    if day is None:
        raise NotFound(f"Flight {flight.flight_number} not found on date {date}")
    return day


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
