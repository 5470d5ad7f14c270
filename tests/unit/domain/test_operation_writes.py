"""The domain's writes called directly on the small world (no tool layer, no guard):
certificates, passenger details, a flight change that adds a segment. Cases the
mutation profile (docs/mutation.md) found that no test looked at."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from airline_agent.domain import operations
from airline_agent.domain.db import Database
from airline_agent.domain.errors import Conflict
from airline_agent.domain.operations import FlightRef, PassengerDetails
from airline_agent.domain.schema import PaymentMethod
from tests.support.world import make_world_db, world, written

# The tool tests run on SQLite and on a real PostgreSQL server (tests/support/postgres.py).
pytestmark = pytest.mark.both_dialects


def stored_positions(database: Database, user_id: str) -> list[tuple[str, int]]:
    """The customer's payment methods as stored: (id, position), in position order."""
    with database.read() as session:
        query = select(PaymentMethod).where(PaymentMethod.user_id == user_id)
        rows = session.exec(query.order_by(PaymentMethod.position)).all()
        return [(row.payment_id, row.position) for row in rows]


def test_certificates_are_added_last_in_the_profile_with_the_next_free_id(world_db) -> None:
    before = list(operations.get_user(world_db, "noah_lee_1001")["payment_methods"])
    first = written(world_db, operations.send_certificate, user_id="noah_lee_1001", amount=50)
    second = written(world_db, operations.send_certificate, user_id="noah_lee_1001", amount=12.5)
    assert first == "Certificate certificate_3221322 added to user noah_lee_1001 with amount 50."
    assert second == (
        "Certificate certificate_3221323 added to user noah_lee_1001 with amount 12.5."
    )
    methods = operations.get_user(world_db, "noah_lee_1001")["payment_methods"]
    assert list(methods) == [*before, "certificate_3221322", "certificate_3221323"]
    assert methods["certificate_3221322"] == {
        "source": "certificate",
        "id": "certificate_3221322",
        "amount": 50,
    }
    assert methods["certificate_3221323"]["amount"] == 12.5
    positions = [position for _, position in stored_positions(world_db, "noah_lee_1001")]
    assert positions == list(range(len(before) + 2))


def test_a_certificate_for_a_customer_without_payment_methods_is_their_first(
    tmp_path: Path,
) -> None:
    data = world()
    user = dict(data["users"]["sofia_ruiz_2002"], user_id="zoe_park_3003")
    data["users"]["zoe_park_3003"] = dict(user, payment_methods={}, reservations=[])
    database = make_world_db(tmp_path / "world.db", data)
    try:
        written(database, operations.send_certificate, user_id="zoe_park_3003", amount=100)
        assert stored_positions(database, "zoe_park_3003") == [("certificate_3221322", 0)]
    finally:
        database.close()


def test_update_passengers_replaces_the_details_that_changed(world_db) -> None:
    result = written(
        world_db,
        operations.update_passengers,
        reservation_id="RTRIP1",
        passengers=[
            PassengerDetails("Noah", "Lee", "1980-01-01"),
            PassengerDetails("Mia", "Lee-Park", "1982-03-04"),
        ],
    )
    expected = [
        {"first_name": "Noah", "last_name": "Lee", "dob": "1980-01-01"},
        {"first_name": "Mia", "last_name": "Lee-Park", "dob": "1982-03-04"},
    ]
    assert result["passengers"] == expected
    assert operations.get_reservation(world_db, "RTRIP1")["passengers"] == expected


def test_update_passengers_with_another_number_of_passengers_is_refused(world_db) -> None:
    with pytest.raises(Conflict) as refused:
        written(
            world_db,
            operations.update_passengers,
            reservation_id="RTRIP1",
            passengers=[PassengerDetails("Noah", "Lee", "1980-01-01")],
        )
    assert str(refused.value) == (
        "Number of passengers does not match: the reservation has 2, 1 given"
    )


def test_a_flight_change_to_more_segments_adds_them_after_the_kept_ones(world_db) -> None:
    # NEW001: one economy segment, HAT050 on the 20th at 100, one passenger. Today's
    # economy price of HAT156 on the 20th is 172 and of HAT021 170.
    result = written(
        world_db,
        operations.update_flights,
        reservation_id="NEW001",
        cabin="economy",
        flights=[FlightRef("HAT050", "2024-05-20"), FlightRef("HAT021", "2024-05-20")],
        payment_id="credit_card_1111111",
    )
    expected = [
        {
            "flight_number": "HAT050",
            "date": "2024-05-20",
            "origin": "PHX",
            "destination": "JFK",
            "price": 100,
        },
        {
            "flight_number": "HAT021",
            "date": "2024-05-20",
            "origin": "SEA",
            "destination": "JFK",
            "price": 170,
        },
    ]
    assert [dict(segment) for segment in result["flights"]] == expected
    stored = operations.get_reservation(world_db, "NEW001")
    assert stored["flights"] == expected
    assert stored["payment_history"][-1] == {"payment_id": "credit_card_1111111", "amount": 170}
