"""The 14 airline tools, with the τ²-bench names, parameters and effects.

Each tool is a thin, typed wrapper over `domain.operations`: the signature is the JSON
schema (see `registry.tool`), the docstring is what the model reads. Two optional
parameters are ours, for the guard: `reason` on `cancel_reservation` (policy X3) and
`reservation_id` + `reason` on `send_certificate` (P2–P4).
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from airline_agent.domain import operations
from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.tools.registry import tool


class ToolContext(Protocol):
    database: Database
    clock: Clock


Cabin = Literal["basic_economy", "economy", "business"]

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"

UserId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description="The customer's user id, such as 'sara_doe_496'.",
    ),
]
ReservationId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description="The six-character reservation id, such as 'ZFA04Y'.",
    ),
]
Airport = Annotated[
    str,
    Field(
        min_length=1,
        max_length=50,
        description="An airport's three-letter IATA code, such as 'JFK'.",
    ),
]
Date = Annotated[
    str,
    Field(
        pattern=DATE_PATTERN, description="A date in the format YYYY-MM-DD, such as '2024-05-17'."
    ),
]
PaymentId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description="A payment method id from the customer's profile, such as "
        "'credit_card_7815826' or 'gift_card_7815826' (a certificate cannot pay for changes).",
    ),
]
Bags = Annotated[int, Field(ge=0, le=100)]


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


class FlightChoice(BaseModel):
    """One flight of the itinerary, on one date."""

    model_config = ConfigDict(extra="forbid")
    flight_number: Annotated[
        str, Field(min_length=1, max_length=50, description="Flight number, such as 'HAT001'.")
    ]
    date: Date


class Passenger(BaseModel):
    model_config = ConfigDict(extra="forbid")
    first_name: Annotated[str, Field(min_length=1, max_length=100, description="e.g. 'Noah'.")]
    last_name: Annotated[str, Field(min_length=1, max_length=100, description="e.g. 'Brown'.")]
    dob: Annotated[
        str,
        Field(pattern=DATE_PATTERN, description="Date of birth, YYYY-MM-DD, e.g. '1990-01-01'."),
    ]


class PaymentPart(BaseModel):
    """How much of the total one payment method pays."""

    model_config = ConfigDict(extra="forbid")
    payment_id: PaymentId
    amount: Annotated[
        float,
        Field(ge=0, le=1_000_000, description="Amount in dollars charged to this method."),
        AfterValidator(_finite),
    ]


def _flight_refs(flights: list[FlightChoice]) -> list[operations.FlightRef]:
    return [operations.FlightRef(f.flight_number, f.date) for f in flights]


def _passengers(passengers: list[Passenger]) -> list[operations.PassengerDetails]:
    return [operations.PassengerDetails(p.first_name, p.last_name, p.dob) for p in passengers]


# ---------------------------------------------------------------- reads


@tool()
def get_user_details(context: ToolContext, user_id: UserId) -> dict[str, Any]:
    """Get a customer's profile: name, address, email, date of birth, membership
    (regular/silver/gold), payment methods (credit cards, gift cards and certificates with
    their balances), saved passengers and the ids of their reservations. Changes nothing."""
    return operations.get_user(context.database, user_id)


@tool()
def get_reservation_details(context: ToolContext, reservation_id: ReservationId) -> dict[str, Any]:
    """Get a reservation: trip (origin, destination, one way or round trip), cabin, flights
    with the price paid per passenger, passengers, payment history (refunds are negative),
    bags, insurance, when it was booked and its status. Changes nothing."""
    return operations.get_reservation(context.database, reservation_id)


@tool()
def list_all_airports(context: ToolContext) -> list[dict[str, str]]:
    """List every airport the airline serves: IATA code and city. Changes nothing."""
    return operations.list_airports(context.database)


@tool()
def search_direct_flight(
    context: ToolContext,
    origin: Airport,
    destination: Airport,
    date: Date,
) -> list[dict[str, Any]]:
    """Search direct flights between two airports on one date. Returns only bookable
    flights (status 'available') with scheduled times (EST), seats left and price per
    passenger for each cabin. Changes nothing."""
    return operations.search_direct(context.database, origin, destination, date)


@tool()
def search_onestop_flight(
    context: ToolContext,
    origin: Airport,
    destination: Airport,
    date: Date,
) -> list[list[dict[str, Any]]]:
    """Search one-stop connections between two airports: pairs [first flight, second
    flight], the second leaving the stop after the first arrives (the next day when the
    first arrives after midnight, '+1'). Each flight has its date, times, seats and prices
    per cabin. Changes nothing."""
    return operations.search_onestop(context.database, origin, destination, date)


@tool()
def get_flight_status(
    context: ToolContext,
    flight_number: Annotated[
        str, Field(min_length=1, max_length=50, description="Flight number, such as 'HAT001'.")
    ],
    date: Date,
) -> str:
    """Get the status of a flight on a date: available, on time, delayed, flying, landed or
    cancelled. Changes nothing."""
    return operations.flight_status(context.database, flight_number, date)


@tool()
def calculate(
    context: ToolContext,
    expression: Annotated[
        str,
        Field(
            max_length=1000,
            description="An arithmetic expression with numbers, + - * /, parentheses and "
            "spaces, such as '2 * (150 + 30)'.",
        ),
    ],
) -> str:
    """Calculate an arithmetic expression; the result is rounded to 2 decimal places.
    Use it for prices and refunds instead of doing arithmetic in your head."""
    return operations.calculate(expression)


@tool()
def transfer_to_human_agents(
    context: ToolContext,
    summary: Annotated[
        str,
        Field(
            max_length=5000,
            description="A short summary of the customer's issue for the human agent.",
        ),
    ],
) -> str:
    """Transfer the customer to a human agent, with a summary of the issue. Only when the
    customer explicitly asks for a human, or the request cannot be handled with these tools
    and the policy. Then tell the customer they are being transferred."""
    return "Transfer successful"


# ---------------------------------------------------------------- writes


@tool(write=True)
def book_reservation(
    context: ToolContext,
    user_id: UserId,
    origin: Annotated[
        Airport, Field(description="IATA code where the trip starts, such as 'SFO'.")
    ],
    destination: Annotated[
        Airport,
        Field(description="IATA code of the trip's destination (the far end of a round trip)."),
    ],
    flight_type: Annotated[
        Literal["one_way", "round_trip"], Field(description="'one_way' or 'round_trip'.")
    ],
    cabin: Annotated[Cabin, Field(description="One cabin for every flight.")],
    flights: Annotated[
        list[FlightChoice],
        Field(min_length=1, max_length=10, description="Every flight of the trip, in order."),
    ],
    passengers: Annotated[
        list[Passenger],
        Field(min_length=1, max_length=10, description="Each traveller (at most 5)."),
    ],
    payment_methods: Annotated[
        list[PaymentPart],
        Field(
            min_length=1,
            max_length=10,
            description="Methods from the profile and the amount each pays; the amounts must "
            "add up exactly to the total price (fares × passengers + $30 per passenger "
            "with insurance + $50 per non-free bag).",
        ),
    ],
    total_baggages: Annotated[Bags, Field(description="Checked bags in total.")],
    nonfree_baggages: Annotated[
        Bags, Field(description="How many of those bags are beyond the free allowance ($50 each).")
    ],
    insurance: Annotated[
        Literal["yes", "no"],
        Field(description="Travel insurance, $30 per passenger: 'yes' or 'no'."),
    ],
) -> dict[str, Any]:
    """Book a new reservation for the customer. Takes seats on each flight, charges the
    payment methods (debits gift cards, uses up a certificate entirely) and returns the
    reservation with its new id. Only flights with status 'available' can be booked."""
    return operations.book_reservation(
        context.database,
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


CancellationReason = Literal["change_of_plan", "airline_cancelled", "health", "weather", "other"]


@tool(write=True)
def cancel_reservation(
    context: ToolContext,
    reservation_id: ReservationId,
    reason: Annotated[
        CancellationReason | None,
        Field(
            description="Why the customer cancels: change_of_plan, airline_cancelled, health, "
            "weather or other. Ask the customer; it decides whether the cancellation is allowed."
        ),
    ] = None,
) -> dict[str, Any]:
    """Cancel a whole reservation: every payment is refunded to its original method
    (refund lines in the payment history; 5–7 business days) and the status becomes
    'cancelled'."""
    return operations.cancel_reservation(context.database, reservation_id)


@tool(write=True)
def update_reservation_flights(
    context: ToolContext,
    reservation_id: ReservationId,
    cabin: Annotated[Cabin, Field(description="The cabin for every flight after the change.")],
    flights: Annotated[
        list[FlightChoice],
        Field(
            min_length=1,
            max_length=10,
            description="Every flight of the ENTIRE reservation after the change, in order, "
            "including the flights that do not change.",
        ),
    ],
    payment_id: PaymentId,
) -> dict[str, Any]:
    """Change the flights and/or the cabin of a reservation. Kept flights keep the price
    paid; new flights cost today's price; the difference is charged to (or refunded to)
    `payment_id`."""
    return operations.update_flights(
        context.database,
        reservation_id=reservation_id,
        cabin=cabin,
        flights=_flight_refs(flights),
        payment_id=payment_id,
    )


@tool(write=True)
def update_reservation_baggages(
    context: ToolContext,
    reservation_id: ReservationId,
    total_baggages: Annotated[Bags, Field(description="The new total number of checked bags.")],
    nonfree_baggages: Annotated[
        Bags, Field(description="The new number of bags beyond the free allowance ($50 each).")
    ],
    payment_id: PaymentId,
) -> dict[str, Any]:
    """Set the number of checked bags of a reservation. Each added non-free bag costs $50,
    charged to `payment_id`."""
    return operations.update_baggages(
        context.database,
        reservation_id=reservation_id,
        total_baggages=total_baggages,
        nonfree_baggages=nonfree_baggages,
        payment_id=payment_id,
    )


@tool(write=True)
def update_reservation_passengers(
    context: ToolContext,
    reservation_id: ReservationId,
    passengers: Annotated[
        list[Passenger],
        Field(
            min_length=1,
            max_length=10,
            description="Every passenger after the change, in the same number as before.",
        ),
    ],
) -> dict[str, Any]:
    """Change the passengers' names or dates of birth. The number of passengers cannot
    change."""
    return operations.update_passengers(
        context.database, reservation_id=reservation_id, passengers=_passengers(passengers)
    )


CompensationReason = Literal["cancelled_flight", "delayed_flight"]


@tool(write=True)
def send_certificate(
    context: ToolContext,
    user_id: UserId,
    amount: Annotated[
        int, Field(ge=1, le=10_000, description="The certificate's amount in whole dollars.")
    ],
    reservation_id: Annotated[
        str | None,
        Field(max_length=200, description="The reservation the compensation is for."),
    ] = None,
    reason: Annotated[
        CompensationReason | None,
        Field(description="What happened: cancelled_flight or delayed_flight."),
    ] = None,
) -> str:
    """Send a travel certificate to the customer as compensation (it is added to their
    payment methods). Be careful: only when the policy allows it and the customer asks."""
    return operations.send_certificate(context.database, user_id=user_id, amount=amount)
