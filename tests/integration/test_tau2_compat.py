"""τ²-bench compatibility: every task's reference actions replay through our tools (guard
off, no acting customer) with no error result and exactly the database changes of the
reference tools, as computed by an independent oracle on the plain db.json dicts. (The
tasks that touch no common customer or reservation share a database copy in the default
run: tests/support/tau2_batches.py; each has its own with AIRLINE_AGENT_SLOW=1.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from airline_agent.domain.clock import Clock
from airline_agent.domain.tau2 import export_tau2
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.toolbox import Toolbox
from tests.support import tau2_batches, tau2_oracle
from tests.support.toolbox_fixtures import Tools

CLOCK = Clock.at("2024-05-15T15:00:00")


def _actions(task: dict) -> list[dict]:
    return (task.get("evaluation_criteria") or {}).get("actions") or []


def _replay(toolbox: Tools, actions: list[dict]) -> list:
    outcomes = []
    for action in actions:
        outcome = toolbox.call(action["name"], action["arguments"])
        assert outcome.error is None, (action, outcome.result)
        outcomes.append(outcome)
    return outcomes


def test_all_fifty_tasks_replay_to_the_reference_state(tau2_reference, tmp_path: Path) -> None:
    _, initial, tasks = tau2_reference
    assert len(tasks) == 50
    batches = tau2_batches.batches(tasks, initial)
    assert sorted(t["id"] for batch in batches for t in batch) == sorted(t["id"] for t in tasks)
    for batch in batches:
        database = tau2_reference.fresh(tmp_path)
        try:
            expected = tau2_batches.copy_of(initial)
            for task in batch:
                toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
                _replay(toolbox, _actions(task))
                for action in _actions(task):
                    tau2_oracle.apply(expected, action["name"], action["arguments"])
            differing = tau2_batches.differing_records(export_tau2(database), expected)
            assert differing == [], f"tasks {[t['id'] for t in batch]}"
        finally:
            database.close()


def _task(tasks: list, task_id: str) -> dict:
    return next(t for t in tasks if str(t["id"]) == task_id)


def test_booking_creates_hathat_takes_seats_and_debits_gift_cards(tau2_reference, tmp_path) -> None:
    _, initial, tasks = tau2_reference
    database = tau2_reference.fresh(tmp_path)
    toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
    booking = next(a for a in _actions(_task(tasks, "24")) if a["name"] == "book_reservation")
    args = booking["arguments"]
    outcome = toolbox.call("book_reservation", args)
    assert outcome.error is None
    assert outcome.result["reservation_id"] == "HATHAT"
    assert outcome.result["created_at"] == "2024-05-15T15:00:00"
    after = export_tau2(database)
    for ref in args["flights"]:
        before_seats = initial["flights"][ref["flight_number"]]["dates"][ref["date"]][
            "available_seats"
        ]
        now_seats = after["flights"][ref["flight_number"]]["dates"][ref["date"]]["available_seats"]
        assert now_seats[args["cabin"]] == before_seats[args["cabin"]] - len(args["passengers"])
    user = args["user_id"]
    for payment in args["payment_methods"]:
        was = initial["users"][user]["payment_methods"][payment["payment_id"]]["amount"]
        assert after["users"][user]["payment_methods"][payment["payment_id"]][
            "amount"
        ] == pytest.approx(was - payment["amount"])
    assert after["users"][user]["reservations"][-1] == "HATHAT"
    database.close()


def test_three_bookings_take_hathat_hathau_hathav(tau2_reference, tmp_path) -> None:
    _, _, tasks = tau2_reference
    database = tau2_reference.fresh(tmp_path)
    toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
    outcomes = _replay(toolbox, _actions(_task(tasks, "23")))
    booked = [o.result["reservation_id"] for o in outcomes if o.name == "book_reservation"]
    assert booked == ["HATHAT", "HATHAU", "HATHAV"]
    database.close()


def test_cancel_appends_refund_lines_and_keeps_seats(tau2_reference, tmp_path) -> None:
    _, initial, _ = tau2_reference
    database = tau2_reference.fresh(tmp_path)
    toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
    outcome = toolbox.call("cancel_reservation", {"reservation_id": "EHGLP3"})
    assert outcome.error is None
    assert outcome.result["status"] == "cancelled"
    assert outcome.result["payment_history"] == [
        {"payment_id": "credit_card_5832574", "amount": 208},
        {"payment_id": "credit_card_5832574", "amount": -208},
    ]
    after = export_tau2(database)
    assert after["flights"]["HAT156"] == initial["flights"]["HAT156"]  # no seat released
    assert after["users"]["emma_kim_9957"] == initial["users"]["emma_kim_9957"]
    tables = {c.table for c in outcome.changes}
    assert tables == {"reservation", "payment"}
    database.close()


def test_send_certificate_adds_the_first_free_certificate(tau2_reference, tmp_path) -> None:
    database = tau2_reference.fresh(tmp_path)
    toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
    first = toolbox.call("send_certificate", {"user_id": "emma_kim_9957", "amount": 150})
    second = toolbox.call("send_certificate", {"user_id": "emma_kim_9957", "amount": 50})
    assert first.result.startswith("Certificate certificate_3221322 added")
    assert "certificate_3221323" in second.result
    methods = export_tau2(database)["users"]["emma_kim_9957"]["payment_methods"]
    assert methods["certificate_3221322"] == {
        "source": "certificate",
        "id": "certificate_3221322",
        "amount": 150,
    }
    database.close()


def test_a_flight_change_refund_credits_the_gift_card(tau2_reference, tmp_path) -> None:
    """EHGLP3's cabin to economy is a charge; back to basic economy prices is a refund
    that goes to the gift card's balance."""
    _, initial, _ = tau2_reference
    database = tau2_reference.fresh(tmp_path)
    toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
    flights = [
        {"flight_number": "HAT156", "date": "2024-05-17"},
        {"flight_number": "HAT021", "date": "2024-05-17"},
    ]

    def change_cabin(cabin: str, payment_id: str):
        change = {"reservation_id": "EHGLP3", "cabin": cabin, "flights": flights}
        return toolbox.call("update_reservation_flights", {**change, "payment_id": payment_id})

    def prices(cabin: str) -> list[int]:
        days = [initial["flights"][f["flight_number"]]["dates"]["2024-05-17"] for f in flights]
        return [day["prices"][cabin] for day in days]

    up = change_cabin("economy", "credit_card_5832574")
    assert up.error is None
    economy = prices("economy")
    charge = (sum(economy) - (50 + 54)) * 2
    assert up.result["payment_history"][-1] == {
        "payment_id": "credit_card_5832574",
        "amount": charge,
    }
    down = change_cabin("basic_economy", "gift_card_9562694")
    assert down.error is None
    refund = (sum(prices("basic_economy")) - sum(economy)) * 2
    assert refund < 0  # a negative payment is money back: the name's "refund"
    assert down.result["payment_history"][-1] == {
        "payment_id": "gift_card_9562694",
        "amount": refund,
    }
    balance = export_tau2(database)["users"]["emma_kim_9957"]["payment_methods"][
        "gift_card_9562694"
    ]["amount"]
    assert balance == pytest.approx(103.0 - refund)
    database.close()
