"""`domain/tau2_shape.py` builds τ²'s records from rows; τ²'s own db.json is the oracle.

Every user, reservation and flight of τ²'s db.json is taken apart into the rows our
readers select (in the `*_COLUMNS` orders) and built again: each must come back equal to
τ²'s record, with its keys in the same set. Then the cases db.json never has (a
reservation with a status, a tool result's `status: null`, fractional amounts), by hand.
Fast and direct: the mutation profile checks this module with it (docs/mutation.md).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from airline_agent.domain.schema import CABINS
from airline_agent.domain.tau2_shape import (
    DATE_TIMES,
    FLIGHT_DATE_COLUMNS,
    columns,
    flight_date_record,
    flight_record,
    reservation_record,
    tau2_amount,
    user_record,
)
from tests.conftest import tau2_files


@cache
def _tau2() -> dict[str, Any]:
    return json.loads(tau2_files()[0].read_text(encoding="utf-8"))


def _user_rows(user: dict[str, Any]) -> tuple[tuple, list[tuple], list[tuple], list[str]]:
    address = user["address"]
    row = (
        user["user_id"],
        user["name"]["first_name"],
        user["name"]["last_name"],
        *(address[k] for k in ("address1", "address2", "city", "country", "state", "zip")),
        user["email"],
        user["dob"],
        user["membership"],
    )
    methods = [
        (m["id"], m["source"], m.get("brand"), m.get("last_four"), m.get("amount"))
        for m in user["payment_methods"].values()
    ]
    people = [(p["first_name"], p["last_name"], p["dob"]) for p in user["saved_passengers"]]
    return row, methods, people, list(user["reservations"])


def _reservation_rows(record: dict[str, Any]) -> tuple[tuple, list, list, list]:
    row = (
        *(record[k] for k in ("reservation_id", "user_id", "origin", "destination")),
        record["flight_type"],
        record["cabin"],
        record["created_at"],
        record["total_baggages"],
        record["nonfree_baggages"],
        record["insurance"],
        record.get("status"),
    )
    segments = [
        (f["origin"], f["destination"], f["flight_number"], f["date"], f["price"])
        for f in record["flights"]
    ]
    people = [(p["first_name"], p["last_name"], p["dob"]) for p in record["passengers"]]
    payments = [(p["payment_id"], p["amount"]) for p in record["payment_history"]]
    return row, segments, people, payments


def _date_row(date: str, day: dict[str, Any]) -> tuple:
    values = {"date": date, "status": day["status"]}
    values |= {f"seats_{c}": day.get("available_seats", {}).get(c) for c in CABINS}
    values |= {f"price_{c}": day.get("prices", {}).get(c) for c in CABINS}
    return tuple(values.get(name, day.get(name)) for name in FLIGHT_DATE_COLUMNS)


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
        row = tuple(
            flight[k]
            for k in (
                "flight_number",
                "origin",
                "destination",
                "scheduled_departure_time_est",
                "scheduled_arrival_time_est",
            )
        )
        dates = [_date_row(date, day) for date, day in flight["dates"].items()]
        built = flight_record(row, dates)
        assert built == flight, flight["flight_number"]
        statuses |= {day["status"] for day in flight["dates"].values()}
    assert statuses == {"available", *DATE_TIMES}  # every kind of date was built


def test_a_reservation_with_a_status_keeps_it_in_both_shapes() -> None:
    row = ("ABC123", "u_1", "JFK", "SFO", "one_way", "economy", "2024-05-01T10:00:00", 1, 0)
    cancelled = reservation_record((*row, "no", "cancelled"), [], [], [("gift_card_1", -120.0)])
    assert cancelled["status"] == "cancelled"
    assert cancelled["payment_history"] == [{"payment_id": "gift_card_1", "amount": -120}]
    assert type(cancelled["payment_history"][0]["amount"]) is int
    assert reservation_record((*row, "no", "cancelled"), [], [], [], as_tool_result=True)[
        "status"
    ] == ("cancelled")
    plain = reservation_record((*row, "yes", None), [], [], [("credit_card_1", 99.5)])
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


def test_columns_lists_names_for_a_select() -> None:
    assert columns(("a", "b", "c")) == "a, b, c"
    assert columns(("a", "b"), "x") == "x.a, x.b"


def test_a_date_of_an_unknown_status_carries_only_its_status() -> None:
    row = _date_row("2024-05-20", {"status": "diverted"})
    assert flight_date_record(row) == {"status": "diverted"}
