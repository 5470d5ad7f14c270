"""Booking a reservation: seats on every segment, payment, the new reservation's rows.

In the caller's write transaction, under the write lock: the seats left and the balances
are read inside it, so the last seat goes to one buyer only and the other is told there
are not enough seats; the new id is the next free one of the reference's sequence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from sqlmodel import func, select

from airline_agent.domain import policy
from airline_agent.domain.clock import Clock
from airline_agent.domain.errors import Conflict
from airline_agent.domain.operations.ids import next_reservation_id
from airline_agent.domain.operations.payments import pay_for_booking
from airline_agent.domain.operations.rows import (
    WriteRows,
    check_cabin,
    flight_date_row,
    flight_row,
    price,
    seats,
    user_row,
)
from airline_agent.domain.operations.values import FlightRef, PassengerDetails, PaymentLine
from airline_agent.domain.schema import (
    Flight,
    FlightDate,
    Payment,
    Reservation,
    ReservationFlight,
    ReservationPassenger,
    UserReservation,
)
from airline_agent.domain.tau2_shape import Tau2Reservation, reservation_record

Segment = tuple[Flight, FlightDate]


def _segments_to_book(
    rows: WriteRows, flights: Sequence[FlightRef], cabin: str, count: int
) -> tuple[list[Segment], int]:
    """Each flight on its date, checked bookable with `count` seats left in the cabin
    (the same flight twice needs the seats twice), and the fare for everyone."""
    segments: list[Segment] = []
    seats_needed: Counter[tuple[str, str]] = Counter()
    fare = 0
    for ref in flights:
        flight = flight_row(rows, ref.flight_number)
        flight_date = flight_date_row(rows, flight, ref.date)
        if flight_date.status != "available":
            raise Conflict(f"Flight {flight.flight_number} not available on date {ref.date}")
        seats_needed[(flight.flight_number, ref.date)] += count
        if seats(flight_date, cabin) < seats_needed[(flight.flight_number, ref.date)]:
            raise Conflict(f"Not enough seats on flight {flight.flight_number}")
        fare += price(flight_date, cabin) * count
        segments.append((flight, flight_date))
    return segments, fare


def _parts(
    reservation_id: str,
    segments: Sequence[Segment],
    cabin: str,
    passengers: Sequence[PassengerDetails],
    lines: Sequence[PaymentLine],
) -> tuple[list[ReservationFlight], list[ReservationPassenger], list[Payment]]:
    """The new reservation's segments, passengers and payment lines, in order."""
    return (
        [
            ReservationFlight(
                reservation_id=reservation_id,
                position=position,
                flight_number=flight.flight_number,
                date=flight_date.date,
                origin=flight.origin,
                destination=flight.destination,
                price=price(flight_date, cabin),
            )
            for position, (flight, flight_date) in enumerate(segments)
        ],
        [
            ReservationPassenger(
                reservation_id=reservation_id,
                position=position,
                first_name=passenger.first_name,
                last_name=passenger.last_name,
                dob=passenger.dob,
            )
            for position, passenger in enumerate(passengers)
        ],
        [
            Payment(
                reservation_id=reservation_id,
                position=position,
                payment_id=line.payment_id,
                amount=float(line.amount),
            )
            for position, line in enumerate(lines)
        ],
    )


def book_reservation(
    rows: WriteRows,
    clock: Clock,
    *,
    user_id: str,
    origin: str,
    destination: str,
    flight_type: str,
    cabin: str,
    flights: Sequence[FlightRef],
    passengers: Sequence[PassengerDetails],
    payment_methods: Sequence[PaymentLine],
    total_baggages: int,
    nonfree_baggages: int,
    insurance: str,
) -> Tau2Reservation:
    """Book: take seats on every segment, debit gift cards, use up certificates."""
    check_cabin(cabin)
    user = user_row(rows, user_id)
    count = len(passengers)
    reservation_id = next_reservation_id(session=rows.session)
    segments, total_price = _segments_to_book(rows, flights, cabin, count)
    total_price += policy.insurance_price(insurance, count)
    total_price += policy.bag_price(nonfree_baggages)
    pay_for_booking(rows, user.user_id, payment_methods, total_price)
    for _, flight_date in segments:
        column = f"seats_{cabin}"
        setattr(flight_date, column, seats(flight_date, cabin) - count)
    reservation = Reservation(
        reservation_id=reservation_id,
        user_id=user.user_id,
        origin=origin,
        destination=destination,
        flight_type=flight_type,
        cabin=cabin,
        created_at=clock.iso(),
        total_baggages=total_baggages,
        nonfree_baggages=nonfree_baggages,
        insurance=insurance,
        status=None,
    )
    rows.session.add(reservation)
    # The user's list of reservations gains the new one at its end, as τ²'s booking
    # appends it (the list is kept as τ² keeps it: schema.UserReservation).
    listed = rows.session.exec(
        select(func.count()).where(UserReservation.user_id == user.user_id)
    ).one()
    rows.session.add(
        UserReservation(user_id=user.user_id, position=listed, reservation_id=reservation_id)
    )
    rows.session.flush()  # the reservation first: its parts refer to it
    parts = _parts(reservation_id, segments, cabin, passengers, payment_methods)
    for part in parts:
        rows.session.add_all(part)
    rows.session.flush()
    return reservation_record(reservation, *parts, as_tool_result=True)
