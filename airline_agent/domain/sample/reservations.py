"""The sample's reservations: real routes of the generated flights, on dates that exist.

A third fly one direct flight out, the rest a two-flight connection; about half come
back (the same way, mostly). Fares are drawn per cabin, passengers are the customer,
their saved passengers or strangers, and each reservation was booked before it flies.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from airline_agent.domain.cabins import CABINS
from airline_agent.domain.loading import TableRows
from airline_agent.domain.sample.customers import SampleCustomer
from airline_agent.domain.sample.draws import (
    DATES,
    ID_CHARACTERS,
    ID_TABLE,
    TODAY,
    Choice,
    RandInt,
    dob,
    draws,
)
from airline_agent.domain.sample.names import FIRST_NAMES, LAST_NAMES
from airline_agent.domain.sample.schedule import SampleFlight

_PRICE_RANGES = {"basic_economy": (50, 100), "economy": (100, 200), "business": (200, 500)}
_PASSENGER_COUNTS = (1, 2, 3, 4)
_PASSENGER_WEIGHTS = (920, 662, 323, 95)
_BAGS = (0, 1, 2, 3, 4, 5, 6, 7, 8)
_BAG_WEIGHTS = (1075, 433, 277, 99, 71, 19, 19, 2, 5)

Path = tuple[SampleFlight, ...]
Trip = list[tuple[SampleFlight, int]]


class Routes:
    """Direct flights and two-flight connections between every pair of airports."""

    def __init__(self, flights: list[SampleFlight]) -> None:
        self.flights = flights
        departing: dict[str, list[SampleFlight]] = {}
        for flight in flights:
            departing.setdefault(flight.origin, []).append(flight)
        self.direct: dict[tuple[str, str], list[Path]] = {}
        self.connecting: dict[tuple[str, str], list[Path]] = {}
        self.all_connecting: list[Path] = []
        for flight in flights:
            self.direct.setdefault((flight.origin, flight.destination), []).append((flight,))
            for onward in departing.get(flight.destination, ()):
                if onward.destination != flight.origin:
                    path = (flight, onward)
                    self.connecting.setdefault((flight.origin, onward.destination), []).append(path)
                    self.all_connecting.append(path)


def _dated(path: Path, day: int) -> Trip:
    """Each flight of the path with its day: a connection leaves ≥ 1 h after arrival."""
    dated = [(path[0], day)]
    ready = day * 1440 + path[0].arrival + 60
    for flight in path[1:]:
        while day * 1440 + flight.departure < ready:
            day += 1
        dated.append((flight, day))
        ready = day * 1440 + flight.arrival + 60
    return dated


def _trip(
    routes: Routes, randint: RandInt, choice: Choice, random_: Callable[[], float]
) -> tuple[Trip, str, str, bool]:
    """The flights with their days, the trip's origin and destination, and whether it
    comes back."""
    outbound = (choice(routes.flights),) if random_() < 0.3 else choice(routes.all_connecting)
    origin, destination = outbound[0].origin, outbound[-1].destination
    back = None
    if random_() < 0.48:
        same = routes.direct if len(outbound) == 1 else routes.connecting
        other = routes.connecting if len(outbound) == 1 else routes.direct
        if random_() < 0.1:
            same, other = other, same
        back = same.get((destination, origin)) or other.get((destination, origin))
    if back:
        # Outbound by day 21 and back within 4 days keeps every flight in May 1..30.
        trip = _dated(outbound, randint(0, 21))
        trip += _dated(choice(back), trip[-1][1] + randint(1, 4))
        return trip, origin, destination, True
    return _dated(outbound, randint(0, 27)), origin, destination, False


def _segment_rows(
    reservation_id: str, trip: Trip, cabin: str, randint: RandInt, rows: TableRows
) -> int:
    """The trip's segments with their fares; returns the fare of one passenger."""
    low, high = _PRICE_RANGES[cabin]
    fare = 0
    for position, (flight, day) in enumerate(trip):
        price = randint(low, high)
        fare += price
        rows.reservation_flights.append(
            {
                "reservation_id": reservation_id,
                "position": position,
                "flight_number": flight.number,
                "date": DATES[day + 1],
                "origin": flight.origin,
                "destination": flight.destination,
                "price": price,
            }
        )
    return fare


def _passenger_rows(
    reservation_id: str,
    customer: SampleCustomer,
    travellers: int,
    rng: random.Random,
    choice: Choice,
    rows: TableRows,
) -> None:
    random_ = rng.random
    for position in range(travellers):
        if position == 0 and random_() < 0.5:
            person = (customer.first_name, customer.last_name, customer.dob)
        elif position <= len(customer.saved) and random_() < 0.5:
            person = customer.saved[position - 1]
        else:
            person = (choice(FIRST_NAMES), choice(LAST_NAMES), dob(rng, 1940, 2012))
        rows.reservation_passengers.append(
            {
                "reservation_id": reservation_id,
                "position": position,
                "first_name": person[0],
                "last_name": person[1],
                "dob": person[2],
            }
        )


def _created_at(trip: Trip, randint: RandInt) -> str:
    """Booked before the first flight, between 2024-04-30 and the clock's date."""
    first_day = trip[0][1]
    booked_day = randint(max(-1, first_day - 14), max(-1, min(first_day, TODAY) - 1))
    booked = randint(0, 86399)
    return f"{DATES[booked_day + 1]}T{booked // 3600:02d}:{booked // 60 % 60:02d}:{booked % 60:02d}"


def reservation_rows(
    count: int,
    customers: list[SampleCustomer],
    routes: Routes,
    rng: random.Random,
    rows: TableRows,
    first_seq: int,
    taken: set[str],
) -> None:
    randint, choice, random_ = draws(rng)
    ids = rng.randbytes(6 * count).translate(ID_TABLE).decode("ascii")
    cabins = rng.choices(CABINS, k=count)
    passenger_counts = rng.choices(_PASSENGER_COUNTS, _PASSENGER_WEIGHTS, k=count)
    bags = rng.choices(_BAGS, _BAG_WEIGHTS, k=count)
    for index in range(count):
        reservation_id = ids[6 * index : 6 * index + 6]
        while reservation_id in taken:
            reservation_id = "".join(rng.choices(ID_CHARACTERS, k=6))
        taken.add(reservation_id)
        customer = choice(customers)
        trip, origin, destination, round_trip = _trip(routes, randint, choice, random_)
        cabin = cabins[index]
        fare = _segment_rows(reservation_id, trip, cabin, randint, rows)
        travellers = passenger_counts[index]
        _passenger_rows(reservation_id, customer, travellers, rng, choice, rows)
        insured = random_() < 0.5
        rows.payments.append(
            {
                "reservation_id": reservation_id,
                "position": 0,
                "payment_id": choice(customer.cards),
                "amount": fare * travellers + (30 * travellers if insured else 0),
            }
        )
        reservation: dict[str, Any] = {
            "seq": first_seq + index,
            "reservation_id": reservation_id,
            "user_id": customer.user_id,
            "origin": origin,
            "destination": destination,
            "flight_type": "round_trip" if round_trip else "one_way",
            "cabin": cabin,
            "created_at": _created_at(trip, randint),
            "total_baggages": bags[index],
            "nonfree_baggages": 0,
            "insurance": "yes" if insured else "no",
            "status": None,
        }
        rows.reservations.append(reservation)
