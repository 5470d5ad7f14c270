"""Changes to a reservation: cancel, bags, flights (and cabin), passengers.

The semantics are the τ²-bench reference's, quirks included: cancelling refunds every
payment line but releases no seat and credits no gift card; changing flights moves no
seat. Each change runs in the caller's write transaction (`database.write()`), on ORM
rows (the change recorder sees every row; a failure rolls everything back).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session

from airline_agent.domain import policy
from airline_agent.domain.errors import Conflict
from airline_agent.domain.operations import payments
from airline_agent.domain.operations.lookups import reservation_in
from airline_agent.domain.operations.rows import (
    check_cabin,
    flight_date_row,
    flight_row,
    in_transaction,
    payment_methods,
    price,
    reservation_parts,
    reservation_row,
    seats,
    user_row,
)
from airline_agent.domain.operations.values import FlightRef, PassengerDetails
from airline_agent.domain.schema import (
    Payment,
    Reservation,
    ReservationFlight,
    ReservationPassenger,
)


def cancel_reservation(session: Session, reservation_id: str) -> dict[str, Any]:
    """Cancel: a refund line (negative) for every payment line, status `cancelled`.
    As in the reference, seats are not released and gift cards are not credited."""
    reservation = reservation_row(session, reservation_id)
    if reservation.status == "cancelled":
        raise Conflict(f"Reservation {reservation.reservation_id} is already cancelled")
    lines = reservation_parts(session, Payment, reservation.reservation_id)
    for position, line in enumerate(lines, start=len(lines)):
        session.add(
            Payment(
                reservation_id=reservation.reservation_id,
                position=position,
                payment_id=line.payment_id,
                amount=-line.amount,
            )
        )
    reservation.status = "cancelled"
    session.flush()
    return reservation_in(in_transaction(session), reservation.reservation_id)


def update_baggages(
    session: Session,
    *,
    reservation_id: str,
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> dict[str, Any]:
    """Set the bag counts; $50 for each non-free bag beyond those already paid for."""
    reservation = reservation_row(session, reservation_id)
    user_row(session, reservation.user_id)
    charge = policy.bag_price(max(0, nonfree_baggages - reservation.nonfree_baggages))
    methods = payment_methods(session, reservation.user_id)
    payments.charge_for_update(methods.get(payment_id), payment_id, charge)
    if charge != 0:
        payments.append_payment(session, reservation.reservation_id, payment_id, charge)
    reservation.total_baggages = total_baggages
    reservation.nonfree_baggages = nonfree_baggages
    session.flush()
    return reservation_in(in_transaction(session), reservation.reservation_id)


# A segment's columns after a change (ReservationFlight's, but its key).
SegmentValues = dict[str, str | int]


def _new_segments(
    session: Session,
    reservation: Reservation,
    cabin: str,
    flights: Sequence[FlightRef],
    old_segments: Sequence[ReservationFlight],
    count: int,
) -> tuple[list[SegmentValues], int]:
    """The segments after the change and their fare for everyone: a kept segment in the
    same cabin keeps its price (M3); a new one must be bookable and costs today's price."""
    new_segments: list[SegmentValues] = []
    fare = 0
    for ref in flights:
        flight = flight_row(session, ref.flight_number)
        kept = next(
            (
                s
                for s in old_segments
                if s.flight_number == flight.flight_number
                and s.date == ref.date
                and cabin == reservation.cabin
            ),
            None,
        )
        if kept is not None:
            segment_price = kept.price
        else:
            flight_date = flight_date_row(session, flight, ref.date)
            if flight_date.status != "available":
                raise Conflict(f"Flight {flight.flight_number} not available on date {ref.date}")
            if seats(flight_date, cabin) < count:
                raise Conflict(f"Not enough seats on flight {flight.flight_number}")
            segment_price = price(flight_date, cabin)
        fare += segment_price * count
        new_segments.append(
            {
                "flight_number": flight.flight_number,
                "date": ref.date,
                "origin": flight.origin,
                "destination": flight.destination,
                "price": segment_price,
            }
        )
    return new_segments, fare


def _rewrite_segments(
    session: Session,
    reservation_id: str,
    old_segments: Sequence[ReservationFlight],
    new_segments: Sequence[SegmentValues],
) -> None:
    """Rewrite only the positions whose content changed, so the change list is exact."""
    for position, segment in enumerate(new_segments):
        if position < len(old_segments):
            row = old_segments[position]
            for field, value in segment.items():
                if getattr(row, field) != value:
                    setattr(row, field, value)
        else:
            session.add(
                ReservationFlight(reservation_id=reservation_id, position=position, **segment)
            )
    for row in old_segments[len(new_segments) :]:
        session.delete(row)


def update_flights(
    session: Session,
    *,
    reservation_id: str,
    cabin: str,
    flights: Sequence[FlightRef],
    payment_id: str,
) -> dict[str, Any]:
    """Replace the segments (and cabin). Kept segments in the same cabin keep their price
    (M3); new ones cost today's price; the difference is charged or refunded through one
    payment method. As in the reference, no seat moves."""
    check_cabin(cabin)
    reservation = reservation_row(session, reservation_id)
    user_row(session, reservation.user_id)
    key = reservation.reservation_id
    count = len(reservation_parts(session, ReservationPassenger, key))
    old_segments = reservation_parts(session, ReservationFlight, key)
    new_segments, fare = _new_segments(session, reservation, cabin, flights, old_segments, count)
    difference = fare - sum(s.price for s in old_segments) * count
    methods = payment_methods(session, reservation.user_id)
    payments.charge_for_update(methods.get(payment_id), payment_id, difference)
    if difference != 0:
        payments.append_payment(session, key, payment_id, difference)
    _rewrite_segments(session, key, old_segments, new_segments)
    if reservation.cabin != cabin:
        reservation.cabin = cabin
    session.flush()
    return reservation_in(in_transaction(session), key)


def update_passengers(
    session: Session, *, reservation_id: str, passengers: Sequence[PassengerDetails]
) -> dict[str, Any]:
    """Replace passenger details; the number of passengers cannot change (M6)."""
    reservation = reservation_row(session, reservation_id)
    rows = reservation_parts(session, ReservationPassenger, reservation.reservation_id)
    if len(passengers) != len(rows):
        raise Conflict(
            f"Number of passengers does not match: the reservation has {len(rows)}, "
            f"{len(passengers)} given"
        )
    for row, passenger in zip(rows, passengers, strict=True):
        for field in ("first_name", "last_name", "dob"):
            value = getattr(passenger, field)
            if getattr(row, field) != value:
                setattr(row, field, value)
    session.flush()
    return reservation_in(in_transaction(session), reservation.reservation_id)
