"""The money rules of the domain's writes, called directly on the small world: what a
booking, a bag change and a flight change charge, the balances they need, and the exact
refusals (the tool layer passes these messages on to the model). Cases the mutation
profile (docs/mutation.md) found that no test looked at.

Today's economy prices in the small world: HAT050 on the 20th 171, HAT156 on the 20th
172, HAT021 on the 20th 170, HAT200 on the 20th 174; HAT050 has 3 economy seats then.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import select

from airline_agent.domain import operations
from airline_agent.domain.db import Database
from airline_agent.domain.errors import Conflict, NotFound
from airline_agent.domain.operations import FlightRef, PassengerDetails, PaymentLine
from airline_agent.domain.operations.payments import charge_for_update
from airline_agent.domain.schema import Payment, PaymentMethod
from tests.support.world import CLOCK, make_world_db, world, written

# The tool tests run on SQLite and on a real PostgreSQL server (tests/support/postgres.py).
pytestmark = pytest.mark.both_dialects

NOAH = "noah_lee_1001"


def passengers(count: int) -> list[PassengerDetails]:
    return [PassengerDetails("Noah", "Lee", f"1980-01-0{n + 1}") for n in range(count)]


def book(database: Database, flights: list[FlightRef], lines: list[PaymentLine], count: int = 1):
    return written(
        database,
        operations.book_reservation,
        CLOCK,
        user_id=NOAH,
        origin="PHX",
        destination="JFK",
        flight_type="one_way",
        cabin="economy",
        flights=flights,
        passengers=passengers(count),
        payment_methods=lines,
        total_baggages=0,
        nonfree_baggages=0,
        insurance="no",
    )


def balance(database: Database, payment_id: str) -> float | None:
    return operations.get_user(database, NOAH)["payment_methods"][payment_id].get("amount")


HAT050 = FlightRef("HAT050", "2024-05-20")


@pytest.fixture
def changed_world(tmp_path: Path) -> Iterator[tuple[dict, Path]]:
    """The small world's data, to change before `open_world` builds it."""
    yield world(), tmp_path / "world.db"


def open_world(changed: tuple[dict, Path]) -> Database:
    data, path = changed
    return make_world_db(path, data)


# Bookings


def test_a_booking_charges_every_segment_for_every_passenger(world_db) -> None:
    flights = [FlightRef("HAT156", "2024-05-20"), FlightRef("HAT021", "2024-05-20")]
    booked = book(world_db, flights, [PaymentLine("credit_card_1111111", 684)], count=2)
    assert booked["payment_history"] == [{"payment_id": "credit_card_1111111", "amount": 684}]
    with pytest.raises(Conflict) as refused:
        book(world_db, flights, [PaymentLine("credit_card_1111111", 170)])
    assert str(refused.value) == "Payment amount does not add up, total price is 342, but paid 170"


def test_a_payment_one_dollar_short_is_refused(world_db) -> None:
    with pytest.raises(Conflict) as refused:
        book(world_db, [HAT050], [PaymentLine("credit_card_1111111", 170)])
    assert str(refused.value) == "Payment amount does not add up, total price is 171, but paid 170"


def test_successive_bookings_get_successive_ids(world_db) -> None:
    first = book(world_db, [HAT050], [PaymentLine("credit_card_1111111", 171)])
    second = book(world_db, [HAT050], [PaymentLine("credit_card_1111111", 171)])
    assert (first["reservation_id"], second["reservation_id"]) == ("HATHAT", "HATHAU")


def test_a_booking_may_take_the_last_seats(world_db) -> None:
    book(world_db, [HAT050], [PaymentLine("credit_card_1111111", 513)], count=3)
    status = operations.flight_status(world_db, "HAT050", "2024-05-20")
    assert status == "available"
    with pytest.raises(Conflict) as refused:
        book(world_db, [HAT050], [PaymentLine("credit_card_1111111", 171)])
    assert str(refused.value) == "Not enough seats on flight HAT050"


def test_the_same_flight_twice_needs_its_seats_twice(world_db) -> None:
    with pytest.raises(Conflict) as refused:
        book(world_db, [HAT050, HAT050], [PaymentLine("credit_card_1111111", 684)], count=2)
    assert str(refused.value) == "Not enough seats on flight HAT050"


