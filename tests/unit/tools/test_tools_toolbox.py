"""The Toolbox contract: schemas, dispatch, error results, reads, writes and their
row changes, previews (world: tests/support/world.py)."""

from __future__ import annotations

import json

import pytest

from airline_agent.domain.operations import WriteRows
from airline_agent.domain.tau2 import export_tau2
from airline_agent.tools.toolbox import tool_names
from tests.support.toolbox_fixtures import toolbox

# The tool tests run on SQLite and on a real PostgreSQL server (tests/support/postgres.py).
pytestmark = pytest.mark.both_dialects

# The names come from the registry; test_tool_schemas_lean.py pins them against τ²'s.
TOOLS = set(tool_names())
WRITES = {name for name in TOOLS if name.startswith(("book", "cancel", "update", "send"))}


def test_fourteen_schemas_with_descriptions(world_db) -> None:
    tools = toolbox(world_db)
    schemas = tools.schemas()
    assert len(TOOLS) == 14
    assert {s["function"]["name"] for s in schemas} == TOOLS == set(tools.names())
    for schema in schemas:
        function = schema["function"]
        assert schema["type"] == "function" and len(function["description"]) > 30
        parameters = function["parameters"]
        # Unknown arguments are refused in code (test_errors_are_results, `pin`), not
        # advertised: issue 12 dropped `additionalProperties: false` from the schemas.
        assert parameters["type"] == "object" and "additionalProperties" not in parameters
        assert "$defs" not in json.dumps(parameters)
        for prop in parameters["properties"].values():
            assert prop.get("description") or prop.get("items"), (function["name"], prop)
    book = next(s for s in schemas if s["function"]["name"] == "book_reservation")
    props = book["function"]["parameters"]["properties"]
    assert props["cabin"]["enum"] == ["basic_economy", "economy", "business"]
    assert props["flights"]["items"]["properties"]["date"]["pattern"]


def test_is_write(world_db) -> None:
    tools = toolbox(world_db)
    assert {n for n in tools.names() if tools.is_write(n)} == WRITES
    assert not tools.is_write("no_such_tool")


def test_reads_tolerate_case_and_spaces(world_db) -> None:
    tools = toolbox(world_db)
    user = tools.call("get_user_details", {"user_id": "  Emma_Kim_9957 "})
    assert user.ok and user.result["user_id"] == "emma_kim_9957"
    assert user.result["payment_methods"]["gift_card_9562694"]["amount"] == 103.0
    assert user.result["reservations"] == ["EHGLP3"]
    reservation = tools.call("get_reservation_details", '{"reservation_id": "ehglp3"}')
    assert reservation.result["payment_history"] == [
        {"payment_id": "credit_card_5832574", "amount": 208}
    ]
    assert (
        tools.call("get_flight_status", {"flight_number": "hat021", "date": "2024-05-15"}).result
        == "delayed"
    )


def test_each_kind_of_payment_method_has_its_own_shape_in_a_profile(world_db) -> None:
    """Issue 19: a certificate (or gift card) shown shaped like a credit card (brand and
    last four, no amount) hides its value from the model. Each kind exactly as τ² has it."""
    methods = (
        toolbox(world_db)
        .call("get_user_details", {"user_id": "noah_lee_1001"})
        .result["payment_methods"]
    )
    assert methods["certificate_3333333"] == {
        "source": "certificate",
        "id": "certificate_3333333",
        "amount": 250.0,
    }
    assert methods["gift_card_2222223"] == {
        "source": "gift_card",
        "id": "gift_card_2222223",
        "amount": 60.0,
    }
    assert methods["credit_card_1111111"] == {
        "source": "credit_card",
        "id": "credit_card_1111111",
        "brand": "visa",
        "last_four": "1111",
    }


def test_a_flight_change_for_two_passengers_charges_both_differences(world_db) -> None:
    """Issue 19: the old fare is taken back for every passenger, not one. RTRIP1 (Noah and
    Mia) keeps HAT050 on the 17th (160 each) and moves HAT200 from the 19th (170 each) to
    the 20th (174 each): 2 × 4 = 8 is charged, not 2 × 334 − 330."""
    tools = toolbox(world_db, acting_user="noah_lee_1001")
    changed = tools.call(
        "update_reservation_flights",
        {
            "reservation_id": "RTRIP1",
            "cabin": "economy",
            "flights": [
                {"flight_number": "HAT050", "date": "2024-05-17"},
                {"flight_number": "HAT200", "date": "2024-05-20"},
            ],
            "payment_id": "gift_card_2222222",
        },
    )
    assert changed.ok, changed.result
    assert changed.result["payment_history"][-1] == {"payment_id": "gift_card_2222222", "amount": 8}
    card = tools.call("get_user_details", {"user_id": "noah_lee_1001"}).result["payment_methods"]
    assert card["gift_card_2222222"]["amount"] == 500.0 - 8


