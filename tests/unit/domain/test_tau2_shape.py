"""`domain/tau2_shape.py` builds τ²'s records from rows; τ²'s own db.json is the oracle.

Every user, reservation and flight of τ²'s db.json is taken apart into the rows of our
schema (the SQLModel tables) and built again: each must come back equal to τ²'s record,
with its keys in the same set. Then the cases db.json never has (a
reservation with a status, a tool result's `status: null`, fractional amounts), by hand.
Fast and direct: the mutation profile checks this module with it (docs/mutation.md).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from airline_agent.domain.cabins import CABINS
from airline_agent.domain.schema import (
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
from airline_agent.domain.tau2_shape import (
    DATE_TIMES,
    bookable_flight,
    flight_date_record,
    flight_from_parts,
    reservation_record,
    tau2_amount,
    user_record,
)
from tests.conftest import tau2_files


@cache
def _tau2() -> dict[str, Any]:
    return json.loads(tau2_files()[0].read_text(encoding="utf-8"))


def _user_rows(
    user: dict[str, Any],
) -> tuple[User, list[PaymentMethod], list[SavedPassenger], list[str]]:
    address = user["address"]
    row = User(
        user_id=user["user_id"],
        first_name=user["name"]["first_name"],
        last_name=user["name"]["last_name"],
        **{k: address[k] for k in ("address1", "address2", "city", "country", "state", "zip")},
        email=user["email"],
        dob=user["dob"],
        membership=user["membership"],
    )
    methods = [
        PaymentMethod(
            user_id=user["user_id"],
            payment_id=m["id"],
            position=position,
            source=m["source"],
            brand=m.get("brand"),
            last_four=m.get("last_four"),
            amount=m.get("amount"),
        )
        for position, m in enumerate(user["payment_methods"].values())
    ]
    people = [
        SavedPassenger(user_id=user["user_id"], position=position, **p)
        for position, p in enumerate(user["saved_passengers"])
    ]
    return row, methods, people, list(user["reservations"])


def _reservation(values: tuple[Any, ...]) -> Reservation:
    names = ("reservation_id", "user_id", "origin", "destination", "flight_type", "cabin")
    names += ("created_at", "total_baggages", "nonfree_baggages", "insurance", "status")
    return Reservation(**dict(zip(names, values, strict=True)))


def _payments(reservation_id: str, lines: list[tuple[str, float]]) -> list[Payment]:
    return [
        Payment(reservation_id=reservation_id, position=position, payment_id=pid, amount=amount)
        for position, (pid, amount) in enumerate(lines)
    ]


def _reservation_rows(
    record: dict[str, Any],
) -> tuple[Reservation, list[ReservationFlight], list[ReservationPassenger], list[Payment]]:
    rid = record["reservation_id"]
    row = _reservation(
        (
            *(record[k] for k in ("reservation_id", "user_id", "origin", "destination")),
            record["flight_type"],
            record["cabin"],
            record["created_at"],
            record["total_baggages"],
            record["nonfree_baggages"],
            record["insurance"],
            record.get("status"),
        )
    )
    segments = [
        ReservationFlight(reservation_id=rid, position=position, **f)
        for position, f in enumerate(record["flights"])
    ]
    people = [
        ReservationPassenger(reservation_id=rid, position=position, **p)
        for position, p in enumerate(record["passengers"])
    ]
    payments = _payments(rid, [(p["payment_id"], p["amount"]) for p in record["payment_history"]])
    return row, segments, people, payments


def _date_row(date: str, day: dict[str, Any], number: str = "HAT001") -> FlightDate:
    values: dict[str, Any] = {"flight_number": number, "date": date, "status": day["status"]}
    values |= {f"seats_{c}": day.get("available_seats", {}).get(c) for c in CABINS}
    values |= {f"price_{c}": day.get("prices", {}).get(c) for c in CABINS}
    for name in DATE_TIMES.get(day["status"], ()):
        values[name] = day[name]
    return FlightDate(**values)


def test_every_user_of_tau2_is_built_back_as_tau2_has_it() -> None:
    users = _tau2()["users"]
    assert len(users) == 500
    for user in users.values():
        built = user_record(*_user_rows(user))
        assert built == user, user["user_id"]
        assert list(built) == list(user)  # the same keys in the same order
        assert [list(m) for m in built["payment_methods"].values()] == [
            list(m) for m in user["payment_methods"].values()
        ]


def test_every_reservation_of_tau2_is_built_back_as_tau2_has_it() -> None:
    reservations = _tau2()["reservations"]
    assert len(reservations) == 2000
    for record in reservations.values():
        rows = _reservation_rows(record)
        built = reservation_record(*rows)
        assert built == record, record["reservation_id"]
        assert set(built) == set(record)
        # As τ²'s tools answer: `status` always there, null when none.
        assert reservation_record(*rows, as_tool_result=True) == {**record, "status": None}


def test_every_flight_of_tau2_is_built_back_with_each_dates_fields() -> None:
    flights = _tau2()["flights"]
    statuses: set[str] = set()
    for flight in flights.values():
        row = Flight(**{k: v for k, v in flight.items() if k != "dates"})
        dates = {
            date: flight_date_record(_date_row(date, day, flight["flight_number"]))
            for date, day in flight["dates"].items()
        }
        built = flight_from_parts(row, dates)
        assert built == flight, flight["flight_number"]
        statuses |= {day["status"] for day in flight["dates"].values()}
    assert statuses == {"available", *DATE_TIMES}  # every kind of date was built


def test_a_reservation_with_a_status_keeps_it_in_both_shapes() -> None:
    row = ("ABC123", "u_1", "JFK", "SFO", "one_way", "economy", "2024-05-01T10:00:00", 1, 0)
    refund = _payments("ABC123", [("gift_card_1", -120.0)])
    cancelled = reservation_record(_reservation((*row, "no", "cancelled")), [], [], refund)
    assert cancelled["status"] == "cancelled"
    assert cancelled["payment_history"] == [{"payment_id": "gift_card_1", "amount": -120}]
    assert type(cancelled["payment_history"][0]["amount"]) is int
    assert reservation_record(
        _reservation((*row, "no", "cancelled")), [], [], [], as_tool_result=True
    )["status"] == ("cancelled")
    paid = _payments("ABC123", [("credit_card_1", 99.5)])
    plain = reservation_record(_reservation((*row, "yes", None)), [], [], paid)
    assert "status" not in plain
    assert plain["payment_history"] == [{"payment_id": "credit_card_1", "amount": 99.5}]


@pytest.mark.parametrize(
    ("amount", "shown", "kind"),
    [(523.0, 523, int), (-40.0, -40, int), (12.5, 12.5, float), (7, 7, int), (None, None, None)],
)
def test_tau2_amounts_are_whole_numbers_as_ints(amount, shown, kind) -> None:
    value = tau2_amount(amount)
    assert value == shown
    assert (type(value) if value is not None else None) is kind


def test_a_date_of_an_unknown_status_carries_only_its_status() -> None:
    row = _date_row("2024-05-20", {"status": "diverted"})
    assert flight_date_record(row) == {"status": "diverted"}


def test_a_reservation_s_flights_keep_db_json_s_order_or_tau2_s_tool_order() -> None:
    """db.json lists a flight origin first; τ²'s tools answer with its `ReservationFlight`
    dumped, flight number first. The agent reads the text, so the order is the answer."""
    row = ("ABC123", "u_1", "JFK", "SFO", "one_way", "economy", "2024-05-01T10:00:00", 1, 0)
    segment = ReservationFlight(
        reservation_id="ABC123",
        position=0,
        origin="JFK",
        destination="SFO",
        flight_number="HAT001",
        date="2024-05-10",
        price=120,
    )
    reservation = _reservation((*row, "no", None))
    stored = reservation_record(reservation, [segment], [], [])["flights"]
    answered = reservation_record(reservation, [segment], [], [], as_tool_result=True)["flights"]
    assert json.dumps(stored) == (
        '[{"origin": "JFK", "destination": "SFO", "flight_number": "HAT001",'
        ' "date": "2024-05-10", "price": 120}]'
    )
    assert json.dumps(answered) == (
        '[{"flight_number": "HAT001", "origin": "JFK", "destination": "SFO",'
        ' "date": "2024-05-10", "price": 120}]'
    )


def test_a_bookable_flight_is_listed_as_tau2_s_search_lists_it() -> None:
    flight = Flight(
        flight_number="HAT001",
        origin="JFK",
        destination="SFO",
        scheduled_departure_time_est="06:00:00",
        scheduled_arrival_time_est="09:30:00",
    )
    day = _date_row(
        "2024-05-10",
        {
            "status": "available",
            "available_seats": {"basic_economy": 3, "economy": 5, "business": 1},
            "prices": {"basic_economy": 80, "economy": 120, "business": 400},
        },
    )
    assert json.dumps(bookable_flight(flight, day)) == (
        '{"flight_number": "HAT001", "origin": "JFK", "destination": "SFO",'
        ' "status": "available", "scheduled_departure_time_est": "06:00:00",'
        ' "scheduled_arrival_time_est": "09:30:00", "date": "2024-05-10",'
        ' "available_seats": {"basic_economy": 3, "economy": 5, "business": 1},'
        ' "prices": {"basic_economy": 80, "economy": 120, "business": 400}}'
    )