def test_a_booking_on_a_flight_not_available_that_day_is_refused(world_db) -> None:
    with pytest.raises(Conflict) as refused:
        book(world_db, [FlightRef("HAT300", "2024-05-18")], [PaymentLine("gift_card_2222222", 1)])
    assert str(refused.value) == "Flight HAT300 not available on date 2024-05-18"


def test_a_payment_method_not_in_the_profile_is_not_found(world_db) -> None:
    with pytest.raises(NotFound) as refused:
        book(world_db, [HAT050], [PaymentLine("credit_card_5832574", 171)])
    assert str(refused.value) == (
        "Payment method credit_card_5832574 not found in the customer's profile"
    )


def test_lines_of_one_gift_card_together_must_fit_its_balance(world_db) -> None:
    # gift_card_2222223 holds 60: each line fits, the two together do not.
    lines = [PaymentLine("gift_card_2222223", 40), PaymentLine("gift_card_2222223", 40)]
    lines.append(PaymentLine("credit_card_1111111", 91))
    with pytest.raises(Conflict) as refused:
        book(world_db, [HAT050], lines)
    assert str(refused.value) == "Not enough balance in payment method gift_card_2222223"
    assert balance(world_db, "gift_card_2222223") == 60


@pytest.mark.parametrize("payment_id", ["gift_card_2222223", "certificate_4444444"])
def test_a_gift_card_or_certificate_must_cover_its_line(world_db, payment_id: str) -> None:
    lines = [PaymentLine(payment_id, 150), PaymentLine("credit_card_1111111", 21)]
    with pytest.raises(Conflict) as refused:
        book(world_db, [HAT050], lines)
    assert str(refused.value) == f"Not enough balance in payment method {payment_id}"


def test_an_empty_gift_card_pays_nothing_and_stays_empty(changed_world) -> None:
    data, _ = changed_world
    data["users"][NOAH]["payment_methods"]["gift_card_2222223"]["amount"] = 0.0
    database = open_world(changed_world)
    try:
        short = [PaymentLine("gift_card_2222223", 0.5), PaymentLine("credit_card_1111111", 170.5)]
        with pytest.raises(Conflict) as refused:
            book(database, [HAT050], short)
        assert str(refused.value) == "Not enough balance in payment method gift_card_2222223"
        lines = [PaymentLine("gift_card_2222223", 0), PaymentLine("credit_card_1111111", 171)]
        book(database, [HAT050], lines)
        assert balance(database, "gift_card_2222223") == 0
    finally:
        database.close()


# Changes: the charge rule and the lines they append


def test_a_reservation_is_cancelled_once(world_db) -> None:
    cancelled = written(world_db, operations.cancel_reservation, "ECON01")
    assert cancelled["status"] == "cancelled"
    with pytest.raises(Conflict) as refused:
        written(world_db, operations.cancel_reservation, "ECON01")
    assert str(refused.value) == "Reservation ECON01 is already cancelled"
    assert len(operations.get_reservation(world_db, "ECON01")["payment_history"]) == 2


def method(source: str, amount: float | None = None) -> PaymentMethod:
    return PaymentMethod(user_id=NOAH, payment_id="x", position=0, source=source, amount=amount)


def test_a_change_is_not_paid_with_a_missing_method_or_a_certificate() -> None:
    with pytest.raises(NotFound) as missing:
        charge_for_update(None, "gift_card_1", 10)
    assert str(missing.value) == "Payment method gift_card_1 not found in the customer's profile"
    with pytest.raises(Conflict) as certificate:
        charge_for_update(method("certificate", 500.0), "certificate_1", 10)
    assert str(certificate.value) == (
        "A certificate cannot be used to pay for a change to a reservation"
    )


def test_a_gift_card_pays_a_change_up_to_its_whole_balance() -> None:
    card = method("gift_card", 60.0)
    charge_for_update(card, "gift_card_1", 60)
    assert card.amount == 0
    with pytest.raises(Conflict) as refused:
        charge_for_update(card, "gift_card_1", 0.5)
    assert str(refused.value) == "Gift card gift_card_1 balance is not enough: 0 for 0.5"
    empty = method("gift_card", None)
    with pytest.raises(Conflict):
        charge_for_update(empty, "gift_card_1", 0.5)


