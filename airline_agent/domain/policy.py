"""The airline's rules as pure functions, with the ids the agent's system prompt gives them
(agent/prompt.py `_FULL_RULES`, written from τ²-bench's airline policy).

Prices (B5, B6) are used by the operations themselves; the `check_*` functions are used
by the tool guard and raise `PolicyViolation(rule, why)`. They take typed records: the
reservation's rows (`schema.Reservation`, its `ReservationFlight` segments, the
customer's `PaymentMethod`s), what the schedule says of each flight on its date
(`SegmentFacts`), and the clock. The guard reads them in the transaction of the write
they decide (tools/guard.py).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal, Protocol

from airline_agent.domain.cabins import CABINS
from airline_agent.domain.errors import PolicyViolation
from airline_agent.domain.schema import PaymentMethod, Reservation, ReservationFlight

BAG_PRICE = 50  # B5: each extra bag
INSURANCE_PRICE = 30  # B6: per passenger
MAX_PASSENGERS = 5  # B3
# B4: how many of each payment kind one booking may use.
PAYMENT_LIMITS = {"certificate": 1, "credit_card": 1, "gift_card": 3}
FLOWN_STATUSES = ("flying", "landed")
# X1 / X3: why a customer cancels (`cancel_reservation`'s `reason`).
CancellationReason = Literal["change_of_plan", "airline_cancelled", "health", "weather", "other"]
INSURED_REASONS = ("health", "weather")  # X3 / B6
# P3 / P4: what happened to the flight (`send_certificate`'s `reason`).
CompensationReason = Literal["cancelled_flight", "delayed_flight"]
CANCELLED_FLIGHT_CERTIFICATE = 100  # P3, per passenger
DELAYED_FLIGHT_CERTIFICATE = 50  # P4, per passenger


@dataclass(frozen=True)
class SegmentFacts:
    """What the schedule says about one flight on one date (None when unknown)."""

    flight_number: str
    date: str
    origin: str | None
    destination: str | None
    departure_time: str | None
    status: str | None


class Person(Protocol):
    """A passenger as B3 checks one (a tool's argument, a stored row)."""

    @property
    def first_name(self) -> str: ...
    @property
    def last_name(self) -> str: ...
    @property
    def dob(self) -> str: ...


# B5: free checked bags per passenger by membership, then cabin.
_FREE_BAGS = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 4},
}


# ---------------------------------------------------------------- prices


def free_bags(membership: str, cabin: str) -> int:
    """B5: free checked bags for one passenger."""
    return _FREE_BAGS.get(membership, _FREE_BAGS["regular"]).get(cabin, 0)


def nonfree_bags(membership: str, cabin: str, passengers: int, total_bags: int) -> int:
    """B5: how many of `total_bags` must be paid for."""
    return max(0, total_bags - free_bags(membership, cabin) * passengers)


def bag_price(nonfree: int) -> int:
    return BAG_PRICE * nonfree


def insurance_price(insurance: str, passengers: int) -> int:
    return INSURANCE_PRICE * passengers if insurance == "yes" else 0


# ---------------------------------------------------------------- facts about a reservation


