"""What the airline can do with its data: the reads and the writes behind the 14 tools.

The semantics are those of the τ²-bench airline tools (same checks, same arithmetic,
same state changes, including their known quirks: cancelling refunds every payment line
but releases no seat and credits no gift card; changing flights moves no seat; the second
leg of a one-stop search on an overnight first leg is looked up on
`<year-month>-<day + 1>` without zero padding). Where the reference would leave a
negative seat count or balance (the same gift card or flight listed twice), we check
the totals instead.

Reads are plain SQL in one snapshot (`database.reads()`, see reads.py: bare sqlite3 for a
SQLite file, SQLAlchemy otherwise; no ORM objects: they are the hot path of every
conversation). Each write is one `database.write()` transaction on ORM
rows, so a failure rolls everything back and the change recorder sees every row.
Failures raise the precise errors of `errors.py`; the tool layer turns them into results.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import func, select
from sqlmodel import Session

from airline_agent.domain import policy
from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.domain.errors import Conflict, InvalidArguments, NotFound
from airline_agent.domain.reads import ConnectionReads, Reads
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

FIRST_RESERVATION_ID = "HATHAT"
FIRST_CERTIFICATE_NUMBER = 3221322

_reservation = Reservation.__table__.c


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


class _Key:
    """How to find a stored id: exactly, and case-insensitively (a scan, only on a miss)."""

    __slots__ = ("exact", "folded")

    def __init__(self, table: str, column: str) -> None:
        self.exact = f"SELECT {column} FROM {table} WHERE {column} = :key"
        self.folded = f"SELECT {column} FROM {table} WHERE lower({column}) = :key"


_USER_KEY = _Key('"user"', "user_id")
_RESERVATION_KEY = _Key("reservation", "reservation_id")
_FLIGHT_KEY = _Key("flight", "flight_number")


def _resolve(reads: Reads, where: _Key, key: str) -> str | None:
    """The stored key matching `key` exactly, then stripped, then folded."""
    if not isinstance(key, str):
        return None
    found = reads.value(where.exact, {"key": key})
    if found is not None:
        return found
    stripped = key.strip()
    if stripped != key and stripped:
        found = reads.value(where.exact, {"key": stripped})
        if found is not None:
            return found
    folded = fold(key)
    if not folded:
        return None
    # Stored keys are ASCII, so SQL lower() equals casefold for them; a miss scans.
    return reads.value(where.folded, {"key": folded})


def _require(reads: Reads, where: _Key, key: str, what: str) -> str:
    found = _resolve(reads, where, key)
    if found is None:
        raise NotFound(f"{what} {key!r} not found")
    return found


def _in_session(session: Session) -> Reads:
    """The plain-SQL reads on a write transaction's connection (it sees its own rows)."""
    return ConnectionReads(session.connection())


# ---------------------------------------------------------------- reads
#
# Plain SQL through `database.reads()` (see reads.py): the same text runs on bare sqlite3
# and on any SQLAlchemy connection. Every query is served by an index (see schema.py;
# tests/unit/test_reads.py checks the plans).

_USER = (
    "SELECT user_id, first_name, last_name, address1, address2, city, country, state, zip, "
    'email, dob, membership FROM "user" WHERE user_id = :key'
)
_USER_METHODS = (
    "SELECT payment_id, source, brand, last_four, amount FROM paymentmethod "
    "WHERE user_id = :key ORDER BY position"
)
_USER_PASSENGERS = (
    "SELECT first_name, last_name, dob FROM savedpassenger WHERE user_id = :key ORDER BY position"
)
_USER_RESERVATIONS = "SELECT reservation_id FROM reservation WHERE user_id = :key ORDER BY seq"