def test_a_bag_change_names_the_gift_card_that_cannot_pay(world_db) -> None:
    with pytest.raises(Conflict) as refused:
        written(
            world_db,
            operations.update_baggages,
            reservation_id="ECON01",
            total_baggages=3,
            nonfree_baggages=2,
            payment_id="gift_card_2222223",
        )
    assert str(refused.value) == "Gift card gift_card_2222223 balance is not enough: 60 for 100"


def test_the_first_payment_line_of_a_reservation_is_at_position_zero(changed_world) -> None:
    data, _ = changed_world
    data["reservations"]["ECON01"]["payment_history"] = []
    database = open_world(changed_world)
    try:
        written(
            database,
            operations.update_baggages,
            reservation_id="ECON01",
            total_baggages=2,
            nonfree_baggages=1,
            payment_id="credit_card_1111111",
        )
        with database.read() as session:
            rows = session.exec(select(Payment).where(Payment.reservation_id == "ECON01")).all()
            assert [(r.position, r.payment_id, r.amount) for r in rows] == [
                (0, "credit_card_1111111", 50.0)
            ]
    finally:
        database.close()


def change_rtrip1(database: Database, payment_id: str = "credit_card_1111111") -> dict:
    """RTRIP1 (two passengers, HAT050 on the 17th at 160 and HAT200 on the 19th at 170):
    keep the first segment, the second moves to the 20th (174)."""
    return written(
        database,
        operations.update_flights,
        reservation_id="RTRIP1",
        cabin="economy",
        flights=[FlightRef("HAT050", "2024-05-17"), FlightRef("HAT200", "2024-05-20")],
        payment_id=payment_id,
    )


def test_a_flight_change_charges_the_difference_for_every_passenger(changed_world) -> None:
    data, _ = changed_world
    # Exactly the two seats the two passengers need.
    data["flights"]["HAT200"]["dates"]["2024-05-20"]["available_seats"]["economy"] = 2
    database = open_world(changed_world)
    try:
        changed = change_rtrip1(database)
        assert [s["price"] for s in changed["flights"]] == [160, 174]
        assert changed["payment_history"][-1] == {
            "payment_id": "credit_card_1111111",
            "amount": 8,
        }
        assert len(changed["payment_history"]) == 2
    finally:
        database.close()


def test_a_flight_change_without_enough_seats_is_refused(changed_world) -> None:
    data, _ = changed_world
    data["flights"]["HAT200"]["dates"]["2024-05-20"]["available_seats"]["economy"] = 1
    database = open_world(changed_world)
    try:
        with pytest.raises(Conflict) as refused:
            change_rtrip1(database)
        assert str(refused.value) == "Not enough seats on flight HAT200"
    finally:
        database.close()


def test_a_flight_change_to_a_flight_not_available_that_day_is_refused(world_db) -> None:
    with pytest.raises(Conflict) as refused:
        written(
            world_db,
            operations.update_flights,
            reservation_id="ECON01",
            cabin="economy",
            flights=[FlightRef("HAT300", "2024-05-18")],
            payment_id="credit_card_1111111",
        )
    assert str(refused.value) == "Flight HAT300 not available on date 2024-05-18"


def test_a_flight_change_names_the_gift_card_that_cannot_pay(world_db) -> None:
    # NEW001: HAT050 on the 20th at 100 in economy, one passenger; 421 in business.
    with pytest.raises(Conflict) as refused:
        written(
            world_db,
            operations.update_flights,
            reservation_id="NEW001",
            cabin="business",
            flights=[HAT050],
            payment_id="gift_card_2222223",
        )
    assert str(refused.value) == "Gift card gift_card_2222223 balance is not enough: 60 for 321"


def test_a_flight_change_at_the_same_price_adds_no_payment_line(world_db) -> None:
    # BIZ001: HAT050 on the 19th in business at 400; the 19th's business price is 420.
    same = written(
        world_db,
        operations.update_flights,
        reservation_id="BIZ001",
        cabin="business",
        flights=[FlightRef("HAT050", "2024-05-19")],
        payment_id="credit_card_1111111",
    )
    assert same["payment_history"] == [{"payment_id": "gift_card_2222222", "amount": 400}]
