"""For each rule the guard enforces: one call it allows and one it refuses (world:
tests/support/world.py, clock 2024-05-15T15:00)."""

from __future__ import annotations

import pytest

from airline_agent.domain.clock import Clock
from airline_agent.domain.tau2 import export_tau2
from tests.support.toolbox_fixtures import toolbox

# The guard decides on rows read in the write's transaction: on SQLite and, with row locks,
# on a real PostgreSQL server (tests/support/postgres.py).
pytestmark = pytest.mark.both_dialects

NOAH, EMMA, SOFIA = "noah_lee_1001", "emma_kim_9957", "sofia_ruiz_2002"


def _booking(**changes) -> dict:
    booking = {
        "user_id": NOAH,
        "origin": "PHX",
        "destination": "JFK",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT050", "date": "2024-05-16"}],
        "passengers": [{"first_name": "Noah", "last_name": "Lee", "dob": "1980-01-01"}],
        "payment_methods": [{"payment_id": "credit_card_1111111", "amount": 167}],
        "total_baggages": 1,
        "nonfree_baggages": 0,
        "insurance": "no",
    }
    booking.update(changes)
    return booking


def _refused(outcome, rule: str) -> None:
    assert outcome.error == "POLICY_VIOLATION", outcome.result
    assert outcome.result["rule"] == rule, outcome.result
    assert outcome.result["message"]


def _allowed(outcome) -> None:
    assert outcome.error is None, outcome.result


# ---------------------------------------------------------------- identity (I1, I2)


def test_i1_no_identified_customer_is_refused_until_one_is_looked_up(world_db) -> None:
    tools = toolbox(world_db)
    refused = tools.call("book_reservation", _booking())
    assert refused.error == "PERMISSION_DENIED"
    assert "get_user_details" in refused.result["message"]
    tools.conversation.customer_said(f"My user id is {NOAH}.")
    assert tools.call("get_user_details", {"user_id": NOAH}).ok
    _allowed(tools.call("book_reservation", _booking()))


def test_i1_a_lookup_of_an_id_the_customer_did_not_give_binds_nobody(world_db) -> None:
    tools = toolbox(world_db)
    tools.conversation.customer_said("Hello, I am Emma.")
    looked_up = tools.call("get_user_details", {"user_id": NOAH})
    assert looked_up.ok and looked_up.bound_customer is None
    assert tools.call("book_reservation", _booking()).error == "PERMISSION_DENIED"


def test_privacy_an_agent_looks_up_only_a_user_id_the_customer_gave(world_db) -> None:
    tools = toolbox(world_db)
    tools.conversation.hears_customer = True
    tools.conversation.customer_said("Hello, I am Emma Kim.")
    denied = tools.call("get_user_details", {"user_id": EMMA})
    assert denied.error == "PERMISSION_DENIED"
    assert denied.result["message"] == (
        f"the customer has not given the user id {EMMA!r} in this conversation: ask for "
        "their user id before looking up a profile"
    )
    tools.conversation.customer_said("It is Emma_Kim 9957.")
    assert tools.call("get_user_details", {"user_id": EMMA}).ok


def test_privacy_an_agent_reads_a_reservation_only_once_the_customer_gave_its_owners_user_id(
    world_db,
) -> None:
    """Issue 19 §4: a reservation holds passenger names, dates of birth and payment ids,
    as private as a profile. Before anyone is bound, the agent reads one only when the
    customer has given the user id of its owner; an unknown id is refused alike (no
    telling which ids exist)."""
    tools = toolbox(world_db)
    tools.conversation.hears_customer = True
    refusal = (
        "the customer has not given the user id of the owner of reservation {} in this "
        "conversation: ask for their user id before looking up a reservation"
    )
    for said in ("hi", "Hello, I am Emma Kim."):  # a greeting, then only a name
        tools.conversation.customer_said(said)
        for asked, shown in (("EHGLP3", "EHGLP3"), (" ehglp3", "EHGLP3"), ("ZZZ999", "ZZZ999")):
            denied = tools.call("get_reservation_details", {"reservation_id": asked})
            assert denied.error == "PERMISSION_DENIED", denied.result
            assert denied.result["message"] == refusal.format(shown)
            for private in ("Evelyn", "Taylor", "1965-01-16", "credit_card_5832574"):
                assert private not in denied.content()
    tools.conversation.customer_said("My user id is emma_kim_9957.")
    allowed = tools.call("get_reservation_details", {"reservation_id": "EHGLP3"})
    assert allowed.ok and allowed.result["user_id"] == EMMA
    assert allowed.bound_customer is None  # only a profile looked up binds (I1)
    # Giving one user id opens that customer's reservations, not another's.
    denied = tools.call("get_reservation_details", {"reservation_id": "ECON01"})
    assert denied.error == "PERMISSION_DENIED"
    assert denied.result["message"] == refusal.format("ECON01")


