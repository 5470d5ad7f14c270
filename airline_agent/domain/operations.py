"""What the airline can do with its data: the reads and the writes behind the 14 tools.

The semantics are those of the τ²-bench airline tools (same checks, same arithmetic,
same state changes, including their known quirks: cancelling refunds every payment line
but releases no seat and credits no gift card; changing flights moves no seat; the second
leg of a one-stop search on an overnight first leg is looked up on
`<year-month>-<day + 1>` without zero padding). Where the reference would leave a
negative seat count or balance (the same gift card or flight listed twice), we check
the totals instead.

Reads use SQLAlchemy Core on one pooled connection (no ORM objects: they are the hot
path of every conversation). Each write is one `database.write()` transaction on ORM
rows, so a failure rolls everything back and the change recorder sees every row.
Failures raise the precise errors of `errors.py`; the tool layer turns them into results.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, select
from sqlmodel import Session

from airline_agent.domain import policy
from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.domain.errors import Conflict, InvalidArguments, NotFound
from airline_agent.domain.schema import (
    Airport,
    Flight,
    FlightDate,
    Payment,
    PaymentMethod,
    Reservation,
    ReservationFlight,
    ReservationPassenger,
    SavedPassenger,
    User,
)

FIRST_RESERVATION_ID = "HATHAT"
FIRST_CERTIFICATE_NUMBER = 3221322

_user = User.__table__.c
_method = PaymentMethod.__table__.c
_saved = SavedPassenger.__table__.c
_reservation = Reservation.__table__.c
_segment = ReservationFlight.__table__.c
_passenger = ReservationPassenger.__table__.c
_payment = Payment.__table__.c
_flight = Flight.__table__.c
_flight_date = FlightDate.__table__.c
_airport = Airport.__table__.c


# ---------------------------------------------------------------- plain values in


@dataclass(frozen=True)
class FlightRef:
    flight_number: str
    date: str


@dataclass(frozen=True)
class PassengerDetails:
    first_name: str
    last_name: str
    dob: str


@dataclass(frozen=True)
class PaymentLine:
    payment_id: str
    amount: float


# ---------------------------------------------------------------- helpers


def fold(key: str) -> str:
    """Ids tolerate case, accents and surrounding spaces (as the reference lookups do)."""
    decomposed = unicodedata.normalize("NFKD", key.strip())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def money(amount: float | int | None) -> float | int | None:
    """Whole amounts as ints (as the τ² data writes payments), others as floats."""
    if amount is None:
        return None
    if isinstance(amount, float) and amount.is_integer():
        return int(amount)
    return amount


def _resolve(conn: Connection, column: Any, key: str) -> str | None:
    """The stored key matching `key` exactly, then stripped, then folded."""
    if not isinstance(key, str):
        return None
    found = conn.execute(select(column).where(column == key)).scalar()
    if found is not None:
        return found
    stripped = key.strip()
    if stripped != key and stripped:
        found = conn.execute(select(column).where(column == stripped)).scalar()
        if found is not None:
            return found
    folded = fold(key)
    if not folded:
        return None
    # Stored keys are ASCII, so SQL lower() equals casefold for them; a miss scans.
    return conn.execute(select(column).where(func.lower(column) == folded)).scalar()


def _require(conn: Connection, column: Any, key: str, what: str) -> str:
    found = _resolve(conn, column, key)
    if found is None:
        raise NotFound(f"{what} {key!r} not found")
    return found


def _connect(database: Database) -> Connection:
    return database.engine.connect()


# ---------------------------------------------------------------- reads


def _payment_method_dict(row: Any) -> dict[str, Any]:
    method: dict[str, Any] = {"source": row.source, "id": row.payment_id}
    if row.source == "credit_card":
        method["brand"] = row.brand
        method["last_four"] = row.last_four
    else:
        method["amount"] = row.amount
    return method


def get_user(database: Database, user_id: str) -> dict[str, Any]:
    """The customer's profile in τ² shape, with payment methods, passengers, reservations."""
    with _connect(database) as conn:
        # The exact id is the common case: one query; tolerant resolution only on a miss.
        user = conn.execute(select(_user).where(_user.user_id == user_id)).first()
        if user is None:
            key = _require(conn, _user.user_id, user_id, "User")
            user = conn.execute(select(_user).where(_user.user_id == key)).one()
        key = user.user_id
        methods = conn.execute(
            select(_method).where(_method.user_id == key).order_by(_method.position)
        ).all()
        saved = conn.execute(
            select(_saved.first_name, _saved.last_name, _saved.dob)
            .where(_saved.user_id == key)
            .order_by(_saved.position)
        ).all()
        reservations = conn.execute(
            select(_reservation.reservation_id)
            .where(_reservation.user_id == key)
            .order_by(_reservation.seq)
        ).scalars()
        return {
            "user_id": user.user_id,
            "name": {"first_name": user.first_name, "last_name": user.last_name},
            "address": {
                "address1": user.address1,
                "address2": user.address2,
                "city": user.city,
                "country": user.country,
                "state": user.state,
                "zip": user.zip,
            },
            "email": user.email,
            "dob": user.dob,
            "payment_methods": {m.payment_id: _payment_method_dict(m) for m in methods},
            "saved_passengers": [
                {"first_name": p.first_name, "last_name": p.last_name, "dob": p.dob} for p in saved
            ],
            "membership": user.membership,
            "reservations": list(reservations),
        }


