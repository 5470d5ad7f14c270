"""The rules as pure functions (domain/policy.py), case by case: each refusal's rule id and
its exact words, since the model reads them to explain the refusal to the customer.

The guard's tests (test_guard.py) show the same rules through the tools; these pin the
boundaries and the wording that the mutation profile (docs/mutation.md) found unpinned.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from airline_agent.domain import policy
from airline_agent.domain.errors import PolicyViolation
from airline_agent.domain.operations import PassengerDetails
from airline_agent.domain.policy import SegmentFacts
from airline_agent.domain.schema import PaymentMethod, Reservation, ReservationFlight

NOW = datetime.fromisoformat("2024-05-15T15:00:00")


def refusal(check: Callable[..., None], *args: Any) -> tuple[str, str]:
    """The rule id and the words of the PolicyViolation `check(*args)` raises."""
    with pytest.raises(PolicyViolation) as raised:
        check(*args)
    assert str(raised.value) == f"{raised.value.rule}: {raised.value.why}"
    return raised.value.rule, raised.value.why


def reservation(**changes: Any) -> Reservation:
    """A one-way economy PHX → JFK via SEA (SEGMENTS) for two, uninsured, booked 2024-05-01."""
    base: dict[str, Any] = {
        "reservation_id": "ABC123",
        "user_id": "ana_silva_1000",
        "origin": "PHX",
        "destination": "JFK",
        "flight_type": "one_way",
        "cabin": "economy",
        "created_at": "2024-05-01T10:00:00",
        "insurance": "no",
        "total_baggages": 2,
        "nonfree_baggages": 1,
    }
    base.update(changes)
    return Reservation(**base)


def _segment(position: int, number: str, origin: str, destination: str) -> ReservationFlight:
    return ReservationFlight(
        reservation_id="ABC123",
        position=position,
        flight_number=number,
        date="2024-05-20",
        origin=origin,
        destination=destination,
        price=100,
    )


SEGMENTS = [_segment(0, "HAT156", "PHX", "SEA"), _segment(1, "HAT021", "SEA", "JFK")]
PASSENGERS = 2  # of `reservation()`


def leg(number: str, origin: str, destination: str, date: str = "2024-05-21") -> SegmentFacts:
    return SegmentFacts(number, date, origin, destination, "08:00:00", "available")


def _change(res: Reservation, cabin: str, flights: list[SegmentFacts], flown: bool) -> None:
    policy.check_flight_change(res, SEGMENTS, cabin, flights, flown)


# ---------------------------------------------------------------- prices (B5, B6)


@pytest.mark.parametrize(
    ("membership", "cabin", "free"),
    [
        ("regular", "basic_economy", 0),
        ("regular", "economy", 1),
        ("regular", "business", 2),
        ("silver", "basic_economy", 1),
        ("silver", "economy", 2),
        ("silver", "business", 3),
        ("gold", "basic_economy", 2),
        ("gold", "economy", 3),
        ("gold", "business", 4),
        ("platinum", "economy", 1),  # an unknown membership counts as regular
        ("gold", "first", 0),  # an unknown cabin has no allowance
    ],
)
def test_b5_free_bags_per_passenger(membership: str, cabin: str, free: int) -> None:
    assert policy.free_bags(membership, cabin) == free


def test_b5_nonfree_bags_are_those_beyond_the_allowance_of_all_passengers() -> None:
    assert policy.nonfree_bags("silver", "economy", 2, 5) == 1  # 2 × 2 free
    assert policy.nonfree_bags("silver", "economy", 2, 4) == 0
    assert policy.nonfree_bags("silver", "economy", 2, 3) == 0  # never negative
    assert policy.bag_price(3) == 150
    assert policy.bag_price(0) == 0


def test_b6_insurance_is_30_per_passenger_when_taken() -> None:
    assert policy.insurance_price("yes", 3) == 90
    assert policy.insurance_price("no", 3) == 0


# ---------------------------------------------------------------- has a segment flown?


def test_departure_is_the_segment_date_at_the_scheduled_time() -> None:
    assert policy.departure("2024-05-16", "07:30:00") == datetime(2024, 5, 16, 7, 30)
    assert policy.departure("2024-05-16", None) == datetime(2024, 5, 16)
    assert policy.departure("2024-13-40", "07:30:00") is None


@pytest.mark.parametrize(
    ("status", "departs", "flown"),
    [
        ("flying", "2024-05-20T08:00:00", True),
        ("landed", "2024-05-20T08:00:00", True),
        ("available", "2024-05-15T15:00:00", True),  # departing this very second
        ("available", "2024-05-15T15:00:01", False),
        ("on time", "2024-05-15T14:00:00", True),  # past by the clock
        ("cancelled", "2024-05-14T08:00:00", False),  # the airline cancelled it: never flew
        ("delayed", "2024-05-16T08:00:00", False),
    ],
)
def test_a_segment_has_flown_by_its_status_or_by_the_clock(
    status: str, departs: str, flown: bool
) -> None:
    date, time = departs.split("T")
    later = _day("2024-05-25", "available", "08:00:00")
    assert policy.has_flown([_day(date, status, time), later], NOW) is flown


def _day(date: str, status: str | None, departure_time: str | None) -> SegmentFacts:
    return SegmentFacts("HAT001", date, "PHX", "JFK", departure_time, status)


def test_a_segment_with_an_unreadable_date_is_not_counted_as_flown() -> None:
    assert policy.has_flown([_day("someday", "available", "08:00:00")], NOW) is False


def test_a_cancelled_segment_does_not_hide_a_flown_one_after_it() -> None:
    segments = [_day("2024-05-14", "cancelled", "08:00:00"), _day("2024-05-15", "landed", None)]
    assert policy.has_flown(segments, NOW)


# ---------------------------------------------------------------- booking (B1–B5)


def test_b1_only_available_flights() -> None:
    policy.check_bookable("HAT001", "2024-05-16", "available")
    assert refusal(policy.check_bookable, "HAT001", "2024-05-16", "delayed") == (
        "B1",
        "flight HAT001 on 2024-05-16 is delayed, not available",
    )
    assert refusal(policy.check_bookable, "HAT001", "2024-05-16", None) == (
        "B1",
        "flight HAT001 on 2024-05-16 is not scheduled, not available",
    )


def test_b2_cabin_is_one_of_three() -> None:
    for cabin in policy.CABINS:
        policy.check_cabin(cabin)
    assert refusal(policy.check_cabin, "first") == (
        "B2",
        "cabin must be one of basic_economy, economy, business",
    )


PERSON = PassengerDetails("Ana", "Silva", "1990-01-01")


def test_b3_one_to_five_complete_passengers() -> None:
    policy.check_passengers([PERSON] * 5)
    assert refusal(policy.check_passengers, []) == (
        "B3",
        "a reservation needs at least one passenger",
    )
    assert refusal(policy.check_passengers, [PERSON] * 6) == (
        "B3",
        "at most 5 passengers per reservation, 6 given",
    )
    incomplete = [PERSON, PassengerDetails("Leo", " ", "")]
    assert refusal(policy.check_passengers, incomplete) == (
        "B3",
        "passenger 2 has no last_name, dob",
    )
    assert refusal(policy.check_passengers, [PassengerDetails("", "Silva", "1990-01-01")]) == (
        "B3",
        "passenger 1 has no first_name",
    )


def _method(position: int, payment_id: str) -> PaymentMethod:
    source = payment_id.rsplit("_", 1)[0]
    return PaymentMethod(user_id="u", payment_id=payment_id, position=position, source=source)


PROFILE = {
    payment_id: _method(position, payment_id)
    for position, payment_id in enumerate(
        ["credit_card_1", "credit_card_2", "certificate_1", "certificate_2"]
        + [f"gift_card_{n}" for n in range(1, 5)]
    )
}


def _lines(*payment_ids: str) -> list[str]:
    return list(payment_ids)


def test_b4_payment_mix_and_profile() -> None:
    most = _lines("certificate_1", "credit_card_1", "gift_card_1", "gift_card_2", "gift_card_3")
    policy.check_payment_mix(most, PROFILE)
    assert refusal(policy.check_payment_mix, _lines("paypal_9"), PROFILE) == (
        "B4",
        "payment method paypal_9 is not in the customer's profile",
    )
    cases = {
        ("certificate_1", "certificate_2"): "at most 1 certificate(s) per booking, 2 given",
        ("credit_card_1", "credit_card_2"): "at most 1 credit card(s) per booking, 2 given",
        tuple(f"gift_card_{n}" for n in range(1, 5)): "at most 3 gift card(s) per booking, 4 given",
    }
    for payment_ids, why in cases.items():
        assert refusal(policy.check_payment_mix, _lines(*payment_ids), PROFILE) == ("B4", why)


def test_b5_the_nonfree_count_must_match_the_allowance() -> None:
    policy.check_bag_count("regular", "economy", 2, 3, 1)
    policy.check_bag_count("regular", "economy", 2, 0, 0)
    assert refusal(policy.check_bag_count, "regular", "economy", 2, 3, 4) == (
        "B5",
        "4 non-free bags is more than the 3 in total",
    )
    assert refusal(policy.check_bag_count, "gold", "business", 1, 6, 1) == (
        "B5",
        "a gold member in business has 4 free bag(s) per passenger; "
        "6 bag(s) for 1 passenger(s) means 2 non-free, not 1",
    )


# ---------------------------------------------------------------- changes (M1, M2, M4)

SAME = [leg("HAT156", "PHX", "SEA", "2024-05-20"), leg("HAT021", "SEA", "JFK", "2024-05-20")]
NEXT_DAY = [leg("HAT156", "PHX", "SEA"), leg("HAT021", "SEA", "JFK")]


def test_m4_a_cabin_change_of_the_same_flights_passes_in_any_cabin() -> None:
    for cabin in ("economy", "business"):
        _change(reservation(cabin="basic_economy"), cabin, SAME, False)
    _change(reservation(), "basic_economy", SAME, False)
    _change(reservation(cabin="basic_economy"), "basic_economy", SAME, True)


def test_m4_no_cabin_change_once_a_segment_has_flown() -> None:
    for flights in (SAME, NEXT_DAY):
        assert refusal(_change, reservation(), "business", flights, True) == (
            "M4",
            "the cabin cannot change once a segment has flown",
        )


def test_m4_with_new_flights_the_new_cabin_decides() -> None:
    _change(reservation(cabin="basic_economy"), "economy", NEXT_DAY, False)
    _change(reservation(), "business", NEXT_DAY, False)
    _change(reservation(), "economy", NEXT_DAY, True)  # flights only
    assert refusal(
        _change,
        reservation(cabin="basic_economy"),
        "basic_economy",
        NEXT_DAY,
        False,
    ) == ("M1", "basic economy flights cannot be changed")
    assert refusal(_change, reservation(), "basic_economy", NEXT_DAY, False) == (
        "M1",
        "basic economy flights cannot be changed "
        "(a call that changes the cabin too is judged by the new cabin)",
    )


@pytest.mark.parametrize(
    ("flights", "why"),
    [
        ([], "the reservation must keep at least one flight"),
        (
            [leg("HAT100", "LAX", "SEA"), leg("HAT021", "SEA", "JFK")],
            "the trip must still start at PHX, not LAX",
        ),
        (
            [leg("HAT156", "PHX", "SEA"), leg("HAT300", "ATL", "JFK")],
            "flights do not connect: SEA then ATL",
        ),
        ([leg("HAT156", "PHX", "SEA")], "the trip must still end at JFK, not SEA"),
    ],
    ids=["no-flight", "other-origin", "gap", "other-destination"],
)
def test_m2_a_one_way_keeps_origin_destination_and_connections(
    flights: list[SegmentFacts], why: str
) -> None:
    for cabin in ("economy", "business"):  # with or without a cabin change
        assert refusal(_change, reservation(), cabin, flights, False) == (
            "M2",
            why,
        )


ROUND_TRIP = reservation(flight_type="round_trip")
ROUND_TRIP_WHY = "a round trip must still go PHX → JFK → PHX"


def test_m2_a_round_trip_goes_there_and_back() -> None:
    there_and_back = [leg("HAT050", "PHX", "JFK"), leg("HAT200", "JFK", "PHX", "2024-05-25")]
    _change(ROUND_TRIP, "economy", there_and_back, False)
    not_back = [leg("HAT050", "PHX", "JFK"), leg("HAT060", "JFK", "ATL", "2024-05-25")]
    assert refusal(_change, ROUND_TRIP, "economy", not_back, False) == (
        "M2",
        ROUND_TRIP_WHY,
    )
    not_there = [leg("HAT156", "PHX", "SEA"), leg("HAT157", "SEA", "PHX", "2024-05-25")]
    assert refusal(_change, ROUND_TRIP, "economy", not_there, False) == (
        "M2",
        ROUND_TRIP_WHY,
    )


# ---------------------------------------------------------------- M5, M6, M7, C5


def test_m7_a_change_is_paid_by_card_or_gift_card_from_the_profile() -> None:
    policy.check_change_payment("credit_card", "credit_card_1")
    policy.check_change_payment("gift_card", "gift_card_1")
    assert refusal(policy.check_change_payment, None, "paypal_9") == (
        "M7",
        "payment method paypal_9 is not in the customer's profile",
    )
    assert refusal(policy.check_change_payment, "certificate", "certificate_1") == (
        "M7",
        "a change cannot be paid with a travel certificate",
    )


def test_m5_bags_may_stay_or_grow_never_shrink() -> None:
    policy.check_bag_change(reservation(), 2, 1)  # the same counts
    policy.check_bag_change(reservation(), 4, 2)
    assert refusal(policy.check_bag_change, reservation(), 1, 1) == (
        "M5",
        "bags can be added, never removed (2 → 1)",
    )
    assert refusal(policy.check_bag_change, reservation(), 3, 0) == (
        "M5",
        "paid bags cannot be removed (1 → 0)",
    )


def test_m6_the_number_of_passengers_stays() -> None:
    policy.check_passenger_count(PASSENGERS, 2)
    assert refusal(policy.check_passenger_count, PASSENGERS, 3) == (
        "M6",
        "the number of passengers cannot change (2 on the reservation, 3 given)",
    )


def test_c5_a_cancelled_reservation_is_final() -> None:
    policy.check_active(reservation())
    policy.check_active(reservation(status=None))
    assert refusal(policy.check_active, reservation(status="cancelled")) == (
        "C5",
        "reservation ABC123 is cancelled",
    )


# ---------------------------------------------------------------- cancellation (X2, X3)

X3_NOT_ELIGIBLE = (
    "this reservation cannot be cancelled: booked more than 24 hours ago, no flight "
    "cancelled by the airline, not business, and no travel insurance"
)
X3_ASK = (
    "ask the customer why they cancel: the travel insurance covers health or weather "
    "reasons only; then call again with `reason`"
)


def _cancel(res: Reservation, statuses: list[str | None], reason: str | None = None) -> None:
    policy.check_cancellation(res, statuses, False, reason, NOW)


def test_x2_nothing_flown() -> None:
    assert refusal(
        policy.check_cancellation, reservation(cabin="business"), [None], True, None, NOW
    ) == ("X2", "a segment has already flown; the agent cannot cancel (transfer to a human)")


def test_x3_eligible_reservations() -> None:
    _cancel(reservation(created_at="2024-05-14T15:00:00"), ["available"])  # exactly 24 h
    _cancel(reservation(), ["available", "cancelled"])
    _cancel(reservation(cabin="business"), ["available"])
    for reason in ("health", "weather"):
        _cancel(reservation(insurance="yes"), ["available"], reason)


def test_x3_refusals_say_why() -> None:
    old = reservation(created_at="2024-05-14T14:59:59")  # 24 h and 1 s
    assert refusal(_cancel, old, ["available"]) == ("X3", X3_NOT_ELIGIBLE)
    assert refusal(_cancel, old, ["available"], "airline_cancelled") == (
        "X3",
        "no flight of this reservation is cancelled by the airline (checked the schedule)",
    )
    insured = reservation(insurance="yes")
    assert refusal(_cancel, insured, ["available"]) == ("X3", X3_ASK)
    assert refusal(_cancel, insured, ["available"], "change_of_plan") == (
        "X3",
        "the insurance covers health or weather reasons, not change of plan",
    )


# ---------------------------------------------------------------- compensation (P2–P5)

P2_ASK = (
    "ask the customer which reservation is affected and whether the flight was cancelled "
    "or delayed; then call again with `reservation_id` and `reason` "
    "(cancelled_flight or delayed_flight)"
)
P2_NOT_ELIGIBLE = (
    "only silver or gold members, insured customers or business passengers get "
    "compensation; this customer is a regular member, uninsured, not in business"
)


def _compensate(
    membership: str,
    res: Reservation | None,
    reason: str | None,
    amount: float,
    statuses: list[str | None] = ["available"],  # noqa: B006 (never changed)
    changed: bool = False,
) -> None:
    passengers = 0 if res is None else PASSENGERS
    policy.check_compensation(membership, res, passengers, reason, amount, statuses, changed)


def test_p2_asks_for_the_reservation_and_the_reason() -> None:
    assert refusal(_compensate, "gold", None, "cancelled_flight", 100) == ("P2", P2_ASK)
    assert refusal(_compensate, "gold", reservation(), None, 100) == ("P2", P2_ASK)


def test_p2_who_qualifies() -> None:
    cancelled = ["cancelled", "available"]
    assert refusal(_compensate, "regular", reservation(), "cancelled_flight", 200, cancelled) == (
        "P2",
        P2_NOT_ELIGIBLE,
    )
    for membership, res in [
        ("silver", reservation()),
        ("gold", reservation()),
        ("regular", reservation(insurance="yes")),
        ("regular", reservation(cabin="business")),
    ]:
        _compensate(membership, res, "cancelled_flight", 200, cancelled)


def test_p3_a_cancelled_flight_is_100_per_passenger() -> None:
    cancelled = ["cancelled", "available"]
    _compensate("gold", reservation(), "cancelled_flight", 200, cancelled)
    assert refusal(_compensate, "gold", reservation(), "cancelled_flight", 100, cancelled) == (
        "P3",
        "the certificate for 2 passenger(s) is 200, not 100",
    )
    assert refusal(_compensate, "gold", reservation(), "cancelled_flight", 200) == (
        "P3",
        "no flight of this reservation was cancelled by the airline",
    )


def test_p4_a_delay_is_50_per_passenger_after_a_change_or_cancellation() -> None:
    delayed = ["delayed", "available"]
    assert refusal(_compensate, "gold", reservation(), "delayed_flight", 100, delayed) == (
        "P4",
        "compensation for a delay comes after the customer changes or cancels the "
        "reservation; do that first",
    )
    _compensate("gold", reservation(), "delayed_flight", 100, delayed, True)
    # Flights changed: the delayed one is gone from the reservation; the reason is trusted.
    _compensate("gold", reservation(), "delayed_flight", 100, ["available"], True)
    cancelled = reservation(status="cancelled")
    _compensate("gold", cancelled, "delayed_flight", 100, delayed, True)
    assert refusal(_compensate, "gold", cancelled, "delayed_flight", 100, ["available"], True) == (
        "P4",
        "no flight of this reservation is delayed",
    )
    assert refusal(_compensate, "gold", reservation(), "delayed_flight", 50, delayed, True) == (
        "P4",
        "the certificate for 2 passenger(s) is 100, not 50",
    )


def test_p5_no_compensation_for_anything_else() -> None:
    assert refusal(_compensate, "gold", reservation(), "lost_bag", 100) == (
        "P5",
        "no compensation for 'lost_bag'; only cancelled or delayed flights",
    )
