"""The τ²-bench shape of the airline's records, built from the stored rows in one place.

The tools answer with a user, a reservation or a bookable flight exactly as τ²'s tools do
(a reservation, read or written, always has `status`, null when none), and `export
--format tau2` writes every record as τ²'s `db.json` has it (`status` only when set): both
build their dicts here, from the rows of schema.py's tables: SQLModel objects (what a
lookup or a write holds), or rows of the same columns (what a search or an export reads
in bulk, SQLAlchemy Core): the `*Row` protocols below say which columns a builder reads.
The TypedDicts say what a model, a test or an export reader gets; their keys are built in
τ²'s order, so the JSON is byte for byte τ²'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NotRequired, Protocol, TypedDict, overload

from airline_agent.domain.cabins import CABINS

Amount = float | int


class UserRow(Protocol):
    """A customer (`schema.User`)."""

    user_id: str
    first_name: str
    last_name: str
    address1: str
    address2: str | None
    city: str
    country: str
    state: str
    zip: str
    email: str
    dob: str
    membership: str


class PaymentMethodRow(Protocol):
    """One of a customer's payment methods (`schema.PaymentMethod`)."""

    payment_id: str
    source: str
    brand: str | None
    last_four: str | None
    amount: float | None


class PersonRow(Protocol):
    """A saved passenger or a reservation's (`SavedPassenger`, `ReservationPassenger`)."""

    first_name: str
    last_name: str
    dob: str


class ReservationRow(Protocol):
    """A reservation (`schema.Reservation`)."""

    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: str
    cabin: str
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: str
    status: str | None


class SegmentRow(Protocol):
    """A reservation's flight (`schema.ReservationFlight`)."""

    origin: str
    destination: str
    flight_number: str
    date: str
    price: int


class PaymentRow(Protocol):
    """A line of a reservation's payment history (`schema.Payment`)."""

    payment_id: str
    amount: float


class FlightRow(Protocol):
    """A scheduled flight (`schema.Flight`)."""

    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str


class FlightDateRow(Protocol):
    """A flight on one date (`schema.FlightDate`; its `seats_<cabin>` and
    `price_<cabin>` are read by cabin)."""

    date: str
    status: str
    actual_departure_time_est: str | None
    actual_arrival_time_est: str | None
    estimated_departure_time_est: str | None
    estimated_arrival_time_est: str | None


class Tau2Name(TypedDict):
    first_name: str
    last_name: str


class Tau2Address(TypedDict):
    address1: str
    address2: str | None  # τ²'s Optional[str]
    city: str
    country: str
    state: str
    zip: str


class Tau2CreditCard(TypedDict):
    source: Literal["credit_card"]
    id: str
    brand: str | None
    last_four: str | None


class Tau2Balance(TypedDict):
    """A gift card (its balance) or a travel certificate (its amount)."""

    source: str
    id: str
    amount: float | None


class Tau2Person(TypedDict):
    first_name: str
    last_name: str
    dob: str


class Tau2User(TypedDict):
    user_id: str
    name: Tau2Name
    address: Tau2Address
    email: str
    dob: str
    payment_methods: dict[str, Tau2CreditCard | Tau2Balance]
    saved_passengers: list[Tau2Person]
    membership: str
    reservations: list[str]


class Tau2Segment(TypedDict):
    origin: str
    destination: str
    flight_number: str
    date: str
    price: int


class Tau2PaymentLine(TypedDict):
    payment_id: str
    amount: Amount


class Tau2Reservation(TypedDict):
    reservation_id: str
    user_id: str
    origin: str
    destination: str
    flight_type: str
    cabin: str
    flights: list[Tau2Segment]
    passengers: list[Tau2Person]
    payment_history: list[Tau2PaymentLine]
    created_at: str
    total_baggages: int
    nonfree_baggages: int
    insurance: str
    status: NotRequired[str | None]


class Tau2FlightDate(TypedDict):
    """One date of a flight: seats and prices while bookable, else the times it has."""

    status: str
    available_seats: NotRequired[dict[str, int | None]]
    prices: NotRequired[dict[str, int | None]]
    actual_departure_time_est: NotRequired[str | None]
    actual_arrival_time_est: NotRequired[str | None]
    estimated_departure_time_est: NotRequired[str | None]
    estimated_arrival_time_est: NotRequired[str | None]