def _reservation_dict(conn: Connection, key: str) -> dict[str, Any]:
    # The exact id is the common case: one query; tolerant resolution only on a miss.
    reservation = conn.execute(
        select(_reservation).where(_reservation.reservation_id == key)
    ).first()
    if reservation is None:
        key = _require(conn, _reservation.reservation_id, key, "Reservation")
        reservation = conn.execute(
            select(_reservation).where(_reservation.reservation_id == key)
        ).one()
    key = reservation.reservation_id
    segments = conn.execute(
        select(_segment.origin, _segment.destination, _segment.flight_number, _segment.date)
        .add_columns(_segment.price)
        .where(_segment.reservation_id == key)
        .order_by(_segment.position)
    ).all()
    passengers = conn.execute(
        select(_passenger.first_name, _passenger.last_name, _passenger.dob)
        .where(_passenger.reservation_id == key)
        .order_by(_passenger.position)
    ).all()
    payments = conn.execute(
        select(_payment.payment_id, _payment.amount)
        .where(_payment.reservation_id == key)
        .order_by(_payment.position)
    ).all()
    result: dict[str, Any] = {
        "reservation_id": reservation.reservation_id,
        "user_id": reservation.user_id,
        "origin": reservation.origin,
        "destination": reservation.destination,
        "flight_type": reservation.flight_type,
        "cabin": reservation.cabin,
        "flights": [
            {
                "origin": s.origin,
                "destination": s.destination,
                "flight_number": s.flight_number,
                "date": s.date,
                "price": s.price,
            }
            for s in segments
        ],
        "passengers": [
            {"first_name": p.first_name, "last_name": p.last_name, "dob": p.dob} for p in passengers
        ],
        "payment_history": [
            {"payment_id": p.payment_id, "amount": money(p.amount)} for p in payments
        ],
        "created_at": reservation.created_at,
        "total_baggages": reservation.total_baggages,
        "nonfree_baggages": reservation.nonfree_baggages,
        "insurance": reservation.insurance,
    }
    if reservation.status is not None:
        result["status"] = reservation.status
    return result


def get_reservation(database: Database, reservation_id: str) -> dict[str, Any]:
    """One reservation in τ² shape: segments with prices, passengers, payment history."""
    with _connect(database) as conn:
        return _reservation_dict(conn, reservation_id)


def list_airports(database: Database) -> list[dict[str, str]]:
    with _connect(database) as conn:
        rows = conn.execute(
            select(_airport.iata, _airport.city).order_by(_airport.position, _airport.iata)
        ).all()
    return [{"iata": iata, "city": city} for iata, city in rows]


