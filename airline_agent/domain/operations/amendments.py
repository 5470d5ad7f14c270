"""Changes to a reservation: cancel, bags, flights (and cabin), passengers.

The semantics are the τ²-bench reference's, quirks included: cancelling refunds every
payment line but releases no seat and credits no gift card; changing flights moves no
seat. Each change runs in the caller's write transaction (`database.write()`), on ORM
rows (the change recorder sees every row; a failure rolls everything back).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from airline_agent.domain import policy
from airline_agent.domain.errors import Conflict
from airline_agent.domain.operations.payments import charge_for_update
from airline_agent.domain.operations.rows import (
    WriteRows,
    check_cabin,
    flight_date_row,
    flight_row,
    price,
    reservation_row,
    seats,
    user_row,
)
from airline_agent.domain.operations.values import FlightRef, PassengerDetails
from airline_agent.domain.schema import Reservation, ReservationFlight
from airline_agent.domain.tau2_shape import Tau2Reservation


def cancel_reservation(rows: WriteRows, reservation_id: str) -> Tau2Reservation:
    """Cancel: a refund line (negative) for every payment line, status `cancelled`.
    As in the reference, seats are not released and gift cards are not credited."""
    reservation = reservation_row(rows, reservation_id)
    if reservation.status == "cancelled":
        raise Conflict(f"Reservation {reservation.reservation_id} is already cancelled")
    for line in list(rows.payments(reservation)):
        rows.add_payment(reservation, line.payment_id, -line.amount)
    reservation.status = "cancelled"
    rows.session.flush()
    return rows.result(reservation)


def update_baggages(
    rows: WriteRows,
    *,
    reservation_id: str,
    total_baggages: int,
    nonfree_baggages: int,
    payment_id: str,
) -> Tau2Reservation:
    """Set the bag counts; $50 for each non-free bag beyond those already paid for."""
    reservation = reservation_row(rows, reservation_id)
    user_row(rows, reservation.user_id)
    charge = policy.bag_price(max(0, nonfree_baggages - reservation.nonfree_baggages))
    methods = rows.payment_methods(reservation.user_id)
    charge_for_update(methods.get(payment_id), payment_id, charge)
    if charge != 0:
        rows.add_payment(reservation, payment_id, charge)
    reservation.total_baggages = total_baggages
    reservation.nonfree_baggages = nonfree_baggages
    rows.session.flush()
    return rows.result(reservation)


class SegmentValues(TypedDict):
    """A segment's columns after a change (ReservationFlight's, but its key)."""

    flight_number: str
    date: str
    origin: str
    destination: str
    price: int


def _new_segments(
    rows: WriteRows,
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
        flight = flight_row(rows, ref.flight_number)
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
            flight_date = flight_date_row(rows, flight, ref.date)
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
    rows: WriteRows,
    reservation: Reservation,
    old_segments: Sequence[ReservationFlight],
    new_segments: Sequence[SegmentValues],
) -> list[ReservationFlight]:
    """Rewrite only the positions whose content changed, so the change list is exact;
    the segments after the change."""
    segments = []
    for position, values in enumerate(new_segments):
        if position < len(old_segments):
            row = old_segments[position]
            for field, value in values.items():
                if getattr(row, field) != value:
                    setattr(row, field, value)
        else:
            row = ReservationFlight(
                reservation_id=reservation.reservation_id, position=position, **values
            )
            rows.session.add(row)
        segments.append(row)
    for row in old_segments[len(new_segments) :]:
        rows.session.delete(row)
    return segments


def update_flights(
    rows: WriteRows,
    *,
    reservation_id: str,
    cabin: str,
    flights: Sequence[FlightRef],
    payment_id: str,
) -> Tau2Reservation:
    """Replace the segments (and cabin). Kept segments in the same cabin keep their price
    (M3); new ones cost today's price; the difference is charged or refunded through one
    payment method. As in the reference, no seat moves."""
    check_cabin(cabin)
    reservation = reservation_row(rows, reservation_id)
    user_row(rows, reservation.user_id)
    count = len(rows.passengers(reservation))
    old_segments = rows.segments(reservation)
    new_segments, fare = _new_segments(rows, reservation, cabin, flights, old_segments, count)
    difference = fare - sum(s.price for s in old_segments) * count
    methods = rows.payment_methods(reservation.user_id)
    charge_for_update(methods.get(payment_id), payment_id, difference)
    if difference != 0:
        rows.add_payment(reservation, payment_id, difference)
    rows.set_segments(reservation, _rewrite_segments(rows, reservation, old_segments, new_segments))
    if reservation.cabin != cabin:
        reservation.cabin = cabin
    rows.session.flush()
    return rows.result(reservation)


def update_passengers(
    rows: WriteRows, *, reservation_id: str, passengers: Sequence[PassengerDetails]
) -> Tau2Reservation:
    """Replace passenger details; the number of passengers cannot change (M6)."""
    reservation = reservation_row(rows, reservation_id)
    stored = rows.passengers(reservation)
    if len(passengers) != len(stored):
        raise Conflict(
            f"Number of passengers does not match: the reservation has {len(stored)}, "
            f"{len(passengers)} given"
        )
    for row, passenger in zip(stored, passengers, strict=True):
        for field in ("first_name", "last_name", "dob"):
            value = getattr(passenger, field)
            if getattr(row, field) != value:
                setattr(row, field, value)
    rows.session.flush()
    return rows.result(reservation)