class Tau2Flight(TypedDict):
    flight_number: str
    origin: str
    destination: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    dates: dict[str, Tau2FlightDate]


class Tau2Database(TypedDict):
    """τ²'s `db.json`: every record by its id."""

    flights: dict[str, Tau2Flight]
    users: dict[str, Tau2User]
    reservations: dict[str, Tau2Reservation]


class BookableFlight(TypedDict):
    """A flight on one date as τ²'s searches answer (its status is always `available`)."""

    flight_number: str
    origin: str
    destination: str
    status: str
    scheduled_departure_time_est: str
    scheduled_arrival_time_est: str
    date: str | None  # None where τ²'s search_direct_flight answers (`eval --like tau2`)
    available_seats: dict[str, int | None]
    prices: dict[str, int | None]


TimeColumn = Literal[
    "actual_departure_time_est",
    "actual_arrival_time_est",
    "estimated_departure_time_est",
    "estimated_arrival_time_est",
]
# Which times a flight date carries, by status (as in the τ² data).
DATE_TIMES: dict[str, tuple[TimeColumn, ...]] = {
    "landed": ("actual_departure_time_est", "actual_arrival_time_est"),
    "delayed": ("estimated_departure_time_est", "estimated_arrival_time_est"),
    "on time": ("estimated_departure_time_est", "estimated_arrival_time_est"),
    "flying": ("actual_departure_time_est", "estimated_arrival_time_est"),
    "cancelled": (),
}


@overload
def tau2_amount(amount: Amount) -> Amount: ...
@overload
def tau2_amount(amount: None) -> None: ...
def tau2_amount(amount: Amount | None) -> Amount | None:
    """An amount as τ² writes payments: whole amounts as ints, fractions as floats."""
    if isinstance(amount, float) and amount.is_integer():
        return int(amount)
    return amount


def person_record(person: PersonRow) -> Tau2Person:
    return {"first_name": person.first_name, "last_name": person.last_name, "dob": person.dob}


def payment_method_record(method: PaymentMethodRow) -> Tau2CreditCard | Tau2Balance:
    if method.source == "credit_card":
        return {
            "source": "credit_card",
            "id": method.payment_id,
            "brand": method.brand,
            "last_four": method.last_four,
        }
    return {"source": method.source, "id": method.payment_id, "amount": method.amount}


def user_record(
    user: UserRow,
    methods: Iterable[PaymentMethodRow],
    saved_passengers: Iterable[PersonRow],
    reservation_ids: Iterable[str],
) -> Tau2User:
    """A user as in τ²'s `users`: profile, payment methods by id (in profile order),
    passengers, reservations."""
    return user_from_parts(
        user,
        {method.payment_id: payment_method_record(method) for method in methods},
        [person_record(person) for person in saved_passengers],
        list(reservation_ids),
    )


def user_from_parts(
    user: UserRow,
    payment_methods: dict[str, Tau2CreditCard | Tau2Balance],
    saved_passengers: list[Tau2Person],
    reservation_ids: list[str],
) -> Tau2User:
    """`user_record` from its parts already built (an export builds each part as it reads
    its row)."""
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
        "payment_methods": payment_methods,
        "saved_passengers": saved_passengers,
        "membership": user.membership,
        "reservations": reservation_ids,
    }


def reservation_record(
    reservation: ReservationRow,
    segments: Iterable[SegmentRow],
    passengers: Iterable[PersonRow],
    payments: Iterable[PaymentRow],
    *,
    as_tool_result: bool = False,
) -> Tau2Reservation:
    """A reservation as in τ²'s `reservations`, where `status` is there only when it has
    one; `as_tool_result`: as τ²'s tools answer (its `Reservation` model dumped), where
    `status` is always there, `null` when none, and each flight's keys in its order.
    τ²'s evaluator compares a replayed write's result with the recorded one, so a
    missing key would fail it."""
    return reservation_from_parts(
        reservation,
        [segment_record(segment, as_tool_result=as_tool_result) for segment in segments],
        [person_record(person) for person in passengers],
        [payment_line(line) for line in payments],
        as_tool_result=as_tool_result,
    )


