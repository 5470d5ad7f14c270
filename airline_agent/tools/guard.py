"""The policy guard: checks the write tools' calls against the rules marked "code" in
airline-policy.md before they run, and refuses with `POLICY_VIOLATION` (rule id and
why) or `PERMISSION_DENIED`. The tools themselves keep the benchmark's lenient
semantics; switching the guard off (`Toolbox.guard = False`, `--no-guard`,
`AIRLINE_AGENT_GUARD=off`) also switches off authorization, so that τ² reference
actions replay unchanged.

Enforced here:
- I1, I2 authorization: writes act only for the conversation's customer
  (`ToolConversation.customer`), on their own profile and reservations; with no
  identified customer, every write is refused with "identify the customer first".
- Privacy: once a conversation is bound to a customer, it reads only that customer's
  profile and reservations; before that, an agent conversation looks up only a user id
  the customer gave, and only a reservation whose owner's user id the customer gave
  (both are private, and a model may guess ids). Only the profile lookup binds (I1).
- B1 bookable status, B2 cabin, B3 passengers (1–5, complete), B4 payment mix,
  B5 non-free bag count from membership and cabin (booking and bag changes).
- M1 basic economy flights fixed, M2 same origin/destination/trip type, M4 cabin change
  (nothing flown; with new flights in the same call, judged as a flight change of the
  new cabin: basic economy → economy on new flights is allowed, basic economy kept on
  new flights is M1), M5 bags only added, M6 passenger count, M7 change payment (gift
  card or credit card). M3 (kept segments keep their price) and the
  B5/B6 prices are applied by the operations themselves.
- X2 nothing flown, X3 eligibility given the stated `reason` (asks for it when needed).
- P2 who qualifies, P3 / P4 amounts, P4 only after a change or cancellation in this
  conversation (or of a cancelled reservation). Needs `reservation_id` and `reason`.
- Writes on a cancelled reservation are refused (C5).

Left to the prompt, because the call and the database cannot decide them:
- C2 the customer's explicit "yes" (the loop's approval step shows the call instead),
  C3 grounding, C4 one call at a time, C6 when to transfer, P1 never offering
  compensation unprompted, P5 "no other reason" beyond the two reasons we accept,
  X1 asking the reason (the guard only checks the answer given), B5's "no bag the
  customer does not need", B6 asking about insurance: they are about what the
  customer said, which no tool argument proves.
- M5's "insurance cannot be added after booking": no tool can add it.
- The delay itself for P4 after a flight change: the delayed flight is no longer in
  the reservation, so the guard trusts the stated reason there.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

from airline_agent.domain import operations, policy
from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.domain.errors import DomainError, PermissionDenied
from airline_agent.tools.conversation import ToolConversation


class GuardContext(Protocol):
    database: Database
    clock: Clock


IDENTIFY_FIRST = (
    "no customer is identified in this conversation: ask for the customer's user id and look "
    "it up with get_user_details before changing anything"
)


def check(
    context: GuardContext, conversation: ToolConversation, name: str, arguments: BaseModel
) -> None:
    """Raise PermissionDenied or PolicyViolation when the call must not run. Facts that
    do not exist (unknown reservation, flight) are left for the tool to report."""
    checker = _CHECKS.get(name)
    if checker is not None:
        checker(_Guarded(context, conversation), arguments)


class _Guarded:
    """The toolbox's database and clock, and the conversation the call belongs to."""

    __slots__ = ("clock", "conversation", "database")

    def __init__(self, context: GuardContext, conversation: ToolConversation) -> None:
        self.database = context.database
        self.clock = context.clock
        self.conversation = conversation


# ---------------------------------------------------------------- authorization


def _acting_user(context: _Guarded) -> str:
    if context.conversation.customer is None:
        raise PermissionDenied(IDENTIFY_FIRST)
    return context.conversation.customer


def _read_profile(context: _Guarded, args: Any) -> None:
    acting = context.conversation.customer
    if acting is None:
        if context.conversation.hears_customer and not context.conversation.customer_gave(
            args.user_id
        ):
            raise PermissionDenied(
                f"the customer has not given the user id {args.user_id!r} in this "
                "conversation: ask for their user id before looking up a profile"
            )
        return
    resolved = operations.resolve_user_id(context.database, args.user_id)
    if resolved is not None and resolved != acting:
        raise PermissionDenied(
            f"this conversation acts for {acting}; the profile of another customer is private"
        )


def _read_reservation(context: _Guarded, args: Any) -> None:
    conversation = context.conversation
    acting = conversation.customer
    if acting is None and not conversation.hears_customer:
        return  # an operator's one-off `call`: nobody to ask
    owner = operations.reservation_owner(context.database, args.reservation_id)
    if acting is None:
        # As private as a profile: names, dates of birth, payment ids. The policy asks
        # for the user id first (I2), so the owner's id must have been given; an unknown
        # reservation gets the same answer, so that refusals tell no ids apart.
        if owner is None or not conversation.customer_gave(owner):
            raise PermissionDenied(
                "the customer has not given the user id of the owner of reservation "
                f"{args.reservation_id.strip().upper()} in this conversation: ask for their "
                "user id before looking up a reservation"
            )
        return
    if owner is not None and owner != acting:
        raise PermissionDenied(
            f"reservation {args.reservation_id.strip().upper()} belongs to another customer; "
            f"this conversation acts for {acting}"
        )