def get_user(database: Database, user_id: str) -> dict[str, Any]:
    """The customer's profile in τ² shape, with payment methods, passengers, reservations."""
    with database.reads() as reads:
        # The exact id is the common case: one query; tolerant resolution only on a miss.
        user = reads.row(_USER, {"key": user_id})
        if user is None:
            user = reads.row(_USER, {"key": _require(reads, _USER_KEY, user_id, "User")})
        key = {"key": user[0]}
        methods = reads.rows(_USER_METHODS, key)
        saved = reads.rows(_USER_PASSENGERS, key)
        reservations = reads.rows(_USER_RESERVATIONS, key)
    payment_methods: dict[str, Any] = {}
    for payment_id, source, brand, last_four, amount in methods:
        if source == "credit_card":
            method = {"source": source, "id": payment_id, "brand": brand, "last_four": last_four}
        else:
            method = {"source": source, "id": payment_id, "amount": amount}
        payment_methods[payment_id] = method
    return {
        "user_id": user[0],
        "name": {"first_name": user[1], "last_name": user[2]},
        "address": {
            "address1": user[3],
            "address2": user[4],
            "city": user[5],
            "country": user[6],
            "state": user[7],
            "zip": user[8],
        },
        "email": user[9],
        "dob": user[10],
        "payment_methods": payment_methods,
        "saved_passengers": [
            {"first_name": first, "last_name": last, "dob": dob} for first, last, dob in saved
        ],
        "membership": user[11],
        "reservations": [reservation_id for (reservation_id,) in reservations],
    }


_RESERVATION = (
    "SELECT reservation_id, user_id, origin, destination, flight_type, cabin, created_at, "
    "total_baggages, nonfree_baggages, insurance, status FROM reservation "
    "WHERE reservation_id = :key"
)
_RESERVATION_SEGMENTS = (
    "SELECT origin, destination, flight_number, date, price FROM reservationflight "
    "WHERE reservation_id = :key ORDER BY position"
)
_RESERVATION_PASSENGERS = (
    "SELECT first_name, last_name, dob FROM reservationpassenger "
    "WHERE reservation_id = :key ORDER BY position"
)
_RESERVATION_PAYMENTS = (
    "SELECT payment_id, amount FROM payment WHERE reservation_id = :key ORDER BY position"
)


def _reservation_dict(reads: Reads, reservation_id: str) -> dict[str, Any]:
    # The exact id is the common case: one query; tolerant resolution only on a miss.
    reservation = reads.row(_RESERVATION, {"key": reservation_id})
    if reservation is None:
        key = _require(reads, _RESERVATION_KEY, reservation_id, "Reservation")
        reservation = reads.row(_RESERVATION, {"key": key})
    key = {"key": reservation[0]}
    segments = reads.rows(_RESERVATION_SEGMENTS, key)
    passengers = reads.rows(_RESERVATION_PASSENGERS, key)
    payments = reads.rows(_RESERVATION_PAYMENTS, key)
    result: dict[str, Any] = {
        "reservation_id": reservation[0],
        "user_id": reservation[1],
        "origin": reservation[2],
        "destination": reservation[3],
        "flight_type": reservation[4],
        "cabin": reservation[5],
        "flights": [
            {
                "origin": origin,
                "destination": destination,
                "flight_number": number,
                "date": date,
                "price": price,
            }
            for origin, destination, number, date, price in segments
        ],
        "passengers": [
            {"first_name": first, "last_name": last, "dob": dob} for first, last, dob in passengers
        ],
        "payment_history": [
            {"payment_id": payment_id, "amount": money(amount)} for payment_id, amount in payments
        ],
        "created_at": reservation[6],
        "total_baggages": reservation[7],
        "nonfree_baggages": reservation[8],
        "insurance": reservation[9],
    }
    if reservation[10] is not None:
        result["status"] = reservation[10]
    return result


def get_reservation(database: Database, reservation_id: str) -> dict[str, Any]:
    """One reservation in τ² shape: segments with prices, passengers, payment history."""
    with database.reads() as reads:
        return _reservation_dict(reads, reservation_id)


_AIRPORTS = "SELECT iata, city FROM airport ORDER BY position, iata"


