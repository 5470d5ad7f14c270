"""The plain values the operations take in (built by the tool layer from its arguments)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FlightRef:
    flight_number: str
    date: str


@dataclass(frozen=True)
class PassengerDetails:
    first_name: str
    last_name: str
    dob: str


@dataclass(frozen=True)
class PaymentLine:
    payment_id: str
    amount: float
