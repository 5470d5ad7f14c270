"""The policy guard: checks the write tools' calls against the airline's rules that code
can check (ids as in agent/prompt.py) before they run, and refuses with `POLICY_VIOLATION`
(rule id and why) or `PERMISSION_DENIED`. The tools themselves keep the benchmark's lenient
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

Each tool names its check on its declaration (`@tool(guard=...)`, tools/airline.py); the
toolbox runs it through `check` (writes) and `check_read` (reads).

One decision, one state: a write's checks run inside the write's own transaction, after
the write lock is taken and before the write (`check`, called by the toolbox in
`database.write()`, or in the rolled-back rehearsal of a preview), and read their facts
through the write's `WriteRows` (`FOR UPDATE` / `FOR SHARE` where the database has row
locks), which hands the same rows on to the write: it reads none of them again. A
concurrent writer's change is either committed before the decision reads, or waits until
this write is done: two writers can never both pass on the state before the other's
change (tests/integration/test_guard_one_read.py). The two read checks (`profile_lookup`,
`reservation_lookup`) need no such care: who owns a profile or a reservation never
changes.

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

from collections.abc import Sequence
from dataclasses import dataclass

from airline_agent.domain import operations, policy
from airline_agent.domain.cabins import Cabin
from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.domain.errors import PermissionDenied
from airline_agent.domain.operations import FlightRef, WriteRows
from airline_agent.domain.policy import CancellationReason, CompensationReason, SegmentFacts
from airline_agent.domain.schema import Reservation, ReservationFlight, User
from airline_agent.tools.arguments import FlightChoice, Passenger, PaymentPart
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.registry import ToolSpec, ValidatedArguments

IDENTIFY_FIRST = (
    "no customer is identified in this conversation: ask for the customer's user id and look "
    "it up with get_user_details before changing anything"
)


@dataclass(frozen=True, slots=True)
class ReadDecision:
    """What a read's check decides on: the database it would read, the conversation."""

    database: Database
    conversation: ToolConversation


@dataclass(frozen=True, slots=True)
class WriteDecision:
    """What a write's check decides on: the rows of the write's own transaction (the
    write lock taken; what is read here the write finds read), the clock, the
    conversation."""

    rows: WriteRows
    clock: Clock
    conversation: ToolConversation


def check(
    rows: WriteRows,
    clock: Clock,
    conversation: ToolConversation,
    spec: ToolSpec,
    arguments: ValidatedArguments,
) -> None:
    """Raise PermissionDenied or PolicyViolation when the write must not run; `rows` are
    the write's own transaction's, the write lock already taken. Facts that do not exist
    (unknown reservation, flight) are left for the tool to report."""
    if spec.guard is not None:
        spec.guard(WriteDecision(rows, clock, conversation), **arguments)


def check_read(
    database: Database,
    conversation: ToolConversation,
    spec: ToolSpec,
    arguments: ValidatedArguments,
) -> None:
    """Raise PermissionDenied when the read would show another customer's data."""
    if spec.guard is not None:
        spec.guard(ReadDecision(database, conversation), **arguments)


# ---------------------------------------------------------------- reads


def profile_lookup(decision: ReadDecision, *, user_id: str) -> None:
    """I1 and privacy for `get_user_details`."""
    conversation = decision.conversation
    acting = conversation.customer
    if acting is None:
        if conversation.hears_customer and not conversation.customer_gave(user_id):
            raise PermissionDenied(
                f"the customer has not given the user id {user_id!r} in this "
                "conversation: ask for their user id before looking up a profile"
            )
        return
    resolved = operations.resolve_user_id(decision.database, user_id)
    if resolved is not None and resolved != acting:
        raise PermissionDenied(
            f"this conversation acts for {acting}; the profile of another customer is private"
        )


def reservation_lookup(decision: ReadDecision, *, reservation_id: str) -> None:
    """I2 and privacy for `get_reservation_details`."""
    conversation = decision.conversation
    acting = conversation.customer
    if acting is None and not conversation.hears_customer:
        return  # an operator's one-off `call`: nobody to ask
    owner = operations.reservation_owner(decision.database, reservation_id)
    if acting is None:
        # As private as a profile: names, dates of birth, payment ids. The policy asks
        # for the user id first (I2), so the owner's id must have been given; an unknown
        # reservation gets the same answer, so that refusals tell no ids apart.
        if owner is None or not conversation.customer_gave(owner):
            raise PermissionDenied(
                "the customer has not given the user id of the owner of reservation "
                f"{reservation_id.strip().upper()} in this conversation: ask for their "
                "user id before looking up a reservation"
            )
        return
    if owner is not None and owner != acting:
        raise PermissionDenied(
            f"reservation {reservation_id.strip().upper()} belongs to another customer; "
            f"this conversation acts for {acting}"
        )


# ---------------------------------------------------------------- authorization (I1, I2)


def _acting_user(decision: WriteDecision) -> str:
    if decision.conversation.customer is None:
        raise PermissionDenied(IDENTIFY_FIRST)
    return decision.conversation.customer


def _customer(decision: WriteDecision, user_id: str) -> User | None:
    """The profile if it exists, refused unless it is the acting customer's (I1)."""
    acting = _acting_user(decision)
    user = decision.rows.user(user_id)
    if user is not None and user.user_id != acting:
        raise PermissionDenied(
            f"this conversation acts for {acting}; it cannot act on the profile of {user.user_id}"
        )
    return user


