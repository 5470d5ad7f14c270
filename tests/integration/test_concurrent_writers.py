"""Concurrent writers (issue 10 §1): separate processes racing for the last seats of a
flight, for one gift card's balance, and for certificate ids, released together.

Each race is repeated: on the original code (reads before BEGIN, absolute UPDATEs) most
races lost money or seats, or failed with `INTERNAL_ERROR: IntegrityError … [SQL: …]`.
The default run races a few times; AIRLINE_AGENT_SLOW=1 races 20 times with twice the
processes. Every race runs on a SQLite file and on a real PostgreSQL server
(tests/support/postgres.py), where the rows are locked `FOR UPDATE` instead of the file.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import text

from airline_agent.domain.db import Database
from airline_agent.domain.operations import next_certificate_id, next_reservation_id
from tests.support.postgres_fixtures import discard_later
from tests.support.postgres_fixtures import server as postgres_server
from tests.support.profile import SLOW
from tests.support.races import Call, Result, race
from tests.support.world import make_world_db, world

pytestmark = pytest.mark.both_dialects

RACES = 20 if SLOW else 3
RACERS = 6 if SLOW else 3

BUYER = "noah_lee_1001"
GIFT_CARD = "gift_card_2222223"
CARD = "credit_card_1111111"
FLIGHT, DATE = "HAT050", "2024-05-25"
FARE = 176  # HAT050 economy on 2024-05-25 in the small world (150 + 1 + 25)


@pytest.fixture
def race_world(dialect: str, tmp_path: Path):
    """`make(seats=…, balance=…, reservations=…)`: the location of a fresh race world on
    the test's dialect (a file, or a TEMPLATE copy on the PostgreSQL server)."""
    made: list[str] = []

    def make(*, seats: int, balance: float, reservations: int) -> str:
        if dialect == "sqlite":
            return str(_world(tmp_path, seats=seats, balance=balance, reservations=reservations))
        owner = postgres_server()
        data = _world_data(seats=seats, balance=balance, reservations=reservations)
        key = f"race_{seats}_{int(balance)}_{reservations}"
        template = owner.template(key, lambda url: make_world_db(url, data).close())
        made.append(owner.copy_of(template))
        return made[-1]

    yield make
    for url in made:
        discard_later(postgres_server(), url)


def _world_data(*, seats: int, balance: float, reservations: int) -> dict:
    data = world()
    data["flights"][FLIGHT]["dates"][DATE]["available_seats"]["economy"] = seats
    noah = data["users"][BUYER]
    noah["payment_methods"][GIFT_CARD]["amount"] = balance
    template = data["reservations"]["NEW001"]
    for number in range(reservations):
        reservation_id = f"RACE{number:02d}"
        data["reservations"][reservation_id] = template | {"reservation_id": reservation_id}
        noah["reservations"].append(reservation_id)
    return json.loads(json.dumps(data))


def _world(tmp_path: Path, *, seats: int, balance: float, reservations: int) -> Path:
    """The small world with `seats` economy seats left on HAT050 that day, Noah's second
    gift card at `balance`, and `reservations` more one-passenger reservations of his."""
    data = _world_data(seats=seats, balance=balance, reservations=reservations)
    path = tmp_path / "race.db"
    for companion in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        companion.unlink(missing_ok=True)
    make_world_db(path, data).close()  # no connection may cross the fork
    return path