def test_the_user_id_the_customer_gave_and_a_lookup_confirmed_fixes_the_acting_customer(
    world_db,
) -> None:
    tools = toolbox(world_db)
    tools.conversation.customer_said("Hi, I am noah_lee_1001.")
    first = tools.call("get_user_details", {"user_id": "noah_lee_1001"})
    assert first.bound_customer == "noah_lee_1001"
    later = tools.call("get_user_details", {"user_id": "emma_kim_9957"})
    assert later.bound_customer is None
    assert tools.conversation.customer == "noah_lee_1001"


def test_search_direct_lists_only_available_flights(world_db) -> None:
    tools = toolbox(world_db)
    today = tools.call(
        "search_direct_flight", {"origin": "SEA", "destination": "JFK", "date": "2024-05-15"}
    )
    assert today.result == []  # HAT021 delayed, HAT300 flying
    found = tools.call(
        "search_direct_flight", {"origin": "SEA", "destination": "JFK", "date": "2024-05-17"}
    )
    assert [f["flight_number"] for f in found.result] == ["HAT021", "HAT300"]
    assert set(found.result[0]["prices"]) == {"basic_economy", "economy", "business"}


def test_search_onestop_second_leg_rule(world_db) -> None:
    tools = toolbox(world_db)
    pairs = tools.call(
        "search_onestop_flight", {"origin": "PHX", "destination": "JFK", "date": "2024-05-17"}
    )
    legs = [(a["flight_number"], b["flight_number"]) for a, b in pairs.result]
    # Second leg leaves after the first arrives: HAT156 (10:00) connects to HAT021 and HAT300,
    # HAT100 (15:00) to HAT021 (19:00) and HAT300 (16:00).
    assert legs == [
        ("HAT100", "HAT021"),
        ("HAT100", "HAT300"),
        ("HAT156", "HAT021"),
        ("HAT156", "HAT300"),
    ]
    # JFK → ATL arrives 09:00, ATL → SEA leaves 01:30: no same-day connection.
    overnight = tools.call(
        "search_onestop_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-17"}
    )
    assert overnight.result == []


def test_calculate_rounds_to_two_places() -> None:
    from airline_agent.domain.arithmetic import evaluate_arithmetic as calculate

    assert calculate("(100 + 50) / 7") == 21.43
    assert calculate("2 * 3") == 6.0 and isinstance(calculate("2 * 3"), float)


def test_calculate_refuses_a_result_json_cannot_carry(world_db) -> None:
    """Before, a product past the float range answered inf, which no JSON reader takes."""
    huge = "9" * 300
    called = toolbox(world_db).call("calculate", {"expression": f"{huge} * {huge}"})
    assert called.error == "INVALID_ARGUMENTS"
    assert "too large" in called.result["message"]


def test_errors_are_results(world_db) -> None:
    tools = toolbox(world_db)
    assert tools.call("nope", {}).error == "UNKNOWN_TOOL"
    bad_json = tools.call("get_user_details", "{user_id: 1")
    assert bad_json.error == "INVALID_ARGUMENTS" and bad_json.arguments is None
    assert tools.call("get_user_details", "[1, 2]").error == "INVALID_ARGUMENTS"
    missing = tools.call("get_user_details", {})
    assert "missing required argument `user_id`" in missing.result["message"]
    extra = tools.call("get_user_details", {"user_id": "x", "pin": 1})
    assert "unexpected argument `pin`" in extra.result["message"]
    wrong = tools.call(
        "update_reservation_baggages",
        {
            "reservation_id": "ECON01",
            "total_baggages": "two",
            "nonfree_baggages": 0,
            "payment_id": "x",
        },
    )
    assert "total_baggages" in wrong.result["message"]
    assert tools.call("get_user_details", {"user_id": "nobody_1"}).error == "NOT_FOUND"
    assert tools.call("calculate", {"expression": "1/0"}).error == "INVALID_ARGUMENTS"
    assert tools.call("calculate", {"expression": "__import__('os')"}).error == "INVALID_ARGUMENTS"


# Noah's ECON01 has 1 bag; 2 more at $50, paid from the $500 gift card.
TWO_PAID_BAGS_ON_ECON01 = {
    "reservation_id": "ECON01",
    "total_baggages": 3,
    "nonfree_baggages": 2,
    "payment_id": "gift_card_2222222",
}


def test_internal_errors_roll_back(world_db, monkeypatch) -> None:
    before = export_tau2(world_db)

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    # After the gift card was charged: the charge must not stay.
    monkeypatch.setattr(WriteRows, "add_payment", broken)
    tools = toolbox(world_db, guard=False)
    outcome = tools.call("update_reservation_baggages", TWO_PAID_BAGS_ON_ECON01)
    assert outcome.error == "INTERNAL_ERROR" and "disk on fire" in outcome.result["message"]
    assert export_tau2(world_db) == before