def departure(date: str, departure_time: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(f"{date}T{departure_time or '00:00:00'}")
    except ValueError:
        return None


def has_flown(segments: Sequence[SegmentFacts], now: datetime) -> bool:
    """A segment has flown when its flight is flying or landed, or (unless the airline
    cancelled it) its scheduled departure is in the past by the domain clock."""
    for segment in segments:
        if segment.status in FLOWN_STATUSES:
            return True
        if segment.status == "cancelled":
            continue  # the airline cancelled it: it never flew
        when = departure(segment.date, segment.departure_time)
        if when is not None and when <= now:
            return True
    return False


# ---------------------------------------------------------------- booking (B1–B5)


def check_bookable(flight_number: str, date: str, status: str | None) -> None:
    """B1: only `available` flights can be booked."""
    if status != "available":
        raise PolicyViolation(
            "B1", f"flight {flight_number} on {date} is {status or 'not scheduled'}, not available"
        )


def check_passengers(passengers: Sequence[Person]) -> None:
    """B3: one to five passengers, each with first name, last name and date of birth."""
    if not passengers:
        raise PolicyViolation("B3", "a reservation needs at least one passenger")
    if len(passengers) > MAX_PASSENGERS:
        raise PolicyViolation(
            "B3", f"at most {MAX_PASSENGERS} passengers per reservation, {len(passengers)} given"
        )
    for number, passenger in enumerate(passengers, start=1):
        missing = [
            f for f in ("first_name", "last_name", "dob") if not getattr(passenger, f).strip()
        ]
        if missing:
            raise PolicyViolation("B3", f"passenger {number} has no {', '.join(missing)}")


def check_cabin(cabin: str) -> None:
    """B2: one of the three cabins, the same for every segment."""
    if cabin not in CABINS:
        raise PolicyViolation("B2", f"cabin must be one of {', '.join(CABINS)}")


def check_payment_mix(payment_ids: Sequence[str], methods: Mapping[str, PaymentMethod]) -> None:
    """B4: every method from the profile; at most 1 certificate, 1 credit card, 3 gift cards."""
    kinds: Counter[str] = Counter()
    for payment_id in payment_ids:
        method = methods.get(payment_id)
        if method is None:
            raise PolicyViolation(
                "B4", f"payment method {payment_id} is not in the customer's profile"
            )
        kinds[method.source] += 1
    for kind, limit in PAYMENT_LIMITS.items():
        if kinds[kind] > limit:
            raise PolicyViolation(
                "B4",
                f"at most {limit} {kind.replace('_', ' ')}(s) per booking, {kinds[kind]} given",
            )


def check_bag_count(
    membership: str, cabin: str, passengers: int, total_bags: int, nonfree: int
) -> None:
    """B5: the non-free bags are exactly those beyond the free allowance."""
    if nonfree > total_bags:
        raise PolicyViolation(
            "B5", f"{nonfree} non-free bags is more than the {total_bags} in total"
        )
    expected = nonfree_bags(membership, cabin, passengers, total_bags)
    if nonfree != expected:
        allowance = free_bags(membership, cabin)
        raise PolicyViolation(
            "B5",
            f"a {membership} member in {cabin} has {allowance} free bag(s) per passenger; "
            f"{total_bags} bag(s) for {passengers} passenger(s) means {expected} non-free, "
            f"not {nonfree}",
        )


# ---------------------------------------------------------------- changes (M1–M7)


def _itinerary(flights: Sequence[ReservationFlight | SegmentFacts]) -> list[tuple[str, str]]:
    return [(f.flight_number, f.date) for f in flights]


def check_flight_change(
    reservation: Reservation,
    segments: Sequence[ReservationFlight],
    new_cabin: str,
    new_flights: Sequence[SegmentFacts],
    flown: bool,
) -> None:
    """M1, M2, M4 for `update_reservation_flights`: the reservation and its `segments`,
    and the flights asked for with their route (from the schedule). A call that changes
    the cabin and the flights together is judged as a flight change of the new cabin (M4)."""
    if new_cabin != reservation.cabin and flown:
        raise PolicyViolation("M4", "the cabin cannot change once a segment has flown")
    if _itinerary(new_flights) == _itinerary(segments):
        return  # a cabin change of the same flights (M4), or no change at all
    if new_cabin == "basic_economy":
        why = "basic economy flights cannot be changed"
        if reservation.cabin != new_cabin:
            why += " (a call that changes the cabin too is judged by the new cabin)"
        raise PolicyViolation("M1", why)
    _check_same_trip(reservation, new_flights)


def _check_same_trip(reservation: Reservation, new_flights: Sequence[SegmentFacts]) -> None:
    """M2: new flights keep the origin, the destination and the trip type."""
    if not new_flights:
        raise PolicyViolation("M2", "the reservation must keep at least one flight")
    first, last = new_flights[0], new_flights[-1]
    if first.origin != reservation.origin:
        raise PolicyViolation(
            "M2", f"the trip must still start at {reservation.origin}, not {first.origin}"
        )
    for leg, following in itertools.pairwise(new_flights):
        if leg.destination != following.origin:
            raise PolicyViolation(
                "M2", f"flights do not connect: {leg.destination} then {following.origin}"
            )
    if reservation.flight_type == "one_way":
        if last.destination != reservation.destination:
            raise PolicyViolation(
                "M2",
                f"the trip must still end at {reservation.destination}, not {last.destination}",
            )
    elif last.destination != reservation.origin or not any(
        leg.destination == reservation.destination for leg in new_flights
    ):
        raise PolicyViolation(
            "M2",
            f"a round trip must still go {reservation.origin} → "
            f"{reservation.destination} → {reservation.origin}",
        )


def check_change_payment(source: str | None, payment_id: str) -> None:
    """M7: a change is paid or refunded through one gift card or credit card."""
    if source is None:
        raise PolicyViolation("M7", f"payment method {payment_id} is not in the customer's profile")
    if source == "certificate":
        raise PolicyViolation("M7", "a change cannot be paid with a travel certificate")


def check_bag_change(reservation: Reservation, total_bags: int, nonfree: int) -> None:
    """M5: bags can be added, never removed."""
    if total_bags < reservation.total_baggages:
        raise PolicyViolation(
            "M5",
            f"bags can be added, never removed ({reservation.total_baggages} → {total_bags})",
        )
    if nonfree < reservation.nonfree_baggages:
        raise PolicyViolation(
            "M5",
            f"paid bags cannot be removed ({reservation.nonfree_baggages} → {nonfree})",
        )


def check_passenger_count(have: int, given: int) -> None:
    """M6: details may change, the number of passengers cannot."""
    if given != have:
        raise PolicyViolation(
            "M6",
            f"the number of passengers cannot change ({have} on the reservation, {given} given)",
        )


def check_active(reservation: Reservation) -> None:
    if reservation.status == "cancelled":
        raise PolicyViolation("C5", f"reservation {reservation.reservation_id} is cancelled")


# ---------------------------------------------------------------- cancellation (X2, X3)


def check_cancellation(
    reservation: Reservation,
    statuses: Sequence[str | None],
    flown: bool,
    reason: str | None,
    now: datetime,
) -> None:
    """X2: nothing flown. X3: booked in the last 24 h, or an airline-cancelled flight, or
    business, or insured with a covered reason (health, weather)."""
    if flown:
        raise PolicyViolation(
            "X2", "a segment has already flown; the agent cannot cancel (transfer to a human)"
        )
    created = datetime.fromisoformat(reservation.created_at)
    if now - created <= timedelta(hours=24):
        return
    if any(status == "cancelled" for status in statuses):
        return
    if reservation.cabin == "business":
        return
    if reservation.insurance == "yes":
        if reason in INSURED_REASONS:
            return
        if reason is None:
            raise PolicyViolation(
                "X3",
                "ask the customer why they cancel: the travel insurance covers health or "
                "weather reasons only; then call again with `reason`",
            )
        raise PolicyViolation(
            "X3", f"the insurance covers health or weather reasons, not {reason.replace('_', ' ')}"
        )
    if reason == "airline_cancelled":
        raise PolicyViolation(
            "X3", "no flight of this reservation is cancelled by the airline (checked the schedule)"
        )
    raise PolicyViolation(
        "X3",
        "this reservation cannot be cancelled: booked more than 24 hours ago, no flight "
        "cancelled by the airline, not business, and no travel insurance",
    )


# ---------------------------------------------------------------- compensation (P2–P4)


def check_compensation(
    membership: str,
    reservation: Reservation | None,
    passengers: int,
    reason: str | None,
    amount: float,
    statuses: Sequence[str | None],
    changed_or_cancelled: bool,
) -> None:
    """P2 (who qualifies), P3 (cancelled flight: $100 × passengers), P4 (delayed flight:
    $50 × passengers, after the change or cancellation). `passengers`: how many the
    reservation has."""
    if reservation is None or reason is None:
        raise PolicyViolation(
            "P2",
            "ask the customer which reservation is affected and whether the flight was "
            "cancelled or delayed; then call again with `reservation_id` and `reason` "
            "(cancelled_flight or delayed_flight)",
        )
    eligible = (
        membership in ("silver", "gold")
        or reservation.insurance == "yes"
        or reservation.cabin == "business"
    )
    if not eligible:
        raise PolicyViolation(
            "P2",
            "only silver or gold members, insured customers or business passengers get "
            "compensation; this customer is a regular member, uninsured, not in business",
        )
    if reason == "cancelled_flight":
        if "cancelled" not in statuses:
            raise PolicyViolation(
                "P3", "no flight of this reservation was cancelled by the airline"
            )
        expected = CANCELLED_FLIGHT_CERTIFICATE * passengers
        rule = "P3"
    elif reason == "delayed_flight":
        if not changed_or_cancelled:
            raise PolicyViolation(
                "P4",
                "compensation for a delay comes after the customer changes or cancels the "
                "reservation; do that first",
            )
        if "delayed" not in statuses and reservation.status == "cancelled":
            raise PolicyViolation("P4", "no flight of this reservation is delayed")
        expected = DELAYED_FLIGHT_CERTIFICATE * passengers
        rule = "P4"
    else:
        raise PolicyViolation(
            "P5", f"no compensation for {reason!r}; only cancelled or delayed flights"
        )
    if amount != expected:
        raise PolicyViolation(
            rule, f"the certificate for {passengers} passenger(s) is {expected}, not {amount}"
        )