_DIRECT_COLUMNS = (
    _flight.flight_number,
    _flight.origin,
    _flight.destination,
    _flight.scheduled_departure_time_est,
    _flight.scheduled_arrival_time_est,
    _flight_date.date,
    _flight_date.seats_basic_economy,
    _flight_date.seats_economy,
    _flight_date.seats_business,
    _flight_date.price_basic_economy,
    _flight_date.price_economy,
    _flight_date.price_business,
)


def _bookable(rows: Iterable[Any]) -> list[dict[str, Any]]:
    return [
        {
            "flight_number": r.flight_number,
            "origin": r.origin,
            "destination": r.destination,
            "status": "available",
            "scheduled_departure_time_est": r.scheduled_departure_time_est,
            "scheduled_arrival_time_est": r.scheduled_arrival_time_est,
            "date": r.date,
            "available_seats": {
                "basic_economy": r.seats_basic_economy,
                "economy": r.seats_economy,
                "business": r.seats_business,
            },
            "prices": {
                "basic_economy": r.price_basic_economy,
                "economy": r.price_economy,
                "business": r.price_business,
            },
        }
        for r in rows
    ]


def _available_on(*dates: str) -> Any:
    return (
        select(*_DIRECT_COLUMNS)
        .join(FlightDate.__table__, _flight_date.flight_number == _flight.flight_number)
        .where(_flight_date.date.in_(dates) if len(dates) > 1 else _flight_date.date == dates[0])
        .where(_flight_date.status == "available")
    )


def search_direct(
    database: Database, origin: str, destination: str, date: str
) -> list[dict[str, Any]]:
    """Flights from `origin` to `destination` bookable (status `available`) on `date`."""
    with _connect(database) as conn:
        rows = conn.execute(
            _available_on(date)
            .where(_flight.origin == origin, _flight.destination == destination)
            .order_by(_flight.flight_number)
        ).all()
    return _bookable(rows)


def second_leg_date(date: str, first_arrival: str) -> str:
    """The reference rule: an overnight first leg (`+1`) connects on the next day of the
    month, written without zero padding (so it matches nothing before the 9th)."""
    if "+1" not in first_arrival:
        return date
    try:
        return f"{date[:-2]}{int(date[-2:]) + 1}"
    except ValueError:
        return date


def search_onestop(
    database: Database, origin: str, destination: str, date: str
) -> list[list[dict[str, Any]]]:
    """Pairs of bookable flights origin → X → destination; the second leg leaves at or
    after the first one's scheduled arrival (compared as text, as the reference does)."""
    with _connect(database) as conn:
        first_legs = _bookable(
            conn.execute(
                _available_on(date).where(_flight.origin == origin).order_by(_flight.flight_number)
            ).all()
        )
        if not first_legs:
            return []
        stops = sorted({leg["destination"] for leg in first_legs})
        dates = sorted(
            {second_leg_date(date, leg["scheduled_arrival_time_est"]) for leg in first_legs}
        )
        second_legs = _bookable(
            conn.execute(
                _available_on(*dates)
                .where(_flight.destination == destination, _flight.origin.in_(stops))
                .order_by(_flight.flight_number)
            ).all()
        )
    pairs = []
    for first in first_legs:
        leg_date = second_leg_date(date, first["scheduled_arrival_time_est"])
        for second in second_legs:
            if (
                second["origin"] == first["destination"]
                and second["date"] == leg_date
                and second["scheduled_departure_time_est"] >= first["scheduled_arrival_time_est"]
            ):
                pairs.append([first, second])
    return pairs


def flight_status(database: Database, flight_number: str, date: str) -> str:
    with _connect(database) as conn:
        status = conn.execute(
            select(_flight_date.status).where(
                _flight_date.flight_number == flight_number, _flight_date.date == date
            )
        ).scalar()
        if status is not None:
            return status
        number = _require(conn, _flight.flight_number, flight_number, "Flight")
        status = conn.execute(
            select(_flight_date.status).where(
                _flight_date.flight_number == number, _flight_date.date == date
            )
        ).scalar()
    if status is None:
        raise NotFound(f"Flight {number} not found on date {date}")
    return status