def test_bag_update_charges_and_records_changes(world_db) -> None:
    tools = toolbox(world_db, guard=False)
    outcome = tools.call("update_reservation_baggages", TWO_PAID_BAGS_ON_ECON01)
    assert outcome.ok
    assert outcome.result["payment_history"][-1] == {
        "payment_id": "gift_card_2222222",
        "amount": 100,
    }
    changed = {(c.table, c.key): c for c in outcome.changes}
    card = changed[("paymentmethod", "noah_lee_1001/gift_card_2222222")]
    assert (card.before["amount"], card.after["amount"]) == (500.0, 400.0)
    assert changed[("reservation", "ECON01")].after["total_baggages"] == 3
    assert changed[("payment", "ECON01/1")].before is None


def test_booking_takes_seats_and_uses_certificate(world_db) -> None:
    tools = toolbox(world_db, guard=False)
    outcome = tools.call(
        "book_reservation",
        {
            "user_id": "noah_lee_1001",
            "origin": "PHX",
            "destination": "JFK",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [{"flight_number": "HAT050", "date": "2024-05-16"}],
            "passengers": [
                {"first_name": "Noah", "last_name": "Lee", "dob": "1980-01-01"},
                {"first_name": "Mia", "last_name": "Lee", "dob": "1982-03-03"},
            ],
            "payment_methods": [
                {"payment_id": "certificate_3333333", "amount": 250},
                {"payment_id": "gift_card_2222223", "amount": 60},
                {"payment_id": "credit_card_1111111", "amount": 84},
            ],
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "yes",
        },
    )
    assert outcome.ok, outcome.result
    assert outcome.result["reservation_id"] == "HATHAT"
    after = export_tau2(world_db)
    assert after["flights"]["HAT050"]["dates"]["2024-05-16"]["available_seats"]["economy"] == 4 - 2
    methods = after["users"]["noah_lee_1001"]["payment_methods"]
    assert "certificate_3333333" not in methods
    assert methods["gift_card_2222223"]["amount"] == 0
    assert after["users"]["noah_lee_1001"]["reservations"][-1] == "HATHAT"


def test_a_writes_row_changes_come_in_one_order(world_db) -> None:
    # The trace, a recording and the eval's diff show a write's changed rows in this order:
    # the same write must list them the same way every time (by table, then key), not in
    # the order of the ORM's identity sets, which follows memory addresses.
    tools = toolbox(world_db, guard=False)
    outcome = tools.call(
        "book_reservation",
        {
            "user_id": "noah_lee_1001",
            "origin": "PHX",
            "destination": "JFK",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [{"flight_number": "HAT050", "date": "2024-05-16"}],
            "passengers": [
                {"first_name": "Noah", "last_name": "Lee", "dob": "1980-01-01"},
                {"first_name": "Mia", "last_name": "Lee", "dob": "1982-03-03"},
                {"first_name": "Ada", "last_name": "Lee", "dob": "2010-03-03"},
            ],
            "payment_methods": [
                {"payment_id": "certificate_3333333", "amount": 250},
                {"payment_id": "gift_card_2222223", "amount": 60},
                {"payment_id": "credit_card_1111111", "amount": 281},
            ],
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "yes",
        },
    )
    assert outcome.ok, outcome.result
    slots = [(change.table, change.key) for change in outcome.changes]
    assert len(slots) >= 8
    assert slots == sorted(slots)


def test_a_failed_write_changes_nothing(world_db) -> None:
    before = export_tau2(world_db)
    tools = toolbox(world_db, guard=False)
    outcome = tools.call(
        "update_reservation_flights",
        {
            "reservation_id": "ECON01",
            "cabin": "business",
            "flights": [
                {"flight_number": "HAT156", "date": "2024-05-18"},
                {"flight_number": "HAT021", "date": "2024-05-18"},
            ],
            "payment_id": "gift_card_2222223",
        },
    )
    assert outcome.error == "CONFLICT" and "balance" in outcome.result["message"]
    assert outcome.changes == ()
    assert export_tau2(world_db) == before


def test_preview_says_what_would_change_and_writes_nothing(world_db) -> None:
    before = export_tau2(world_db)
    tools = toolbox(world_db, acting_user="noah_lee_1001")
    text = tools.preview("cancel_reservation", {"reservation_id": "BIZ001"})
    assert "refund $400 to gift_card_2222222" in text
    # An active booking's status is null in τ²'s data: said "active", never None (issue 19
    # item 19).
    assert "status active → cancelled" in text and "None" not in text
    refused = tools.preview("cancel_reservation", {"reservation_id": "RTRIP1"})
    assert "X3" in refused
    assert "only reads" in tools.preview("get_user_details", {"user_id": "x"})
    assert "rejected" in tools.preview("cancel_reservation", {})
    assert export_tau2(world_db) == before