def reservation_from_parts(
    reservation: ReservationRow,
    flights: list[Tau2Segment],
    passengers: list[Tau2Person],
    payment_history: list[Tau2PaymentLine],
    *,
    as_tool_result: bool = False,
) -> Tau2Reservation:
    """`reservation_record` from its parts already built (an export builds each part as
    it reads its row)."""
    record: Tau2Reservation = {
        "reservation_id": reservation.reservation_id,
        "user_id": reservation.user_id,
        "origin": reservation.origin,
        "destination": reservation.destination,
        "flight_type": reservation.flight_type,
        "cabin": reservation.cabin,
        "flights": flights,
        "passengers": passengers,
        "payment_history": payment_history,
        "created_at": reservation.created_at,
        "total_baggages": reservation.total_baggages,
        "nonfree_baggages": reservation.nonfree_baggages,
        "insurance": reservation.insurance,
    }
    if reservation.status is not None or as_tool_result:
        record["status"] = reservation.status
    return record


def payment_line(line: PaymentRow) -> Tau2PaymentLine:
    """A line of a reservation's payment history."""
    return {"payment_id": line.payment_id, "amount": tau2_amount(line.amount)}


def segment_record(segment: SegmentRow, *, as_tool_result: bool = False) -> Tau2Segment:
    """A reservation's flight: in db.json's order, or as τ²'s tools answer (its
    `ReservationFlight` model dumped: the flight's number, origin and destination first)."""
    if as_tool_result:
        return {
            "flight_number": segment.flight_number,
            "origin": segment.origin,
            "destination": segment.destination,
            "date": segment.date,
            "price": segment.price,
        }
    return {
        "origin": segment.origin,
        "destination": segment.destination,
        "flight_number": segment.flight_number,
        "date": segment.date,
        "price": segment.price,
    }


def flight_date_record(day: FlightDateRow) -> Tau2FlightDate:
    """One date of a flight as in τ²: seats and prices while bookable, else its times."""
    record: Tau2FlightDate = {"status": day.status}
    if day.status == "available":
        record["available_seats"] = seats_by_cabin(day)
        record["prices"] = prices_by_cabin(day)
    else:
        for name in DATE_TIMES.get(day.status, ()):
            record[name] = getattr(day, name)
    return record


# Each cabin with its column of a flight date's seats and of its prices (`seats_economy`,
# `price_economy`, …): an export reads them for every date of every flight.
_SEAT_COLUMNS = tuple((cabin, f"seats_{cabin}") for cabin in CABINS)
_PRICE_COLUMNS = tuple((cabin, f"price_{cabin}") for cabin in CABINS)


def seats_by_cabin(day: FlightDateRow) -> dict[str, int | None]:
    return {cabin: getattr(day, column) for cabin, column in _SEAT_COLUMNS}


def prices_by_cabin(day: FlightDateRow) -> dict[str, int | None]:
    return {cabin: getattr(day, column) for cabin, column in _PRICE_COLUMNS}


def flight_from_parts(flight: FlightRow, dates: dict[str, Tau2FlightDate]) -> Tau2Flight:
    """A flight as in τ²'s `flights`, with its dates (`flight_date_record`) keyed by date,
    built as an export reads each date's row."""
    return {
        "flight_number": flight.flight_number,
        "origin": flight.origin,
        "destination": flight.destination,
        "scheduled_departure_time_est": flight.scheduled_departure_time_est,
        "scheduled_arrival_time_est": flight.scheduled_arrival_time_est,
        "dates": dates,
    }


def bookable_flight(flight: FlightRow, day: FlightDateRow) -> BookableFlight:
    """A flight bookable on `day`, as τ²'s `search_direct_flight` lists it."""
    return {
        "flight_number": flight.flight_number,
        "origin": flight.origin,
        "destination": flight.destination,
        "status": "available",
        "scheduled_departure_time_est": flight.scheduled_departure_time_est,
        "scheduled_arrival_time_est": flight.scheduled_arrival_time_est,
        "date": day.date,
        "available_seats": seats_by_cabin(day),
        "prices": prices_by_cabin(day),
    }