def _reservation(decision: WriteDecision, reservation_id: str) -> Reservation | None:
    """The reservation if it exists, refused unless the acting customer owns it (I2)."""
    acting = _acting_user(decision)
    reservation = decision.rows.reservation(reservation_id)
    if reservation is not None and reservation.user_id != acting:
        raise PermissionDenied(
            f"reservation {reservation_id.strip().upper()} belongs to another customer; this "
            f"conversation acts for {acting}"
        )
    return reservation


# ---------------------------------------------------------------- facts


def _segments(decision: WriteDecision, reservation: Reservation) -> list[ReservationFlight]:
    return decision.rows.segments(reservation)


def _passenger_count(decision: WriteDecision, reservation: Reservation) -> int:
    return len(decision.rows.passengers(reservation))


def _schedule(
    decision: WriteDecision, flights: Sequence[ReservationFlight | FlightChoice]
) -> list[SegmentFacts]:
    return decision.rows.schedule([FlightRef(f.flight_number, f.date) for f in flights])


# ---------------------------------------------------------------- per tool


def booking(
    decision: WriteDecision,
    *,
    user_id: str,
    cabin: Cabin,
    flights: list[FlightChoice],
    passengers: list[Passenger],
    payment_methods: list[PaymentPart],
    total_baggages: int,
    nonfree_baggages: int,
    **_trip: str,  # origin, destination, flight_type, insurance: no rule of the guard's
) -> None:
    user = _customer(decision, user_id)
    if user is None:
        return
    policy.check_cabin(cabin)
    policy.check_passengers(passengers)
    for fact in _schedule(decision, flights):
        if fact.origin is not None:
            policy.check_bookable(fact.flight_number, fact.date, fact.status)
    policy.check_payment_mix(
        [part.payment_id for part in payment_methods],
        decision.rows.payment_methods(user.user_id),
    )
    policy.check_bag_count(
        user.membership, cabin, len(passengers), total_baggages, nonfree_baggages
    )


def cancellation(
    decision: WriteDecision, *, reservation_id: str, reason: CancellationReason | None
) -> None:
    reservation = _reservation(decision, reservation_id)
    if reservation is None:
        return
    policy.check_active(reservation)
    facts = _schedule(decision, _segments(decision, reservation))
    policy.check_cancellation(
        reservation,
        [f.status for f in facts],
        policy.has_flown(facts, decision.clock.now),
        reason,
        decision.clock.now,
    )


def flight_change(
    decision: WriteDecision,
    *,
    reservation_id: str,
    cabin: Cabin,
    flights: list[FlightChoice],
    payment_id: str,
) -> None:
    reservation = _reservation(decision, reservation_id)
    if reservation is None:
        return
    policy.check_active(reservation)
    policy.check_cabin(cabin)
    new_flights = _schedule(decision, flights)
    if any(f.origin is None for f in new_flights):
        return  # an unknown flight: the tool says which
    segments = _segments(decision, reservation)
    flown = policy.has_flown(_schedule(decision, segments), decision.clock.now)
    policy.check_flight_change(reservation, segments, cabin, new_flights, flown)
    kept = {(s.flight_number, s.date) for s in segments}
    for fact in new_flights:
        if (fact.flight_number, fact.date) not in kept:
            policy.check_bookable(fact.flight_number, fact.date, fact.status)
    method = decision.rows.payment_methods(reservation.user_id).get(payment_id)
    policy.check_change_payment(method.source if method else None, payment_id)


def bag_change(
    decision: WriteDecision,
    *,
    reservation_id: str,
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> None:
    reservation = _reservation(decision, reservation_id)
    if reservation is None:
        return
    policy.check_active(reservation)
    policy.check_bag_change(reservation, total_baggages, nonfree_baggages)
    user = decision.rows.user(reservation.user_id)
    if user is None:
        return  # the tool says so
    policy.check_bag_count(
        user.membership,
        reservation.cabin,
        _passenger_count(decision, reservation),
        total_baggages,
        nonfree_baggages,
    )


def passenger_change(
    decision: WriteDecision, *, reservation_id: str, passengers: list[Passenger]
) -> None:
    reservation = _reservation(decision, reservation_id)
    if reservation is None:
        return
    policy.check_active(reservation)
    policy.check_passenger_count(_passenger_count(decision, reservation), len(passengers))
    policy.check_passengers(passengers)


def compensation(
    decision: WriteDecision,
    *,
    user_id: str,
    amount: int,
    reservation_id: str | None,
    reason: CompensationReason | None,
) -> None:
    user = _customer(decision, user_id)
    if user is None:
        return
    reservation = None
    statuses: list[str | None] = []
    passengers = 0
    if reservation_id is not None:
        reservation = _reservation(decision, reservation_id)
        if reservation is None:
            raise PermissionDenied(
                f"reservation {reservation_id} is not one of {user.user_id}'s reservations"
            )
        statuses = [f.status for f in _schedule(decision, _segments(decision, reservation))]
        passengers = _passenger_count(decision, reservation)
    changed = reservation is not None and (
        reservation.reservation_id in decision.conversation.changed_reservations
        or reservation.status == "cancelled"
    )
    policy.check_compensation(
        user.membership, reservation, passengers, reason, amount, statuses, changed
    )