def list_airports(database: Database) -> list[dict[str, str]]:
    with database.reads(consistent=False) as reads:
        rows = reads.rows(_AIRPORTS)
    return [{"iata": iata, "city": city} for iata, city in rows]


# Bookable flights: the flight (by route, `ix_flight_route`) first, then its date by
# primary key. CROSS JOIN fixes that order in SQLite, whose planner would otherwise
# start from every flight of the date (`ix_flight_date_date_status`); other databases
# plan it freely (it is an inner join either way).
_BOOKABLE = (
    "SELECT f.flight_number, f.origin, f.destination, f.scheduled_departure_time_est, "
    "f.scheduled_arrival_time_est, d.date, d.seats_basic_economy, d.seats_economy, "
    "d.seats_business, d.price_basic_economy, d.price_economy, d.price_business "
    "FROM flight AS f CROSS JOIN flightdate AS d "
    "WHERE d.flight_number = f.flight_number AND d.status = 'available' "
)
_DIRECT = (
    _BOOKABLE + "AND f.origin = :origin AND f.destination = :destination AND d.date = :date "
    "ORDER BY f.flight_number"
)
_FROM_ORIGIN = _BOOKABLE + "AND f.origin = :origin AND d.date = :date ORDER BY f.flight_number"


def _bookable(rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    return [
        {
            "flight_number": r[0],
            "origin": r[1],
            "destination": r[2],
            "status": "available",
            "scheduled_departure_time_est": r[3],
            "scheduled_arrival_time_est": r[4],
            "date": r[5],
            "available_seats": {"basic_economy": r[6], "economy": r[7], "business": r[8]},
            "prices": {"basic_economy": r[9], "economy": r[10], "business": r[11]},
        }
        for r in rows
    ]


def search_direct(
    database: Database, origin: str, destination: str, date: str
) -> list[dict[str, Any]]:
    """Flights from `origin` to `destination` bookable (status `available`) on `date`."""
    with database.reads(consistent=False) as reads:
        rows = reads.rows(_DIRECT, {"origin": origin, "destination": destination, "date": date})
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


def _placeholders(prefix: str, values: Sequence[str], params: dict[str, str]) -> str:
    names = []
    for i, value in enumerate(values):
        params[f"{prefix}{i}"] = value
        names.append(f":{prefix}{i}")
    return ", ".join(names)


def search_onestop(
    database: Database, origin: str, destination: str, date: str
) -> list[list[dict[str, Any]]]:
    """Pairs of bookable flights origin → X → destination; the second leg leaves at or
    after the first one's scheduled arrival (compared as text, as the reference does)."""
    with database.reads() as reads:
        first_legs = _bookable(reads.rows(_FROM_ORIGIN, {"origin": origin, "date": date}))
        if not first_legs:
            return []
        stops = sorted({leg["destination"] for leg in first_legs})
        dates = sorted(
            {second_leg_date(date, leg["scheduled_arrival_time_est"]) for leg in first_legs}
        )
        params = {"destination": destination}
        second_legs = _bookable(
            reads.rows(
                _BOOKABLE + f"AND f.origin IN ({_placeholders('s', stops, params)}) "
                "AND f.destination = :destination "
                f"AND d.date IN ({_placeholders('d', dates, params)}) ORDER BY f.flight_number",
                params,
            )
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


_STATUS = "SELECT status FROM flightdate WHERE flight_number = :number AND date = :date"


def flight_status(database: Database, flight_number: str, date: str) -> str:
    with database.reads(consistent=False) as reads:
        status = reads.value(_STATUS, {"number": flight_number, "date": date})
        if status is not None:
            return status
        number = _require(reads, _FLIGHT_KEY, flight_number, "Flight")
        status = reads.value(_STATUS, {"number": number, "date": date})
    if status is None:
        raise NotFound(f"Flight {number} not found on date {date}")
    return status


def calculate(expression: str) -> str:
    """Arithmetic with + - * / and parentheses, rounded to 2 places, as text."""
    return policy.evaluate_arithmetic(expression)


# ---------------------------------------------------------------- write helpers


def _user_row(session: Session, user_id: str) -> User:
    key = _require(_in_session(session), _USER_KEY, user_id, "User")
    return session.get(User, key)  # type: ignore[return-value]


def _reservation_row(session: Session, reservation_id: str) -> Reservation:
    key = _require(_in_session(session), _RESERVATION_KEY, reservation_id, "Reservation")
    return session.scalars(select(Reservation).where(Reservation.reservation_id == key)).one()


def _flight_row(session: Session, flight_number: str) -> Flight:
    key = _require(_in_session(session), _FLIGHT_KEY, flight_number, "Flight")
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


_ReservationRow = TypeVar("_ReservationRow", ReservationFlight, ReservationPassenger, Payment)


def _reservation_rows(
    session: Session, table: type[_ReservationRow], reservation_id: str
) -> list[_ReservationRow]:
    """A reservation's segments, passengers or payments, in their stored order."""
    return list(
        session.scalars(
            select(table).where(table.reservation_id == reservation_id).order_by(table.position)
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
        return _reservation_dict(_in_session(session), reservation_id)


def cancel_reservation(database: Database, reservation_id: str) -> dict[str, Any]:
    """Cancel: a refund line (negative) for every payment line, status `cancelled`.
    As in the reference, seats are not released and gift cards are not credited."""
    with database.write() as session:
        reservation = _reservation_row(session, reservation_id)
        if reservation.status == "cancelled":
            raise Conflict(f"Reservation {reservation.reservation_id} is already cancelled")
        payments = _reservation_rows(session, Payment, reservation.reservation_id)
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
        return _reservation_dict(_in_session(session), reservation.reservation_id)


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
        return _reservation_dict(_in_session(session), reservation.reservation_id)


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
        count = len(_reservation_rows(session, ReservationPassenger, reservation.reservation_id))
        old_segments = _reservation_rows(session, ReservationFlight, reservation.reservation_id)
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
        return _reservation_dict(_in_session(session), reservation.reservation_id)


def update_passengers(
    database: Database, *, reservation_id: str, passengers: Sequence[PassengerDetails]
) -> dict[str, Any]:
    """Replace passenger details; the number of passengers cannot change (M6)."""
    with database.write() as session:
        reservation = _reservation_row(session, reservation_id)
        rows = _reservation_rows(session, ReservationPassenger, reservation.reservation_id)
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
        return _reservation_dict(_in_session(session), reservation.reservation_id)


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


_FLIGHT = (
    "SELECT origin, destination, scheduled_departure_time_est FROM flight "
    "WHERE flight_number = :key"
)


def segment_facts(database: Database, flights: Sequence[FlightRef]) -> list[SegmentFacts]:
    """Route, departure time and status of each flight on its date, for the guard."""
    facts = []
    with database.reads() as reads:
        for ref in flights:
            number = _resolve(reads, _FLIGHT_KEY, ref.flight_number)
            if number is None:
                facts.append(SegmentFacts(ref.flight_number, ref.date, None, None, None, None))
                continue
            origin, destination, departure = reads.row(_FLIGHT, {"key": number})
            status = reads.value(_STATUS, {"number": number, "date": ref.date})
            facts.append(SegmentFacts(number, ref.date, origin, destination, departure, status))
    return facts


_OWNER = "SELECT user_id FROM reservation WHERE reservation_id = :key"


def reservation_owner(database: Database, reservation_id: str) -> str | None:
    with database.reads(consistent=False) as reads:
        key = _resolve(reads, _RESERVATION_KEY, reservation_id)
        if key is None:
            return None
        return reads.value(_OWNER, {"key": key})


def resolve_user_id(database: Database, user_id: str) -> str | None:
    with database.reads(consistent=False) as reads:
        return _resolve(reads, _USER_KEY, user_id)
