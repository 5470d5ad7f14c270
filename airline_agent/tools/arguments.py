"""The argument types the tools share: what a model may send, checked by pydantic.

Every request carries all fourteen schemas, so descriptions say only what a model needs to
call a tool right: what an argument means where its name does not say it, and formats —
never a concrete id, which a small model may repeat as if it were data (issue 12: a real
model "confirmed" credit card 7815826, the example id these descriptions used to give).
The `min_length`/`max_length`/bounds below are validated and not advertised
(registry.UNADVERTISED).
"""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

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