def _booking() -> Call:
    return Call(
        "book_reservation",
        {
            "user_id": BUYER,
            "origin": "PHX",
            "destination": "JFK",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [{"flight_number": FLIGHT, "date": DATE}],
            "passengers": [{"first_name": "Noah", "last_name": "Lee", "dob": "1980-01-01"}],
            "payment_methods": [{"payment_id": CARD, "amount": FARE}],
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
        acting_user=BUYER,
    )


def _one_paid_bag(reservation_id: str) -> Call:
    return Call(
        "update_reservation_baggages",
        {
            "reservation_id": reservation_id,
            "total_baggages": 2,  # B5: a regular member has one free bag in economy
            "nonfree_baggages": 1,
            "payment_id": GIFT_CARD,
        },
        acting_user=BUYER,
    )


def _codes(results: list[Result]) -> list[str | None]:
    return [r.error for r in results]


def _query(location: str, sql: str, **params: object) -> list[tuple]:
    database = Database.open(location)
    try:
        with database.read() as session:
            return [tuple(row) for row in session.execute(text(sql), params)]
    finally:
        database.close()


def _no_sql_anywhere(results: list[Result]) -> None:
    for result in results:
        text = str(result.result)
        assert "[SQL:" not in text and "INSERT" not in text and "UPDATE" not in text, text


@pytest.mark.parametrize("round_", range(RACES))
def test_the_last_seats_go_to_as_many_buyers_as_there_were_seats(race_world, round_: int) -> None:
    seats = RACERS - 1
    path = race_world(seats=seats, balance=60.0, reservations=0)
    results = race(path, [_booking() for _ in range(RACERS)])
    _no_sql_anywhere(results)
    sold = [r.result["reservation_id"] for r in results if r.error is None]
    assert Counter(_codes(results)) == {None: seats, "CONFLICT": 1}, results
    loser = next(r for r in results if r.error == "CONFLICT")
    assert "seats" in loser.result["message"], loser.result
    # Ids are unique and still the reference's sequence, as for one writer after another.
    expected, taken = [], ["EHGLP3"]
    for _ in range(seats):
        expected.append(next_reservation_id(taken))
        taken.append(expected[-1])
    assert sorted(sold) == sorted(expected)
    left = _query(
        path,
        "SELECT seats_economy FROM flightdate WHERE flight_number = :f AND date = :d",
        f=FLIGHT,
        d=DATE,
    )
    assert left == [(0,)]
    booked = _query(
        path,
        "SELECT count(*) FROM reservationflight WHERE flight_number = :f AND date = :d",
        f=FLIGHT,
        d=DATE,
    )
    assert booked == [(seats,)]


@pytest.mark.parametrize("round_", range(RACES))
def test_one_gift_card_is_debited_exactly_the_charges_that_succeeded(
    race_world, round_: int
) -> None:
    # Enough balance for all but one $50 bag.
    balance = 50.0 * (RACERS - 1)
    path = race_world(seats=9, balance=balance, reservations=RACERS)
    results = race(path, [_one_paid_bag(f"RACE{n:02d}") for n in range(RACERS)])
    _no_sql_anywhere(results)
    succeeded = sum(1 for r in results if r.error is None)
    assert Counter(_codes(results)) == {None: RACERS - 1, "CONFLICT": 1}, results
    loser = next(r for r in results if r.error == "CONFLICT")
    assert "balance" in loser.result["message"], loser.result
    [(left,)] = _query(path, "SELECT amount FROM paymentmethod WHERE payment_id = :p", p=GIFT_CARD)
    assert left == balance - 50 * succeeded == 0
    charged = _query(
        path, "SELECT count(*), sum(amount) FROM payment WHERE payment_id = :p", p=GIFT_CARD
    )
    assert charged == [(succeeded, 50.0 * succeeded)]


@pytest.mark.parametrize("round_", range(RACES))
def test_certificates_sent_at_once_get_distinct_ids_in_sequence(race_world, round_: int) -> None:
    path = race_world(seats=9, balance=60.0, reservations=0)
    call = Call("send_certificate", {"user_id": BUYER, "amount": 50}, guard=False)
    results = race(path, [call for _ in range(RACERS)])
    _no_sql_anywhere(results)
    assert _codes(results) == [None] * RACERS, results
    held = ["certificate_3333333", "certificate_4444444"]
    expected = []
    for _ in range(RACERS):
        expected.append(next_certificate_id(held + expected))
    stored = _query(
        path,
        "SELECT payment_id FROM paymentmethod WHERE user_id = :u AND source = 'certificate'",
        u=BUYER,
    )
    assert sorted(p for (p,) in stored) == sorted(held + expected)
