"""The 14 airline tools, with the τ²-bench names, parameters and effects, each declared
once: everything known about a tool is on its `@tool(...)` (registry.tool): whether it
writes, the guard's check (tools/guard.py), its MCP annotations and the claims of a reply
its successful call backs.

Each tool is a thin, typed wrapper over `domain.operations`: the signature is the JSON
schema (see `registry.tool`; the shared argument types are in arguments.py), the
docstring is what the model reads, so it says only what a model needs to call the tool
right. A read tool gets the toolbox (`ToolContext`: the database and the clock); a write
tool gets the rows of the write transaction its guard decided in (`WriteContext`), so the
decision and the write see one state, read once (tools/toolbox.py). Two optional
parameters are ours, for the guard: `reason` on `cancel_reservation` (policy X3) and
`reservation_id` + `reason` on `send_certificate` (P2–P4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, Protocol

from pydantic import Field

from airline_agent.domain import operations
from airline_agent.domain.arithmetic import evaluate_arithmetic
from airline_agent.domain.cabins import Cabin
from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.domain.operations import WriteRows
from airline_agent.domain.policy import CancellationReason, CompensationReason
from airline_agent.domain.tau2_shape import BookableFlight, Tau2Reservation, Tau2User
from airline_agent.tools import guard
from airline_agent.tools.arguments import (
    Airport,
    Bags,
    Date,
    FlightChoice,
    Passenger,
    PaymentId,
    PaymentPart,
    ReservationId,
    UserId,
)
from airline_agent.tools.declarations import McpHints
from airline_agent.tools.registry import tool


class ToolContext(Protocol):
    """What a read tool reads from (the toolbox)."""

    database: Database
    clock: Clock
    dated_direct_flights: bool


@dataclass(frozen=True, slots=True)
class WriteContext:
    """What a write tool writes in: the rows of the open write transaction (those its
    guard read among them) and the clock."""

    rows: WriteRows
    clock: Clock


def _flight_refs(flights: list[FlightChoice]) -> list[operations.FlightRef]:
    return [operations.FlightRef(f.flight_number, f.date) for f in flights]


def _passengers(passengers: list[Passenger]) -> list[operations.PassengerDetails]:
    return [operations.PassengerDetails(p.first_name, p.last_name, p.dob) for p in passengers]


# ---------------------------------------------------------------- reads


@tool(
    guard=guard.profile_lookup,
    mcp=McpHints("Get a customer's profile"),
    identifies_customer=True,
)
def get_user_details(context: ToolContext, user_id: UserId) -> Tau2User:
    """Get a customer's profile: membership, payment methods with balances, saved
    passengers, reservation ids."""
    return operations.get_user(context.database, user_id)


@tool(guard=guard.reservation_lookup, mcp=McpHints("Get a reservation"))
def get_reservation_details(context: ToolContext, reservation_id: ReservationId) -> Tau2Reservation:
    """Get a reservation: flights and prices paid, cabin, passengers, payments, bags,
    insurance, booking time, status."""
    return operations.get_reservation(context.database, reservation_id)


@tool(mcp=McpHints("List the airports"))
def list_all_airports(context: ToolContext) -> list[operations.AirportRecord]:
    """List the airports served: IATA code and city."""
    return operations.list_airports(context.database)


@tool(mcp=McpHints("Search direct flights"))
def search_direct_flight(
    context: ToolContext,
    origin: Airport,
    destination: Airport,
    date: Date,
) -> list[BookableFlight]:
    """Search bookable direct flights on a date: times (EST), seats and prices per
    cabin."""
    flights = operations.search_direct(context.database, origin, destination, date)
    if not context.dated_direct_flights:  # as τ²'s tool answers (`eval --like tau2`)
        return [{**flight, "date": None} for flight in flights]
    return flights


@tool(mcp=McpHints("Search one-stop flights"))
def search_onestop_flight(
    context: ToolContext,
    origin: Airport,
    destination: Airport,
    date: Date,
) -> list[list[BookableFlight]]:
    """Search bookable one-stop connections on a date: pairs of flights, each with date,
    times, seats and prices per cabin."""
    return operations.search_onestop(context.database, origin, destination, date)


@tool(mcp=McpHints("Get a flight's status"))
def get_flight_status(
    context: ToolContext,
    flight_number: Annotated[
        str, Field(min_length=1, max_length=50, description="'HAT' and three digits.")
    ],
    date: Date,
) -> str:
    """Get a flight's status on a date: available, on time, delayed, flying, landed or
    cancelled."""
    return operations.flight_status(context.database, flight_number, date)


@tool(mcp=McpHints("Calculate"), claims=("calculation",))
def calculate(
    context: ToolContext,
    expression: Annotated[
        str,
        Field(
            max_length=1000,
            description="Numbers, + - * / and parentheses.",
        ),
    ],
) -> float:
    """Calculate an arithmetic expression, rounded to 2 decimals. Use it for every price
    and refund."""
    return evaluate_arithmetic(expression)


# Changes nothing in the database (it ends the agent's part of a conversation).
@tool(mcp=McpHints("Transfer to a human agent"), claims=("transfer",))
def transfer_to_human_agents(
    context: ToolContext,
    summary: Annotated[
        str,
        Field(
            max_length=5000,
            description="The customer's issue.",
        ),
    ],
) -> str:
    """Transfer the customer to a human agent (rule C6)."""
    return "Transfer successful"


# ---------------------------------------------------------------- writes


@tool(
    write=True,
    guard=guard.booking,
    # Books again on every call, and spends the payment methods' balances.
    mcp=McpHints("Book a reservation", destructive=True),
    # M5, M6: insurance and passengers come with a booking, never after.
    claims=("booking", "charge", "payment", "insurance addition", "passenger addition"),
)
def book_reservation(
    context: WriteContext,
    user_id: UserId,
    origin: Airport,
    destination: Annotated[Airport, Field(description="IATA code; a round trip's far end.")],
    flight_type: Annotated[
        Literal["one_way", "round_trip"], Field(description="As the customer asks.")
    ],
    cabin: Annotated[Cabin, Field(description="For every flight.")],
    flights: Annotated[
        list[FlightChoice],
        Field(min_length=1, max_length=10, description="Every flight of the trip, in order."),
    ],
    passengers: Annotated[list[Passenger], Field(min_length=1, max_length=10)],
    payment_methods: Annotated[
        list[PaymentPart],
        Field(
            min_length=1,
            max_length=10,
            description="Amounts summing to the total price.",
        ),
    ],
    total_baggages: Annotated[Bags, Field(description="Checked bags.")],
    nonfree_baggages: Annotated[Bags, Field(description="Bags beyond the free allowance.")],
    insurance: Annotated[Literal["yes", "no"], Field(description="$30 per passenger.")],
) -> Tau2Reservation:
    """Book a reservation and charge the payment methods; returns the new reservation."""
    return operations.book_reservation(
        context.rows,
        context.clock,
        user_id=user_id,
        origin=origin,
        destination=destination,
        flight_type=flight_type,
        cabin=cabin,
        flights=_flight_refs(flights),
        passengers=_passengers(passengers),
        payment_methods=[operations.PaymentLine(p.payment_id, p.amount) for p in payment_methods],
        total_baggages=total_baggages,
        nonfree_baggages=nonfree_baggages,
        insurance=insurance,
    )


@tool(
    write=True,
    guard=guard.cancellation,
    # A cancelled reservation stays cancelled: a second call is refused, refunds nothing.
    mcp=McpHints("Cancel a reservation", destructive=True, idempotent=True),
    claims=("cancellation", "refund"),
)
def cancel_reservation(
    context: WriteContext,
    reservation_id: ReservationId,
    reason: Annotated[
        CancellationReason | None,
        Field(description="The customer's reason (ask)."),
    ] = None,
) -> Tau2Reservation:
    """Cancel a whole reservation; every payment is refunded to its method."""
    return operations.cancel_reservation(context.rows, reservation_id)


@tool(
    write=True,
    guard=guard.flight_change,
    # Replaces the flights; the same flights again differ in nothing, cost nothing.
    mcp=McpHints("Change a reservation's flights or cabin", destructive=True, idempotent=True),
    # M4: the cabin changes through it; a cheaper itinerary is refunded.
    claims=("flight change", "cabin change", "refund", "charge", "payment"),
)
def update_reservation_flights(
    context: WriteContext,
    reservation_id: ReservationId,
    cabin: Annotated[Cabin, Field(description="For every flight, after the change.")],
    flights: Annotated[
        list[FlightChoice],
        Field(
            min_length=1,
            max_length=10,
            description="ALL flights of the reservation after the change, kept ones too.",
        ),
    ],
    payment_id: PaymentId,
) -> Tau2Reservation:
    """Change a reservation's flights and/or cabin; the difference is charged or refunded
    to payment_id."""
    return operations.update_flights(
        context.rows,
        reservation_id=reservation_id,
        cabin=cabin,
        flights=_flight_refs(flights),
        payment_id=payment_id,
    )


@tool(
    write=True,
    guard=guard.bag_change,
    # Sets the total (M5: only ever more); the same total again adds and charges nothing.
    mcp=McpHints("Set a reservation's checked bags", destructive=True, idempotent=True),
    claims=("bag change", "charge", "payment"),
)
def update_reservation_baggages(
    context: WriteContext,
    reservation_id: ReservationId,
    total_baggages: Annotated[Bags, Field(description="New total of checked bags.")],
    nonfree_baggages: Annotated[Bags, Field(description="How many are beyond the free allowance.")],
    payment_id: PaymentId,
) -> Tau2Reservation:
    """Set a reservation's checked bags; added non-free bags are charged to payment_id."""
    return operations.update_baggages(
        context.rows,
        reservation_id=reservation_id,
        total_baggages=total_baggages,
        nonfree_baggages=nonfree_baggages,
        payment_id=payment_id,
    )


