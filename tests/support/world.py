"""A small airline in τ² db.json shape, hand-written for the tool tests, so that they run
without the reference folder. Clock: 2024-05-15T15:00:00.

Customers: emma_kim_9957 (gold), noah_lee_1001 (regular, cards and certificates),
sofia_ruiz_2002 (silver). Reservations cover each policy case: basic economy (EHGLP3),
insured economy (ECON01), business (BIZ001), booked in the last 24 h (NEW001), partly
flown (FLOWN1), on a cancelled flight (CXLD01), on a delayed flight (DELAY1), round
trip (RTRIP1).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.domain.operations import WriteRows
from airline_agent.domain.tau2 import import_tau2

NOW = "2024-05-15T15:00:00"
CLOCK = Clock.at(NOW)

_ROUTES = {
    "HAT156": ("PHX", "SEA", "07:00:00", "10:00:00"),
    "HAT021": ("SEA", "JFK", "19:00:00", "01:00:00+1"),
    "HAT100": ("PHX", "SEA", "12:00:00", "15:00:00"),
    "HAT200": ("JFK", "PHX", "08:00:00", "13:00:00"),
    "HAT300": ("SEA", "JFK", "16:00:00", "23:00:00"),
    "HAT050": ("PHX", "JFK", "09:00:00", "15:00:00"),
    "HAT060": ("JFK", "ATL", "07:00:00", "09:00:00"),
    "HAT061": ("ATL", "SEA", "01:30:00", "04:30:00"),
}
_TODAY = {
    "HAT156": "landed",
    "HAT021": "delayed",
    "HAT100": "cancelled",
    "HAT200": "on time",
    "HAT300": "flying",
    "HAT050": "available",
    "HAT060": "landed",
    "HAT061": "landed",
}
_PRICES = {"basic_economy": 50, "economy": 150, "business": 400}


def _day(number: str, day: int) -> dict:
    date = f"2024-05-{day:02d}"
    if day < 15:
        dep, arr = _ROUTES[number][2], _ROUTES[number][3].replace("+1", "")
        return {
            "status": "landed",
            "actual_departure_time_est": f"{date}T{dep}",
            "actual_arrival_time_est": f"{date}T{arr}",
        }
    status = _TODAY[number] if day == 15 else "available"
    if (number, day) == ("HAT300", 18):
        status = "cancelled"
    if status == "available":
        bump = int(number[3:]) % 7 + day
        return {
            "status": "available",
            "available_seats": {"basic_economy": 9, "economy": 3 + day % 5, "business": 4},
            "prices": {cabin: price + bump for cabin, price in _PRICES.items()},
        }
    if status == "cancelled":
        return {"status": "cancelled"}
    if status == "landed":
        return {
            "status": "landed",
            "actual_departure_time_est": f"{date}T06:00:00",
            "actual_arrival_time_est": f"{date}T09:00:00",
        }
    if status == "flying":
        return {
            "status": "flying",
            "actual_departure_time_est": f"{date}T14:00:00",
            "estimated_arrival_time_est": f"{date}T21:00:00",
        }
    return {
        "status": status,
        "estimated_departure_time_est": f"{date}T20:00:00",
        "estimated_arrival_time_est": f"{date}T23:30:00",
    }


def _flights() -> dict:
    return {
        number: {
            "flight_number": number,
            "origin": origin,
            "destination": destination,
            "scheduled_departure_time_est": dep,
            "scheduled_arrival_time_est": arr,
            "dates": {f"2024-05-{d:02d}": _day(number, d) for d in range(13, 31)},
        }
        for number, (origin, destination, dep, arr) in _ROUTES.items()
    }


def _user(
    user_id: str, first: str, last: str, membership: str, methods: dict, reservations: list
) -> dict:
    return {
        "user_id": user_id,
        "name": {"first_name": first, "last_name": last},
        "address": {
            "address1": "1 Main St",
            "address2": "Apt 2",
            "city": "Phoenix",
            "country": "USA",
            "state": "AZ",
            "zip": "85001",
        },
        "email": f"{user_id}@example.com",
        "dob": "1980-01-01",
        "payment_methods": methods,
        "saved_passengers": [],
        "membership": membership,
        "reservations": reservations,
    }


def _card(number: str) -> dict:
    return {
        "source": "credit_card",
        "id": f"credit_card_{number}",
        "brand": "visa",
        "last_four": number[-4:],
    }


def _balance(kind: str, number: str, amount: float) -> dict:
    return {"source": kind, "id": f"{kind}_{number}", "amount": amount}


def _segment(number: str, date: str, price: int) -> dict:
    origin, destination, _, _ = _ROUTES[number]
    return {
        "origin": origin,
        "destination": destination,
        "flight_number": number,
        "date": date,
        "price": price,
    }


def _person(first: str, last: str, dob: str = "1990-02-02") -> dict:
    return {"first_name": first, "last_name": last, "dob": dob}


def _reservation(
    rid: str,
    user: str,
    route: tuple[str, str, str],
    cabin: str,
    segments: list,
    passengers: list,
    payments: list,
    created: str,
    insurance: str = "no",
    bags: tuple[int, int] = (0, 0),
) -> dict:
    return {
        "reservation_id": rid,
        "user_id": user,
        "origin": route[0],
        "destination": route[1],
        "flight_type": route[2],
        "cabin": cabin,
        "flights": segments,
        "passengers": passengers,
        "payment_history": [{"payment_id": p, "amount": a} for p, a in payments],
        "created_at": created,
        "total_baggages": bags[0],
        "nonfree_baggages": bags[1],
        "insurance": insurance,
    }


def world() -> dict:
    users = {
        "emma_kim_9957": _user(
            "emma_kim_9957",
            "Emma",
            "Kim",
            "gold",
            {
                "credit_card_5832574": _card("5832574"),
                "gift_card_9562694": _balance("gift_card", "9562694", 103.0),
            },
            ["EHGLP3"],
        ),
        "noah_lee_1001": _user(
            "noah_lee_1001",
            "Noah",
            "Lee",
            "regular",
            {
                "credit_card_1111111": _card("1111111"),
                "credit_card_1111112": _card("1111112"),
                "gift_card_2222222": _balance("gift_card", "2222222", 500.0),
                "gift_card_2222223": _balance("gift_card", "2222223", 60.0),
                "certificate_3333333": _balance("certificate", "3333333", 250.0),
                "certificate_4444444": _balance("certificate", "4444444", 100.0),
            },
            ["ECON01", "BIZ001", "NEW001", "RTRIP1"],
        ),
        "sofia_ruiz_2002": _user(
            "sofia_ruiz_2002",
            "Sofia",
            "Ruiz",
            "silver",
            {"credit_card_5555555": _card("5555555")},
            ["FLOWN1", "CXLD01", "DELAY1"],
        ),
    }
    users["emma_kim_9957"]["saved_passengers"] = [_person("Mason", "Gonzalez", "1952-04-21")]
    reservations = [
        _reservation(
            "EHGLP3",
            "emma_kim_9957",
            ("PHX", "JFK", "one_way"),
            "basic_economy",
            [_segment("HAT156", "2024-05-17", 50), _segment("HAT021", "2024-05-17", 54)],
            [_person("Evelyn", "Taylor", "1965-01-16"), _person("Anya", "Silva", "1971-11-22")],
            [("credit_card_5832574", 208)],
            "2024-05-04T23:12:06",
        ),
        _reservation(
            "ECON01",
            "noah_lee_1001",
            ("PHX", "JFK", "one_way"),
            "economy",
            [_segment("HAT156", "2024-05-18", 150), _segment("HAT021", "2024-05-18", 140)],
            [_person("Noah", "Lee", "1980-01-01")],
            [("credit_card_1111111", 320)],
            "2024-05-01T10:00:00",
            insurance="yes",
            bags=(1, 0),
        ),
        _reservation(
            "BIZ001",
            "noah_lee_1001",
            ("PHX", "JFK", "one_way"),
            "business",
            [_segment("HAT050", "2024-05-19", 400)],
            [_person("Noah", "Lee", "1980-01-01")],
            [("gift_card_2222222", 400)],
            "2024-05-02T10:00:00",
        ),
        _reservation(
            "NEW001",
            "noah_lee_1001",
            ("PHX", "JFK", "one_way"),
            "economy",
            [_segment("HAT050", "2024-05-20", 100)],
            [_person("Noah", "Lee", "1980-01-01")],
            [("gift_card_2222222", 100)],
            "2024-05-15T10:00:00",
        ),
        _reservation(
            "RTRIP1",
            "noah_lee_1001",
            ("PHX", "JFK", "round_trip"),
            "economy",
            [_segment("HAT050", "2024-05-17", 160), _segment("HAT200", "2024-05-19", 170)],
            [_person("Noah", "Lee", "1980-01-01"), _person("Mia", "Lee", "1982-03-03")],
            [("credit_card_1111111", 660)],
            "2024-05-03T10:00:00",
        ),
        _reservation(
            "FLOWN1",
            "sofia_ruiz_2002",
            ("JFK", "PHX", "round_trip"),
            "economy",
            [_segment("HAT200", "2024-05-14", 150), _segment("HAT050", "2024-05-18", 150)],
            [_person("Sofia", "Ruiz", "1985-05-05")],
            [("credit_card_5555555", 300)],
            "2024-05-01T09:00:00",
        ),
        _reservation(
            "CXLD01",
            "sofia_ruiz_2002",
            ("PHX", "SEA", "one_way"),
            "economy",
            [_segment("HAT100", "2024-05-15", 150)],
            [_person("Sofia", "Ruiz", "1985-05-05")],
            [("credit_card_5555555", 150)],
            "2024-05-01T09:00:00",
        ),
        _reservation(
            "DELAY1",
            "sofia_ruiz_2002",
            ("SEA", "JFK", "one_way"),
            "economy",
            [_segment("HAT021", "2024-05-15", 150)],
            [_person("Sofia", "Ruiz", "1985-05-05"), _person("Leo", "Ruiz", "2010-06-06")],
            [("credit_card_5555555", 300)],
            "2024-05-02T09:00:00",
        ),
    ]
    return {
        "flights": _flights(),
        "users": users,
        "reservations": {r["reservation_id"]: r for r in reservations},
    }


def make_world_db(path: Path | str, data: dict | None = None) -> Database:
    database = Database.create(path)
    import_tau2(database, copy.deepcopy(data if data is not None else world()))
    return database


_Result = TypeVar("_Result")


def written(
    database: Database, operation: Callable[..., _Result], *args: object, **kwargs: object
) -> _Result:
    """A write operation in a transaction of its own, as a tool call without the guard
    runs it (the toolbox opens the transaction, the operation writes in it)."""
    with database.write() as session:
        return operation(WriteRows(session), *args, **kwargs)
