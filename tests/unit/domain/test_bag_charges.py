"""B5's price, where it is charged: $50 for each non-free bag, never for the free ones
(world: tests/support/world.py; Emma Kim is a gold member: 2 free bags per passenger in
basic economy, 3 in economy)."""

from __future__ import annotations

import pytest

from airline_agent.domain.tau2 import export_tau2
from tests.support.toolbox_fixtures import toolbox

# The tool tests run on SQLite and on a real PostgreSQL server (tests/support/postgres.py).
pytestmark = pytest.mark.both_dialects

EMMA = "emma_kim_9957"
CARD = "credit_card_5832574"


def test_a_bag_change_charges_the_new_nonfree_bags_not_the_new_bags(world_db) -> None:
    """EHGLP3 (2 passengers, basic economy: 4 free bags) from 0 to 5 bags: 1 is paid."""
    tools = toolbox(world_db, acting_user=EMMA)
    changed = tools.call(
        "update_reservation_baggages",
        {
            "reservation_id": "EHGLP3",
            "total_baggages": 5,
            "nonfree_baggages": 1,
            "payment_id": CARD,
        },
    )
    assert changed.error is None, changed.result
    assert changed.result["payment_history"][-1] == {"payment_id": CARD, "amount": 50}
    assert (changed.result["total_baggages"], changed.result["nonfree_baggages"]) == (5, 1)


def test_free_bags_added_to_paid_ones_cost_nothing_more(world_db) -> None:
    """From 5 bags (1 paid) to 6 bags (2 paid): one more paid bag, $50; then free ones
    only: no payment line at all."""
    tools = toolbox(world_db, acting_user=EMMA)
    first = {"reservation_id": "EHGLP3", "total_baggages": 5, "nonfree_baggages": 1}
    assert tools.call("update_reservation_baggages", {**first, "payment_id": CARD}).ok
    second = {"reservation_id": "EHGLP3", "total_baggages": 6, "nonfree_baggages": 2}
    again = tools.call("update_reservation_baggages", {**second, "payment_id": CARD})
    assert again.error is None, again.result
    assert [line["amount"] for line in again.result["payment_history"]] == [208, 50, 50]
    guard_off = toolbox(world_db, guard=False)
    same_paid = {"reservation_id": "EHGLP3", "total_baggages": 8, "nonfree_baggages": 2}
    unpaid = guard_off.call("update_reservation_baggages", {**same_paid, "payment_id": CARD})
    assert unpaid.error is None, unpaid.result
    assert [line["amount"] for line in unpaid.result["payment_history"]] == [208, 50, 50]


def test_a_booking_charges_the_nonfree_bags_only(world_db) -> None:
    """Emma (gold) books economy for one on HAT050 (fare 167) with 4 bags, 3 of them
    free: the total is 167 + 50, and a payment of 217 adds up."""
    tools = toolbox(world_db, acting_user=EMMA)
    booking = {
        "user_id": EMMA,
        "origin": "PHX",
        "destination": "JFK",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT050", "date": "2024-05-16"}],
        "passengers": [{"first_name": "Emma", "last_name": "Kim", "dob": "1980-01-01"}],
        "payment_methods": [{"payment_id": CARD, "amount": 217}],
        "total_baggages": 4,
        "nonfree_baggages": 1,
        "insurance": "no",
    }
    booked = tools.call("book_reservation", booking)
    assert booked.error is None, booked.result
    stored = export_tau2(world_db)["reservations"][booked.result["reservation_id"]]
    assert stored["payment_history"] == [{"payment_id": CARD, "amount": 217}]
    assert (stored["total_baggages"], stored["nonfree_baggages"]) == (4, 1)