def calculate(expression: str) -> str:
    """Arithmetic with + - * / and parentheses, rounded to 2 places, as text."""
    return policy.evaluate_arithmetic(expression)


# ---------------------------------------------------------------- write helpers


def _user_row(session: Session, user_id: str) -> User:
    key = _require(session.connection(), _user.user_id, user_id, "User")
    return session.get(User, key)  # type: ignore[return-value]


def _reservation_row(session: Session, reservation_id: str) -> Reservation:
    key = _require(session.connection(), _reservation.reservation_id, reservation_id, "Reservation")
    return session.scalars(select(Reservation).where(Reservation.reservation_id == key)).one()


def _flight_row(session: Session, flight_number: str) -> Flight:
    key = _require(session.connection(), _flight.flight_number, flight_number, "Flight")
    return session.get(Flight, key)  # type: ignore[return-value]


def _flight_date_row(session: Session, flight: Flight, date: str) -> FlightDate:
    row = session.get(FlightDate, (flight.flight_number, date))
    if row is None:
        raise NotFound(f"Flight {flight.flight_number} not found on date {date}")
    return row


def _methods(session: Session, user_id: str) -> dict[str, PaymentMethod]:
    rows = session.scalars(
        select(PaymentMethod)
        .where(PaymentMethod.user_id == user_id)
        .order_by(PaymentMethod.position)
    )
    return {m.payment_id: m for m in rows}


def _segments(session: Session, reservation_id: str) -> list[ReservationFlight]:
    return list(
        session.scalars(
            select(ReservationFlight)
            .where(ReservationFlight.reservation_id == reservation_id)
            .order_by(ReservationFlight.position)
        )
    )


def _passenger_rows(session: Session, reservation_id: str) -> list[ReservationPassenger]:
    return list(
        session.scalars(
            select(ReservationPassenger)
            .where(ReservationPassenger.reservation_id == reservation_id)
            .order_by(ReservationPassenger.position)
        )
    )


def _payment_rows(session: Session, reservation_id: str) -> list[Payment]:
    return list(
        session.scalars(
            select(Payment)
            .where(Payment.reservation_id == reservation_id)
            .order_by(Payment.position)
        )
    )


def _seats(flight_date: FlightDate, cabin: str) -> int:
    return getattr(flight_date, f"seats_{cabin}") or 0


def _price(flight_date: FlightDate, cabin: str) -> int:
    price = getattr(flight_date, f"price_{cabin}")
    if price is None:
        raise Conflict(
            f"Flight {flight_date.flight_number} has no {cabin} price on {flight_date.date}"
        )
    return price


def _check_cabin(cabin: str) -> None:
    if cabin not in policy.CABINS:
        raise InvalidArguments(f"cabin must be one of {', '.join(policy.CABINS)}, not {cabin!r}")


def next_reservation_id(
    taken: Iterable[str] | None = None, *, session: Session | None = None
) -> str:
    """HATHAT, HATHAU, HATHAV, … (base-26 letters): the first one not yet used."""
    candidate = FIRST_RESERVATION_ID
    used = set(taken or ())
    while True:
        exists = candidate in used
        if not exists and session is not None:
            exists = (
                session.connection()
                .execute(select(_reservation.seq).where(_reservation.reservation_id == candidate))
                .first()
                is not None
            )
        if not exists:
            return candidate
        candidate = _next_code(candidate)


def _next_code(code: str) -> str:
    letters = list(code)
    for i in reversed(range(len(letters))):
        if letters[i] != "Z":
            letters[i] = chr(ord(letters[i]) + 1)
            return "".join(letters)
        letters[i] = "A"
    return "A" + "".join(letters)


def next_certificate_id(existing: Iterable[str]) -> str:
    """certificate_3221322, certificate_3221323, …: the first the customer does not hold."""
    held = set(existing)
    number = FIRST_CERTIFICATE_NUMBER
    while f"certificate_{number}" in held:
        number += 1
    return f"certificate_{number}"


