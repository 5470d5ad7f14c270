"""The 14 airline tools, with the τ²-bench names, parameters and effects.

Each tool is a thin, typed wrapper over `domain.operations`: the signature is the JSON
schema (see `registry.tool`), the docstring is what the model reads. A read tool gets the
toolbox (`ToolContext`: the database and the clock); a write tool gets the write
transaction its guard decided in (`WriteContext`), so the decision and the write see one
state (tools/toolbox.py). Every request
carries all fourteen schemas, so descriptions say only what a model needs to call a tool
right: what it does, what each argument means where the name does not say it, and
formats — never a concrete id, which a small model may repeat as if it were data
(issue 12: a real model "confirmed" credit card 7815826, the example id these
descriptions used to give). The `min_length`/`max_length`/bounds below are validated and
not advertised (registry.UNADVERTISED). Two optional parameters are ours, for the guard:
`reason` on `cancel_reservation` (policy X3) and `reservation_id` + `reason` on
`send_certificate` (P2–P4).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from sqlmodel import Session

from airline_agent.domain import operations
from airline_agent.domain.arithmetic import evaluate_arithmetic
from airline_agent.domain.cabins import Cabin
from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.domain.policy import CancellationReason, CompensationReason
from airline_agent.tools.registry import tool


class ToolContext(Protocol):
    """What a read tool reads from (the toolbox)."""

    database: Database
    clock: Clock
    dated_direct_flights: bool


@dataclass(frozen=True)
class WriteContext:
    """What a write tool writes in: the open write transaction and the clock."""

    session: Session
    clock: Clock


DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"

UserId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description="As the customer gives it.",
    ),
]
ReservationId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description="Six letters and digits.",
    ),
]
Airport = Annotated[
    str,
    Field(
        min_length=1,
        max_length=50,
        description="IATA code.",
    ),
]
Date = Annotated[
    str,
    Field(pattern=DATE_PATTERN, description="YYYY-MM-DD."),
]
PaymentId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description="An id from the customer's profile.",
    ),
]
Bags = Annotated[int, Field(ge=0, le=100)]


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


class FlightChoice(BaseModel):
    # One flight of the itinerary, on one date (a comment, not a docstring: pydantic
    # would put a docstring into every schema that uses the model).
    model_config = ConfigDict(extra="forbid")
    flight_number: Annotated[str, Field(min_length=1, max_length=50)]
    date: Date


class Passenger(BaseModel):
    model_config = ConfigDict(extra="forbid")
    first_name: Annotated[str, Field(min_length=1, max_length=100)]
    last_name: Annotated[str, Field(min_length=1, max_length=100)]
    dob: Annotated[str, Field(pattern=DATE_PATTERN, description="Date of birth.")]


class PaymentPart(BaseModel):
    # How much of the total one payment method pays.
    model_config = ConfigDict(extra="forbid")
    payment_id: PaymentId
    amount: Annotated[
        float,
        Field(ge=0, le=1_000_000, description="Dollars."),
        AfterValidator(_finite),
    ]


def _flight_refs(flights: list[FlightChoice]) -> list[operations.FlightRef]:
    return [operations.FlightRef(f.flight_number, f.date) for f in flights]


def _passengers(passengers: list[Passenger]) -> list[operations.PassengerDetails]:
    return [operations.PassengerDetails(p.first_name, p.last_name, p.dob) for p in passengers]


# ---------------------------------------------------------------- reads


@tool()
def get_user_details(context: ToolContext, user_id: UserId) -> dict[str, Any]:
    """Get a customer's profile: membership, payment methods with balances, saved
    passengers, reservation ids."""
    return operations.get_user(context.database, user_id)


@tool()
def get_reservation_details(context: ToolContext, reservation_id: ReservationId) -> dict[str, Any]:
    """Get a reservation: flights and prices paid, cabin, passengers, payments, bags,
    insurance, booking time, status."""
    return operations.get_reservation(context.database, reservation_id)


@tool()
def list_all_airports(context: ToolContext) -> list[dict[str, str]]:
    """List the airports served: IATA code and city."""
    return operations.list_airports(context.database)


@tool()
def search_direct_flight(
    context: ToolContext,
    origin: Airport,
    destination: Airport,
    date: Date,
) -> list[dict[str, Any]]:
    """Search bookable direct flights on a date: times (EST), seats and prices per
    cabin."""
    flights = operations.search_direct(context.database, origin, destination, date)
    if not context.dated_direct_flights:  # as τ²'s tool answers (`eval --like tau2`)
        return [{**flight, "date": None} for flight in flights]
    return flights


@tool()
def search_onestop_flight(
    context: ToolContext,
    origin: Airport,
    destination: Airport,
    date: Date,
) -> list[list[dict[str, Any]]]:
    """Search bookable one-stop connections on a date: pairs of flights, each with date,
    times, seats and prices per cabin."""
    return operations.search_onestop(context.database, origin, destination, date)


@tool()
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


@tool()
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


@tool()
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


@tool(write=True)
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
) -> dict[str, Any]:
    """Book a reservation and charge the payment methods; returns the new reservation."""
    return operations.book_reservation(
        context.session,
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


@tool(write=True)
def cancel_reservation(
    context: WriteContext,
    reservation_id: ReservationId,
    reason: Annotated[
        CancellationReason | None,
        Field(description="The customer's reason (ask)."),
    ] = None,
) -> dict[str, Any]:
    """Cancel a whole reservation; every payment is refunded to its method."""
    return operations.cancel_reservation(context.session, reservation_id)


@tool(write=True)
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
) -> dict[str, Any]:
    """Change a reservation's flights and/or cabin; the difference is charged or refunded
    to payment_id."""
    return operations.update_flights(
        context.session,
        reservation_id=reservation_id,
        cabin=cabin,
        flights=_flight_refs(flights),
        payment_id=payment_id,
    )


@tool(write=True)
def update_reservation_baggages(
    context: WriteContext,
    reservation_id: ReservationId,
    total_baggages: Annotated[Bags, Field(description="New total of checked bags.")],
    nonfree_baggages: Annotated[Bags, Field(description="How many are beyond the free allowance.")],
    payment_id: PaymentId,
) -> dict[str, Any]:
    """Set a reservation's checked bags; added non-free bags are charged to payment_id."""
    return operations.update_baggages(
        context.session,
        reservation_id=reservation_id,
        total_baggages=total_baggages,
        nonfree_baggages=nonfree_baggages,
        payment_id=payment_id,
    )


@tool(write=True)
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
) -> dict[str, Any]:
    """Change a reservation's passenger details."""
    return operations.update_passengers(
        context.session, reservation_id=reservation_id, passengers=_passengers(passengers)
    )


@tool(write=True)
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
    return operations.send_certificate(context.session, user_id=user_id, amount=amount)
