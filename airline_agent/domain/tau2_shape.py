"""The τ²-bench shape of the airline's records, built from rows in one place.

The tools answer with a user or a reservation exactly as τ²'s tools do (a reservation,
read or written, always has `status`, null when none), and `export --format tau2` writes
every record as τ²'s `db.json` has it (`status` only when set): both build their dicts
here, from rows whose columns come in the order of the `*_COLUMNS` tuples below (plain
tuples from bare sqlite3, or SQLAlchemy rows; only positions are used, so either works).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from airline_agent.domain.cabins import CABINS

# Column orders of the rows each builder takes (the SQL of the readers selects these).
USER_COLUMNS = (
    "user_id",
    "first_name",
    "last_name",
    "address1",
    "address2",
    "city",
    "country",
    "state",
    "zip",
    "email",
    "dob",
    "membership",
)
PAYMENT_METHOD_COLUMNS = ("payment_id", "source", "brand", "last_four", "amount")
PASSENGER_COLUMNS = ("first_name", "last_name", "dob")
RESERVATION_COLUMNS = (
    "reservation_id",
    "user_id",
    "origin",
    "destination",
    "flight_type",
    "cabin",
    "created_at",
    "total_baggages",
    "nonfree_baggages",
    "insurance",
    "status",
)
SEGMENT_COLUMNS = ("origin", "destination", "flight_number", "date", "price")
PAYMENT_COLUMNS = ("payment_id", "amount")
FLIGHT_COLUMNS = (
    "flight_number",
    "origin",
    "destination",
    "scheduled_departure_time_est",
    "scheduled_arrival_time_est",
)
FLIGHT_DATE_COLUMNS = (
    "date",
    "status",
    *(f"seats_{cabin}" for cabin in CABINS),
    *(f"price_{cabin}" for cabin in CABINS),
    "actual_departure_time_est",
    "actual_arrival_time_est",
    "estimated_departure_time_est",
    "estimated_arrival_time_est",
)

# Which times a flight date carries, by status (as in the τ² data).
DATE_TIMES: dict[str, tuple[str, ...]] = {
    "landed": ("actual_departure_time_est", "actual_arrival_time_est"),
    "delayed": ("estimated_departure_time_est", "estimated_arrival_time_est"),
    "on time": ("estimated_departure_time_est", "estimated_arrival_time_est"),
    "flying": ("actual_departure_time_est", "estimated_arrival_time_est"),
    "cancelled": (),
}
_DATE_INDEX = {name: index for index, name in enumerate(FLIGHT_DATE_COLUMNS)}


def tau2_amount(amount: float | int | None) -> float | int | None:
    """An amount as τ² writes payments: whole amounts as ints, fractions as floats."""
    if isinstance(amount, float) and amount.is_integer():
        return int(amount)
    return amount


def columns(names: Sequence[str], alias: str = "") -> str:
    """`a, b, c` (or `x.a, x.b, x.c`) for the SELECT of a builder's row."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(f"{prefix}{name}" for name in names)


def _people(rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    return [{"first_name": first, "last_name": last, "dob": dob} for first, last, dob in rows]


def user_record(
    user: Sequence[Any],
    methods: Iterable[Sequence[Any]],
    saved_passengers: Iterable[Sequence[Any]],
    reservation_ids: Iterable[str],
) -> dict[str, Any]:
    """A user as in τ²'s `users`: profile, payment methods by id, passengers, reservations."""
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
        "saved_passengers": _people(saved_passengers),
        "membership": user[11],
        "reservations": list(reservation_ids),
    }


def reservation_record(
    reservation: Sequence[Any],
    segments: Iterable[Sequence[Any]],
    passengers: Iterable[Sequence[Any]],
    payments: Iterable[Sequence[Any]],
    *,
    as_tool_result: bool = False,
) -> dict[str, Any]:
    """A reservation as in τ²'s `reservations`, where `status` is there only when it has
    one; `as_tool_result`: as τ²'s tools answer (its `Reservation` model dumped), where
    `status` is always there, `null` when none. τ²'s evaluator compares a replayed
    write's result with the recorded one, so a missing key would fail it."""
    record: dict[str, Any] = {
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
        "passengers": _people(passengers),
        "payment_history": [
            {"payment_id": payment_id, "amount": tau2_amount(amount)}
            for payment_id, amount in payments
        ],
        "created_at": reservation[6],
        "total_baggages": reservation[7],
        "nonfree_baggages": reservation[8],
        "insurance": reservation[9],
    }
    if reservation[10] is not None or as_tool_result:
        record["status"] = reservation[10]
    return record


def flight_date_record(row: Sequence[Any]) -> dict[str, Any]:
    """One date of a flight as in τ²: seats and prices while bookable, else its times."""
    status = row[1]
    day: dict[str, Any] = {"status": status}
    if status == "available":
        day["available_seats"] = {c: row[_DATE_INDEX[f"seats_{c}"]] for c in CABINS}
        day["prices"] = {c: row[_DATE_INDEX[f"price_{c}"]] for c in CABINS}
    else:
        for name in DATE_TIMES.get(status, ()):
            day[name] = row[_DATE_INDEX[name]]
    return day


def flight_record(flight: Sequence[Any], dates: Iterable[Sequence[Any]]) -> dict[str, Any]:
    """A flight as in τ²'s `flights`, with its dates keyed by date."""
    return {
        "flight_number": flight[0],
        "origin": flight[1],
        "destination": flight[2],
        "scheduled_departure_time_est": flight[3],
        "scheduled_arrival_time_est": flight[4],
        "dates": {row[0]: flight_date_record(row) for row in dates},
    }