def _charge_for_update(method: PaymentMethod | None, payment_id: str, amount: float) -> None:
    """The reference's payment rule for changes: the method must be in the profile, not
    a certificate, and a gift card must cover the amount (a refund credits it)."""
    if method is None:
        raise NotFound(f"Payment method {payment_id} not found in the customer's profile")
    if method.source == "certificate":
        raise Conflict("A certificate cannot be used to pay for a change to a reservation")
    if method.source == "gift_card":
        balance = method.amount or 0.0
        if balance < amount:
            raise Conflict(
                f"Gift card {payment_id} balance is not enough: "
                f"{money(balance)} for {money(amount)}"
            )
        method.amount = balance - amount


def _append_payment(session: Session, reservation_id: str, payment_id: str, amount: float) -> None:
    last = session.scalar(
        select(func.max(Payment.position)).where(Payment.reservation_id == reservation_id)
    )
    position = -1 if last is None else last
    session.add(
        Payment(
            reservation_id=reservation_id,
            position=position + 1,
            payment_id=payment_id,
            amount=float(amount),
        )
    )


# ---------------------------------------------------------------- writes


def book_reservation(
    database: Database,
    clock: Clock,
    *,
    user_id: str,
    origin: str,
    destination: str,
    flight_type: str,
    cabin: str,
    flights: Sequence[FlightRef],
    passengers: Sequence[PassengerDetails],
    payment_methods: Sequence[PaymentLine],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: str,
) -> dict[str, Any]:
    """Book: take seats on every segment, debit gift cards, use up certificates."""
    _check_cabin(cabin)
    with database.write() as session:
        user = _user_row(session, user_id)
        count = len(passengers)
        reservation_id = next_reservation_id(session=session)
        segments: list[tuple[Flight, FlightDate]] = []
        seats_needed: Counter[tuple[str, str]] = Counter()
        total_price = 0
        for ref in flights:
            flight = _flight_row(session, ref.flight_number)
            flight_date = _flight_date_row(session, flight, ref.date)
            if flight_date.status != "available":
                raise Conflict(f"Flight {flight.flight_number} not available on date {ref.date}")
            seats_needed[(flight.flight_number, ref.date)] += count
            if _seats(flight_date, cabin) < seats_needed[(flight.flight_number, ref.date)]:
                raise Conflict(f"Not enough seats on flight {flight.flight_number}")
            total_price += _price(flight_date, cabin) * count
            segments.append((flight, flight_date))
        total_price += policy.insurance_price(insurance, count)
        total_price += policy.bag_price(nonfree_baggages)

        methods = _methods(session, user.user_id)
        asked: Counter[str] = Counter()
        for line in payment_methods:
            method = methods.get(line.payment_id)
            if method is None:
                raise NotFound(
                    f"Payment method {line.payment_id} not found in the customer's profile"
                )
            asked[line.payment_id] += line.amount
            if (
                method.source in ("gift_card", "certificate")
                and (method.amount or 0) < asked[line.payment_id]
            ):
                raise Conflict(f"Not enough balance in payment method {line.payment_id}")
        paid = sum(line.amount for line in payment_methods)
        if abs(paid - total_price) > 1e-6:
            raise Conflict(
                f"Payment amount does not add up, total price is {money(total_price)}, "
                f"but paid {money(paid)}"
            )

        for payment_id, amount in asked.items():
            method = methods[payment_id]
            if method.source == "gift_card":
                method.amount = (method.amount or 0) - amount
            elif method.source == "certificate":
                session.delete(method)  # B4: a certificate's remainder is lost
        for _, flight_date in segments:
            column = f"seats_{cabin}"
            setattr(flight_date, column, _seats(flight_date, cabin) - count)

        session.add(
            Reservation(
                reservation_id=reservation_id,
                user_id=user.user_id,
                origin=origin,
                destination=destination,
                flight_type=flight_type,
                cabin=cabin,
                created_at=clock.iso(),
                total_baggages=total_baggages,
                nonfree_baggages=nonfree_baggages,
                insurance=insurance,
                status=None,
            )
        )
        session.flush()
        for position, (flight, flight_date) in enumerate(segments):
            session.add(
                ReservationFlight(
                    reservation_id=reservation_id,
                    position=position,
                    flight_number=flight.flight_number,
                    date=flight_date.date,
                    origin=flight.origin,
                    destination=flight.destination,
                    price=_price(flight_date, cabin),
                )
            )
        for position, passenger in enumerate(passengers):
            session.add(
                ReservationPassenger(
                    reservation_id=reservation_id,
                    position=position,
                    first_name=passenger.first_name,
                    last_name=passenger.last_name,
                    dob=passenger.dob,
                )
            )
        for position, line in enumerate(payment_methods):
            session.add(
                Payment(
                    reservation_id=reservation_id,
                    position=position,
                    payment_id=line.payment_id,
                    amount=float(line.amount),
                )
            )
        session.flush()
        return _reservation_dict(session.connection(), reservation_id)