def test_privacy_an_operators_one_off_call_reads_any_reservation(world_db) -> None:
    """`call get_reservation_details` without `--as`: nobody talks, nothing to give."""
    tools = toolbox(world_db)
    assert not tools.conversation.hears_customer
    assert tools.call("get_reservation_details", {"reservation_id": "EHGLP3"}).ok


def test_privacy_a_bound_conversation_reads_only_its_customers_records(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    profile = tools.call("get_user_details", {"user_id": EMMA})
    assert profile.result["message"] == (
        f"this conversation acts for {NOAH}; the profile of another customer is private"
    )
    reservation = tools.call("get_reservation_details", {"reservation_id": " ehglp3"})
    assert reservation.result["message"] == (
        f"reservation EHGLP3 belongs to another customer; this conversation acts for {NOAH}"
    )
    assert tools.call("get_user_details", {"user_id": NOAH}).ok
    assert tools.call("get_reservation_details", {"reservation_id": "ECON01"}).ok


def test_i1_booking_for_another_customer_is_denied(world_db) -> None:
    tools = toolbox(world_db, acting_user=EMMA)
    assert tools.call("book_reservation", _booking()).error == "PERMISSION_DENIED"


def test_i2_only_the_owner_changes_a_reservation(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    denied = tools.call("cancel_reservation", {"reservation_id": "ehglp3"})
    assert denied.error == "PERMISSION_DENIED"
    _allowed(tools.call("cancel_reservation", {"reservation_id": "NEW001"}))


def test_i2_the_owner_check_folds_the_case_of_the_reservation_id(world_db) -> None:
    """A second, independent check of I2 with an id in another case: a bag change on
    Noah's ECON01 asked for as 'Econ01' by Emma's conversation is denied and changes nothing."""
    before = export_tau2(world_db)
    tools = toolbox(world_db, acting_user=EMMA)
    bags = {"total_baggages": 3, "nonfree_baggages": 2, "payment_id": "credit_card_5832574"}
    for spelling in ("Econ01", " econ01 "):
        denied = tools.call("update_reservation_baggages", {"reservation_id": spelling, **bags})
        assert denied.error == "PERMISSION_DENIED", denied.result
        assert "ECON01 belongs to another customer" in denied.result["message"]
    assert export_tau2(world_db) == before


def test_i1_a_refusal_names_the_two_customers(world_db) -> None:
    refused = toolbox(world_db, acting_user=EMMA).call("book_reservation", _booking())
    assert refused.result["message"] == (
        f"this conversation acts for {EMMA}; it cannot act on the profile of {NOAH}"
    )


# One call per kind of check the guard makes, each refused with the guard on and not by
# the operation itself: identity (I1, I2), booking (B5), changes (M1, M5), cancellation
# (X2, X3), compensation (P3). (M7's certificate is refused by the operation too.)
_GUARDED_CALLS = [
    pytest.param("I1", None, "cancel_reservation", {"reservation_id": "FLOWN1"}, id="I1-nobody"),
    pytest.param("I1", EMMA, "book_reservation", _booking(), id="I1-another-profile"),
    pytest.param(
        "I2", NOAH, "cancel_reservation", {"reservation_id": "EHGLP3"}, id="I2-another-booking"
    ),
    pytest.param("B5", NOAH, "book_reservation", _booking(total_baggages=2), id="B5-bags"),
    pytest.param(
        "M1",
        EMMA,
        "update_reservation_flights",
        {
            "reservation_id": "EHGLP3",
            "cabin": "basic_economy",
            "flights": [
                {"flight_number": "HAT156", "date": "2024-05-18"},
                {"flight_number": "HAT021", "date": "2024-05-18"},
            ],
            "payment_id": "credit_card_5832574",
        },
        id="M1-basic-economy-flights",
    ),
    pytest.param(
        "M5",
        NOAH,
        "update_reservation_baggages",
        {
            "reservation_id": "ECON01",
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "payment_id": "credit_card_1111111",
        },
        id="M5-fewer-bags",
    ),
    pytest.param("X2", SOFIA, "cancel_reservation", {"reservation_id": "FLOWN1"}, id="X2-flown"),
    pytest.param("X3", NOAH, "cancel_reservation", {"reservation_id": "RTRIP1"}, id="X3-old"),
    pytest.param(
        "P3",
        SOFIA,
        "send_certificate",
        {"user_id": SOFIA, "reservation_id": "CXLD01", "reason": "cancelled_flight", "amount": 150},
        id="P3-over-100-per-passenger",
    ),
]


@pytest.mark.parametrize(("rule", "acting_user", "name", "arguments"), _GUARDED_CALLS)
def test_with_the_guard_off_nothing_is_checked(
    world_db, rule, acting_user, name, arguments
) -> None:
    refused = toolbox(world_db, acting_user=acting_user).call(name, arguments)
    if rule.startswith("I"):  # identity: a permission, not a policy rule
        assert refused.error == "PERMISSION_DENIED", refused.result
    else:
        _refused(refused, rule)
    _allowed(toolbox(world_db, guard=False, acting_user=acting_user).call(name, arguments))


# ---------------------------------------------------------------- booking (B1–B5)


def test_b1_only_available_flights(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    delayed = _booking(flights=[{"flight_number": "HAT021", "date": "2024-05-15"}])
    _refused(tools.call("book_reservation", delayed), "B1")
    _allowed(tools.call("book_reservation", _booking()))


def test_b1_a_refusal_names_the_flight_and_date(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    delayed = _booking(flights=[{"flight_number": "HAT021", "date": "2024-05-15"}])
    refused = tools.call("book_reservation", delayed)
    assert refused.result["message"] == "flight HAT021 on 2024-05-15 is delayed, not available"


def test_b2_cabin_is_one_of_three(world_db) -> None:
    from airline_agent.domain import policy
    from airline_agent.domain.errors import PolicyViolation

    tools = toolbox(world_db, acting_user=NOAH)
    # The schema's enum already refuses a fourth cabin before the guard runs.
    assert tools.call("book_reservation", _booking(cabin="first")).error == "INVALID_ARGUMENTS"
    with pytest.raises(PolicyViolation) as refused:
        policy.check_cabin("premium")
    assert refused.value.rule == "B2"
    policy.check_cabin("basic_economy")


def test_b3_at_most_five_passengers(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    person = {"first_name": "A", "last_name": "B", "dob": "1990-01-01"}
    _refused(tools.call("book_reservation", _booking(passengers=[person] * 6)), "B3")
    _allowed(tools.call("book_reservation", _booking()))


def test_b4_payment_mix(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    two_certificates = _booking(
        payment_methods=[
            {"payment_id": "certificate_3333333", "amount": 100},
            {"payment_id": "certificate_4444444", "amount": 67},
        ]
    )
    _refused(tools.call("book_reservation", two_certificates), "B4")
    mixed = _booking(
        payment_methods=[
            {"payment_id": "certificate_4444444", "amount": 100},
            {"payment_id": "credit_card_1111111", "amount": 67},
        ]
    )
    _allowed(tools.call("book_reservation", mixed))


def test_b5_nonfree_bags_follow_the_allowance(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    # Regular member in economy: 1 free bag per passenger, so 2 bags = 1 paid.
    _refused(tools.call("book_reservation", _booking(total_baggages=2)), "B5")
    paid = _booking(
        total_baggages=2,
        nonfree_baggages=1,
        payment_methods=[{"payment_id": "credit_card_1111111", "amount": 217}],
    )
    _allowed(tools.call("book_reservation", paid))


def test_b5_a_bag_change_s_nonfree_bags_follow_the_allowance(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    # ECON01: Noah alone, economy, 1 bag; 3 bags = 2 paid.
    change = {
        "reservation_id": "ECON01",
        "total_baggages": 3,
        "nonfree_baggages": 1,
        "payment_id": "credit_card_1111111",
    }
    refused = tools.call("update_reservation_baggages", change)
    _refused(refused, "B5")
    assert "means 2 non-free, not 1" in refused.result["message"]
    _allowed(tools.call("update_reservation_baggages", {**change, "nonfree_baggages": 2}))


# ---------------------------------------------------------------- changes (M1–M7)

ECON01_FLIGHTS = [
    {"flight_number": "HAT156", "date": "2024-05-18"},
    {"flight_number": "HAT021", "date": "2024-05-18"},
]


def _change_flights(tools, reservation: str, cabin: str, flights: list, payment: str):
    """The outcome of update_reservation_flights with these arguments."""
    change = {"reservation_id": reservation, "cabin": cabin, "flights": flights}
    return tools.call("update_reservation_flights", {**change, "payment_id": payment})


def test_m1_basic_economy_flights_cannot_change(world_db) -> None:
    tools = toolbox(world_db, acting_user=EMMA)
    other_day = [
        {"flight_number": "HAT156", "date": "2024-05-18"},
        {"flight_number": "HAT021", "date": "2024-05-18"},
    ]
    _refused(
        _change_flights(tools, "EHGLP3", "basic_economy", other_day, "credit_card_5832574"), "M1"
    )
    same = [
        {"flight_number": "HAT156", "date": "2024-05-17"},
        {"flight_number": "HAT021", "date": "2024-05-17"},
    ]
    # M4: a cabin upgrade of the same flights is allowed, basic economy too.
    _allowed(_change_flights(tools, "EHGLP3", "economy", same, "credit_card_5832574"))


def test_m2_origin_and_destination_stay(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    to_seattle = [{"flight_number": "HAT100", "date": "2024-05-18"}]
    _refused(
        _change_flights(tools, "ECON01", "economy", to_seattle, "credit_card_1111111"),
        "M2",
    )
    direct = [{"flight_number": "HAT050", "date": "2024-05-18"}]
    _allowed(_change_flights(tools, "ECON01", "economy", direct, "credit_card_1111111"))


def test_m4_cabin_change_not_after_flying_but_of_the_same_flights(world_db) -> None:
    tools = toolbox(world_db, acting_user=SOFIA)
    flown = [
        {"flight_number": "HAT200", "date": "2024-05-14"},
        {"flight_number": "HAT050", "date": "2024-05-18"},
    ]
    _refused(
        _change_flights(tools, "FLOWN1", "business", flown, "credit_card_5555555"),
        "M4",
    )
    noah = toolbox(world_db, acting_user=NOAH)
    _allowed(_change_flights(noah, "ECON01", "business", ECON01_FLIGHTS, "credit_card_1111111"))


# M4 (τ²-bench's airline policy): a call that changes the cabin and the flights together is judged
# as a flight change of the new cabin (τ² tasks 15 and 16 do so on M05KNL).
EHGLP3_NEXT_DAY = [
    {"flight_number": "HAT156", "date": "2024-05-18"},
    {"flight_number": "HAT021", "date": "2024-05-18"},
]


def test_m4_basic_economy_to_economy_with_new_flights_is_allowed(world_db) -> None:
    tools = toolbox(world_db, acting_user=EMMA)
    changed = _change_flights(tools, "EHGLP3", "economy", EHGLP3_NEXT_DAY, "credit_card_5832574")
    _allowed(changed)
    assert changed.result["cabin"] == "economy"
    assert [(f["flight_number"], f["date"]) for f in changed.result["flights"]] == [
        ("HAT156", "2024-05-18"),
        ("HAT021", "2024-05-18"),
    ]


def test_m4_staying_basic_economy_with_new_flights_is_still_m1(world_db) -> None:
    before = export_tau2(world_db)
    tools = toolbox(world_db, acting_user=EMMA)
    refused = _change_flights(
        tools, "EHGLP3", "basic_economy", EHGLP3_NEXT_DAY, "credit_card_5832574"
    )
    _refused(refused, "M1")
    assert "basic economy" in refused.result["message"]
    assert export_tau2(world_db) == before


def test_m4_to_basic_economy_with_new_flights_is_a_basic_economy_flight_change(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    direct = [{"flight_number": "HAT050", "date": "2024-05-18"}]
    refused = _change_flights(tools, "ECON01", "basic_economy", direct, "credit_card_1111111")
    _refused(refused, "M1")
    assert "new cabin" in refused.result["message"]


def test_m4_economy_to_business_with_new_flights_is_an_economy_flight_change(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    to_seattle = [{"flight_number": "HAT100", "date": "2024-05-18"}]
    _refused(_change_flights(tools, "ECON01", "business", to_seattle, "credit_card_1111111"), "M2")
    direct = [{"flight_number": "HAT050", "date": "2024-05-18"}]
    changed = _change_flights(tools, "ECON01", "business", direct, "credit_card_1111111")
    _allowed(changed)
    assert changed.result["cabin"] == "business"


def test_m4_a_combined_change_after_a_flown_segment_is_refused(world_db) -> None:
    tools = toolbox(world_db, acting_user=SOFIA)
    later = [
        {"flight_number": "HAT200", "date": "2024-05-14"},
        {"flight_number": "HAT050", "date": "2024-05-19"},
    ]
    _refused(_change_flights(tools, "FLOWN1", "business", later, "credit_card_5555555"), "M4")


def test_m5_bags_only_added(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    fewer = {
        "reservation_id": "ECON01",
        "total_baggages": 0,
        "nonfree_baggages": 0,
        "payment_id": "credit_card_1111111",
    }
    _refused(tools.call("update_reservation_baggages", fewer), "M5")
    more = {**fewer, "total_baggages": 2, "nonfree_baggages": 1}
    _allowed(tools.call("update_reservation_baggages", more))


def test_m6_passenger_count_stays(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    one = [{"first_name": "Noah", "last_name": "Lee", "dob": "1980-01-01"}]
    _refused(
        tools.call(
            "update_reservation_passengers", {"reservation_id": "RTRIP1", "passengers": one}
        ),
        "M6",
    )
    two = [*one, {"first_name": "Maya", "last_name": "Lee", "dob": "1982-03-03"}]
    _allowed(
        tools.call("update_reservation_passengers", {"reservation_id": "RTRIP1", "passengers": two})
    )


def test_m7_no_certificate_for_a_change(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    direct = [{"flight_number": "HAT050", "date": "2024-05-18"}]
    _refused(
        _change_flights(tools, "ECON01", "economy", direct, "certificate_3333333"),
        "M7",
    )
    _allowed(_change_flights(tools, "ECON01", "economy", direct, "gift_card_2222222"))


def test_b1_a_flight_change_checks_the_new_flights_only(world_db) -> None:
    """ECON01 keeps HAT156 on 05-18 and takes HAT300, cancelled that day: B1 names it."""
    tools = toolbox(world_db, acting_user=NOAH)
    onto_cancelled = [
        {"flight_number": "HAT156", "date": "2024-05-18"},
        {"flight_number": "HAT300", "date": "2024-05-18"},
    ]
    refused = _change_flights(tools, "ECON01", "economy", onto_cancelled, "credit_card_1111111")
    _refused(refused, "B1")
    assert refused.result["message"] == "flight HAT300 on 2024-05-18 is cancelled, not available"


def test_b1_a_kept_segment_need_not_be_bookable_any_more(world_db) -> None:
    """FLOWN1 keeps its landed HAT200 of 05-14 and moves its return a day: allowed."""
    tools = toolbox(world_db, acting_user=SOFIA)
    return_later = [
        {"flight_number": "HAT200", "date": "2024-05-14"},
        {"flight_number": "HAT050", "date": "2024-05-19"},
    ]
    _allowed(_change_flights(tools, "FLOWN1", "economy", return_later, "credit_card_5555555"))


def test_m7_an_unknown_payment_method_is_named(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    direct = [{"flight_number": "HAT050", "date": "2024-05-18"}]
    refused = _change_flights(tools, "ECON01", "economy", direct, "gift_card_0000000")
    _refused(refused, "M7")
    assert refused.result["message"] == (
        "payment method gift_card_0000000 is not in the customer's profile"
    )


# ---------------------------------------------------------------- cancellation (X2, X3)


def test_x2_nothing_flown(world_db) -> None:
    tools = toolbox(world_db, acting_user=SOFIA)
    _refused(tools.call("cancel_reservation", {"reservation_id": "FLOWN1"}), "X2")
    _allowed(tools.call("cancel_reservation", {"reservation_id": "CXLD01"}))  # airline cancelled


def test_x3_asks_for_the_reason_of_an_insured_cancellation(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    asked = tools.call("cancel_reservation", {"reservation_id": "ECON01"})
    _refused(asked, "X3")
    assert "reason" in asked.result["message"]
    _refused(
        tools.call("cancel_reservation", {"reservation_id": "ECON01", "reason": "change_of_plan"}),
        "X3",
    )
    _allowed(tools.call("cancel_reservation", {"reservation_id": "ECON01", "reason": "weather"}))


def test_x3_old_uninsured_economy_cannot_cancel_but_business_and_recent_can(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    _refused(tools.call("cancel_reservation", {"reservation_id": "RTRIP1"}), "X3")
    _allowed(tools.call("cancel_reservation", {"reservation_id": "BIZ001"}))
    _allowed(tools.call("cancel_reservation", {"reservation_id": "NEW001"}))


# X3's 24-hour window: NEW001 (economy, uninsured, regular member) was booked
# 2024-05-15T10:00:00; only its age can make it cancellable.
@pytest.mark.parametrize(
    ("now", "allowed"),
    [("2024-05-16T10:00:00", True), ("2024-05-16T10:00:01", False)],
    ids=["exactly-24h", "24h-and-1s"],
)
def test_x3_the_24_hour_window_includes_its_last_second(world_db, now, allowed) -> None:
    tools = toolbox(world_db, acting_user=NOAH, clock=Clock.at(now))
    outcome = tools.call("cancel_reservation", {"reservation_id": "NEW001"})
    if allowed:
        _allowed(outcome)
    else:
        _refused(outcome, "X3")


def test_c5_a_cancelled_reservation_cannot_change(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    _allowed(tools.call("cancel_reservation", {"reservation_id": "BIZ001"}))
    _refused(tools.call("cancel_reservation", {"reservation_id": "BIZ001"}), "C5")


# ---------------------------------------------------------------- compensation (P2–P4)


def test_p2_regular_uninsured_economy_gets_nothing(world_db) -> None:
    tools = toolbox(world_db, acting_user=NOAH)
    asked = tools.call("send_certificate", {"user_id": NOAH, "amount": 100})
    _refused(asked, "P2")
    assert "reservation_id" in asked.result["message"]
    _refused(
        tools.call(
            "send_certificate",
            {
                "user_id": NOAH,
                "amount": 100,
                "reservation_id": "RTRIP1",
                "reason": "delayed_flight",
            },
        ),
        "P2",
    )
    # Business passengers qualify (BIZ001's flight is not cancelled, so P3 refuses).
    _refused(
        tools.call(
            "send_certificate",
            {
                "user_id": NOAH,
                "amount": 100,
                "reservation_id": "BIZ001",
                "reason": "cancelled_flight",
            },
        ),
        "P3",
    )


def test_p3_cancelled_flight_is_100_per_passenger(world_db) -> None:
    tools = toolbox(world_db, acting_user=SOFIA)
    ask = {"user_id": SOFIA, "reservation_id": "CXLD01", "reason": "cancelled_flight"}
    _refused(tools.call("send_certificate", {**ask, "amount": 150}), "P3")
    _allowed(tools.call("send_certificate", {**ask, "amount": 100}))
    methods = export_tau2(world_db)["users"][SOFIA]["payment_methods"]
    assert methods["certificate_3221322"]["amount"] == 100


def test_p4_delay_compensation_only_after_a_change(world_db) -> None:
    tools = toolbox(world_db, acting_user=SOFIA)
    ask = {"user_id": SOFIA, "reservation_id": "DELAY1", "reason": "delayed_flight", "amount": 100}
    _refused(tools.call("send_certificate", ask), "P4")
    later = [{"flight_number": "HAT300", "date": "2024-05-16"}]
    _allowed(_change_flights(tools, "DELAY1", "economy", later, "credit_card_5555555"))
    _refused(tools.call("send_certificate", {**ask, "amount": 150}), "P4")
    _allowed(tools.call("send_certificate", ask))


def test_p4_a_reservation_cancelled_before_this_session_counts_as_cancelled(world_db) -> None:
    """DELAY1 (two passengers, a delayed flight) was cancelled in an earlier session: the
    delay compensation is due now, though nothing changed in this one."""
    earlier = toolbox(world_db, guard=False)
    _allowed(earlier.call("cancel_reservation", {"reservation_id": "DELAY1"}))
    tools = toolbox(world_db, acting_user=SOFIA)
    ask = {"user_id": SOFIA, "reservation_id": "DELAY1", "reason": "delayed_flight"}
    _allowed(tools.call("send_certificate", {**ask, "amount": 100}))


def test_p2_a_reservation_that_is_not_the_customers_is_named(world_db) -> None:
    tools = toolbox(world_db, acting_user=SOFIA)
    ask = {"user_id": SOFIA, "reservation_id": "ZZZ999", "reason": "cancelled_flight"}
    denied = tools.call("send_certificate", {**ask, "amount": 100})
    assert denied.error == "PERMISSION_DENIED"
    assert denied.result["message"] == f"reservation ZZZ999 is not one of {SOFIA}'s reservations"


def test_a_refusal_changes_nothing(world_db) -> None:
    before = export_tau2(world_db)
    tools = toolbox(world_db, acting_user=NOAH)
    _refused(tools.call("cancel_reservation", {"reservation_id": "RTRIP1"}), "X3")
    assert export_tau2(world_db) == before