@tool(
    write=True,
    guard=guard.passenger_change,
    # Overwrites the passengers' details with the ones given.
    mcp=McpHints("Change a reservation's passengers", destructive=True, idempotent=True),
    claims=("passenger change",),
)
def update_reservation_passengers(
    context: WriteContext,
    reservation_id: ReservationId,
    passengers: Annotated[
        list[Passenger],
        Field(
            min_length=1,
            max_length=10,
            description="All passengers after the change.",
        ),
    ],
) -> Tau2Reservation:
    """Change a reservation's passenger details."""
    return operations.update_passengers(
        context.rows, reservation_id=reservation_id, passengers=_passengers(passengers)
    )


@tool(
    write=True,
    guard=guard.compensation,
    # Adds a certificate to the profile, another one on every call.
    mcp=McpHints("Send a travel certificate"),
    claims=("certificate",),
)
def send_certificate(
    context: WriteContext,
    user_id: UserId,
    amount: Annotated[int, Field(ge=1, le=10_000, description="Whole dollars.")],
    reservation_id: Annotated[
        str | None,
        Field(max_length=200, description="The reservation concerned."),
    ] = None,
    reason: Annotated[
        CompensationReason | None,
        Field(description="What happened."),
    ] = None,
) -> str:
    """Send the customer a travel certificate as compensation (rules P1–P5)."""
    return operations.send_certificate(context.rows, user_id=user_id, amount=amount)