def cancel_reservation(database: Database, reservation_id: str) -> dict[str, Any]:
    """Cancel: a refund line (negative) for every payment line, status `cancelled`.
    As in the reference, seats are not released and gift cards are not credited."""
    with database.write() as session:
        reservation = _reservation_row(session, reservation_id)
        if reservation.status == "cancelled":
            raise Conflict(f"Reservation {reservation.reservation_id} is already cancelled")
        payments = _payment_rows(session, reservation.reservation_id)
        for position, payment in enumerate(payments, start=len(payments)):
            session.add(
                Payment(
                    reservation_id=reservation.reservation_id,
                    position=position,
                    payment_id=payment.payment_id,
                    amount=-payment.amount,
                )
            )
        reservation.status = "cancelled"
        session.flush()
        return _reservation_dict(session.connection(), reservation.reservation_id)


def update_baggages(
    database: Database,
    *,
    reservation_id: str,
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> dict[str, Any]:
    """Set the bag counts; $50 for each non-free bag beyond those already paid for."""
    with database.write() as session:
        reservation = _reservation_row(session, reservation_id)
        _user_row(session, reservation.user_id)
        price = policy.bag_price(max(0, nonfree_baggages - reservation.nonfree_baggages))
        methods = _methods(session, reservation.user_id)
        _charge_for_update(methods.get(payment_id), payment_id, price)
        if price != 0:
            _append_payment(session, reservation.reservation_id, payment_id, price)
        reservation.total_baggages = total_baggages
        reservation.nonfree_baggages = nonfree_baggages
        session.flush()
        return _reservation_dict(session.connection(), reservation.reservation_id)


def update_flights(
    database: Database,
    *,
    reservation_id: str,
    cabin: str,
    flights: Sequence[FlightRef],
    payment_id: str,
) -> dict[str, Any]:
    """Replace the segments (and cabin). Kept segments in the same cabin keep their price
    (M3); new ones cost today's price; the difference is charged or refunded through one
    payment method. As in the reference, no seat moves."""
    _check_cabin(cabin)
    with database.write() as session:
        reservation = _reservation_row(session, reservation_id)
        _user_row(session, reservation.user_id)
        count = len(_passenger_rows(session, reservation.reservation_id))
        old_segments = _segments(session, reservation.reservation_id)
        new_segments: list[dict[str, Any]] = []
        total_price = 0
        for ref in flights:
            flight = _flight_row(session, ref.flight_number)
            kept = next(
                (
                    s
                    for s in old_segments
                    if s.flight_number == flight.flight_number
                    and s.date == ref.date
                    and cabin == reservation.cabin
                ),
                None,
            )
            if kept is not None:
                price = kept.price
            else:
                flight_date = _flight_date_row(session, flight, ref.date)
                if flight_date.status != "available":
                    raise Conflict(
                        f"Flight {flight.flight_number} not available on date {ref.date}"
                    )
                if _seats(flight_date, cabin) < count:
                    raise Conflict(f"Not enough seats on flight {flight.flight_number}")
                price = _price(flight_date, cabin)
            total_price += price * count
            new_segments.append(
                {
                    "flight_number": flight.flight_number,
                    "date": ref.date,
                    "origin": flight.origin,
                    "destination": flight.destination,
                    "price": price,
                }
            )
        total_price -= sum(s.price for s in old_segments) * count
        methods = _methods(session, reservation.user_id)
        _charge_for_update(methods.get(payment_id), payment_id, total_price)
        if total_price != 0:
            _append_payment(session, reservation.reservation_id, payment_id, total_price)

        # Rewrite only the positions whose content changed, so the change list is exact.
        for position, segment in enumerate(new_segments):
            if position < len(old_segments):
                row = old_segments[position]
                for field, value in segment.items():
                    if getattr(row, field) != value:
                        setattr(row, field, value)
            else:
                session.add(
                    ReservationFlight(
                        reservation_id=reservation.reservation_id, position=position, **segment
                    )
                )
        for row in old_segments[len(new_segments) :]:
            session.delete(row)
        if reservation.cabin != cabin:
            reservation.cabin = cabin
        session.flush()
        return _reservation_dict(session.connection(), reservation.reservation_id)


def update_passengers(
    database: Database, *, reservation_id: str, passengers: Sequence[PassengerDetails]
) -> dict[str, Any]:
    """Replace passenger details; the number of passengers cannot change (M6)."""
    with database.write() as session:
        reservation = _reservation_row(session, reservation_id)
        rows = _passenger_rows(session, reservation.reservation_id)
        if len(passengers) != len(rows):
            raise Conflict(
                f"Number of passengers does not match: the reservation has {len(rows)}, "
                f"{len(passengers)} given"
            )
        for row, passenger in zip(rows, passengers, strict=True):
            for field in ("first_name", "last_name", "dob"):
                value = getattr(passenger, field)
                if getattr(row, field) != value:
                    setattr(row, field, value)
        session.flush()
        return _reservation_dict(session.connection(), reservation.reservation_id)


def send_certificate(database: Database, *, user_id: str, amount: int | float) -> str:
    """Add a travel certificate of `amount` to the customer's payment methods."""
    with database.write() as session:
        user = _user_row(session, user_id)
        methods = _methods(session, user.user_id)
        certificate_id = next_certificate_id(methods)
        last = max((m.position for m in methods.values()), default=-1)
        session.add(
            PaymentMethod(
                user_id=user.user_id,
                payment_id=certificate_id,
                position=last + 1,
                source="certificate",
                amount=float(amount),
            )
        )
        session.flush()
    return f"Certificate {certificate_id} added to user {user.user_id} with amount {money(amount)}."


@dataclass(frozen=True)
class SegmentFacts:
    """What the schedule says about one flight on one date (None when unknown)."""

    flight_number: str
    date: str
    origin: str | None
    destination: str | None
    departure_time: str | None
    status: str | None


def segment_facts(database: Database, flights: Sequence[FlightRef]) -> list[SegmentFacts]:
    """Route, departure time and status of each flight on its date, for the guard."""
    facts = []
    with _connect(database) as conn:
        for ref in flights:
            number = _resolve(conn, _flight.flight_number, ref.flight_number)
            if number is None:
                facts.append(SegmentFacts(ref.flight_number, ref.date, None, None, None, None))
                continue
            flight = conn.execute(select(_flight).where(_flight.flight_number == number)).one()
            status = conn.execute(
                select(_flight_date.status).where(
                    _flight_date.flight_number == number, _flight_date.date == ref.date
                )
            ).scalar()
            facts.append(
                SegmentFacts(
                    number,
                    ref.date,
                    flight.origin,
                    flight.destination,
                    flight.scheduled_departure_time_est,
                    status,
                )
            )
    return facts


def reservation_owner(database: Database, reservation_id: str) -> str | None:
    with _connect(database) as conn:
        key = _resolve(conn, _reservation.reservation_id, reservation_id)
        if key is None:
            return None
        return conn.execute(
            select(_reservation.user_id).where(_reservation.reservation_id == key)
        ).scalar()


def resolve_user_id(database: Database, user_id: str) -> str | None:
    with _connect(database) as conn:
        return _resolve(conn, _user.user_id, user_id)