def _authorize_profile(context: _Guarded, user_id: str) -> str | None:
    acting = _acting_user(context)
    resolved = operations.resolve_user_id(context.database, user_id)
    if resolved is not None and resolved != acting:
        raise PermissionDenied(
            f"this conversation acts for {acting}; it cannot act on the profile of {resolved}"
        )
    return resolved


def _reservation_for(context: _Guarded, reservation_id: str) -> dict[str, Any] | None:
    """The reservation if it exists and belongs to the acting customer (I2)."""
    acting = _acting_user(context)
    owner = operations.reservation_owner(context.database, reservation_id)
    if owner is None:
        return None
    if owner != acting:
        raise PermissionDenied(
            f"reservation {reservation_id.strip().upper()} belongs to another customer; this "
            f"conversation acts for {acting}"
        )
    try:
        return operations.get_reservation(context.database, reservation_id)
    except DomainError:
        return None


def _facts(context: _Guarded, flights: list[dict[str, Any]]) -> list[operations.SegmentFacts]:
    refs = [operations.FlightRef(f["flight_number"], f["date"]) for f in flights]
    return operations.segment_facts(context.database, refs)


def _flown(context: _Guarded, reservation: dict[str, Any]) -> tuple[bool, list[str | None]]:
    facts = _facts(context, reservation["flights"])
    statuses = [f.status for f in facts]
    flown = policy.has_flown(
        reservation["flights"], statuses, [f.departure_time for f in facts], context.clock.now
    )
    return flown, statuses


# ---------------------------------------------------------------- per tool


def _book(context: _Guarded, args: Any) -> None:
    user_id = _authorize_profile(context, args.user_id)
    if user_id is None:
        return
    user = operations.get_user(context.database, user_id)
    policy.check_cabin(args.cabin)
    policy.check_passengers([p.model_dump() for p in args.passengers])
    for fact in _facts(context, [f.model_dump() for f in args.flights]):
        if fact.origin is not None:
            policy.check_bookable(fact.flight_number, fact.date, fact.status)
    policy.check_payment_mix(
        [p.model_dump() for p in args.payment_methods], user["payment_methods"]
    )
    policy.check_bag_count(
        user["membership"],
        args.cabin,
        len(args.passengers),
        args.total_baggages,
        args.nonfree_baggages,
    )


def _cancel(context: _Guarded, args: Any) -> None:
    reservation = _reservation_for(context, args.reservation_id)
    if reservation is None:
        return
    policy.check_active(reservation)
    flown, statuses = _flown(context, reservation)
    policy.check_cancellation(reservation, statuses, flown, args.reason, context.clock.now)


def _update_flights(context: _Guarded, args: Any) -> None:
    reservation = _reservation_for(context, args.reservation_id)
    if reservation is None:
        return
    policy.check_active(reservation)
    policy.check_cabin(args.cabin)
    facts = _facts(context, [f.model_dump() for f in args.flights])
    if any(f.origin is None for f in facts):
        return  # an unknown flight: the tool says which
    new_flights = [
        {
            "flight_number": f.flight_number,
            "date": f.date,
            "origin": f.origin,
            "destination": f.destination,
        }
        for f in facts
    ]
    flown, _ = _flown(context, reservation)
    policy.check_flight_change(reservation, args.cabin, new_flights, flown)
    kept = {(s["flight_number"], s["date"]) for s in reservation["flights"]}
    for fact in facts:
        if (fact.flight_number, fact.date) not in kept:
            policy.check_bookable(fact.flight_number, fact.date, fact.status)
    user = operations.get_user(context.database, reservation["user_id"])
    method = user["payment_methods"].get(args.payment_id)
    policy.check_change_payment(method["source"] if method else None, args.payment_id)


def _update_bags(context: _Guarded, args: Any) -> None:
    reservation = _reservation_for(context, args.reservation_id)
    if reservation is None:
        return
    policy.check_active(reservation)
    policy.check_bag_change(reservation, args.total_baggages, args.nonfree_baggages)
    user = operations.get_user(context.database, reservation["user_id"])
    policy.check_bag_count(
        user["membership"],
        reservation["cabin"],
        len(reservation["passengers"]),
        args.total_baggages,
        args.nonfree_baggages,
    )


def _update_passengers(context: _Guarded, args: Any) -> None:
    reservation = _reservation_for(context, args.reservation_id)
    if reservation is None:
        return
    policy.check_active(reservation)
    policy.check_passenger_count(reservation, len(args.passengers))
    policy.check_passengers([p.model_dump() for p in args.passengers])


def _send_certificate(context: _Guarded, args: Any) -> None:
    user_id = _authorize_profile(context, args.user_id)
    if user_id is None:
        return
    user = operations.get_user(context.database, user_id)
    reservation = None
    statuses: list[str | None] = []
    if args.reservation_id is not None:
        reservation = _reservation_for(context, args.reservation_id)
        if reservation is None:
            raise PermissionDenied(
                f"reservation {args.reservation_id} is not one of {user_id}'s reservations"
            )
        _, statuses = _flown(context, reservation)
    changed = reservation is not None and (
        reservation["reservation_id"] in context.conversation.changed_reservations
        or reservation.get("status") == "cancelled"
    )
    policy.check_compensation(
        user["membership"], reservation, args.reason, args.amount, statuses, changed
    )


_CHECKS = {
    "get_user_details": _read_profile,
    "get_reservation_details": _read_reservation,
    "book_reservation": _book,
    "cancel_reservation": _cancel,
    "update_reservation_flights": _update_flights,
    "update_reservation_baggages": _update_bags,
    "update_reservation_passengers": _update_passengers,
    "send_certificate": _send_certificate,
}
