"""The sample's flights: 300 numbers on random routes and times, and each one's 30 dates.

Dates before the clock's are landed or cancelled; the clock's own date is landed,
flying, on time or delayed by the flight's times; later dates are bookable with seats
and prices per cabin. The showcase flights and travel dates are the reference's.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from airline_agent.domain import showcase
from airline_agent.domain.airports import AIRPORT_CODES
from airline_agent.domain.loading import TableRows
from airline_agent.domain.sample.draws import DATES, DAYS, NOW_MINUTES, TODAY, RandInt, draws
from airline_agent.domain.tau2 import flight_date_row

FLIGHTS = 300

_DURATIONS = (60, 90, 120, 150, 180, 210, 240, 270, 300, 330, 360)
_DURATION_WEIGHTS = (25, 16, 69, 19, 52, 18, 48, 19, 13, 6, 15)


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


def _timestamp(day: int, minutes: int) -> str:
    """Day index plus minutes (may be negative or past midnight) as an ISO timestamp."""
    day += minutes // 1440
    minutes %= 1440
    return f"{DATES[day + 1]}T{minutes // 60:02d}:{minutes % 60:02d}:00"


class SampleFlight:
    __slots__ = ("arrival", "departure", "destination", "duration", "number", "origin")

    def __init__(self, number: str, origin: str, destination: str, departure: int, duration: int):
        self.number = number
        self.origin = origin
        self.destination = destination
        self.departure = departure  # minutes after midnight
        self.duration = duration
        self.arrival = departure + duration  # may exceed 1440: next day


def _minutes(text: str) -> int:
    return int(text[:2]) * 60 + int(text[3:5]) + (1440 if text.endswith("+1") else 0)


def schedule(rng: random.Random) -> list[SampleFlight]:
    flights = []
    for index in range(1, FLIGHTS + 1):
        number = f"HAT{index:03d}"
        pinned = showcase.SHOWCASE_FLIGHTS.get(number)
        if pinned:
            origin, destination, departs, arrives = pinned
            departure = _minutes(departs)
            flights.append(
                SampleFlight(number, origin, destination, departure, _minutes(arrives) - departure)
            )
            continue
        origin, destination = rng.sample(AIRPORT_CODES, 2)
        departure = rng.randrange(24) * 60
        duration = rng.choices(_DURATIONS, _DURATION_WEIGHTS)[0]
        flights.append(SampleFlight(number, origin, destination, departure, duration))
    return flights


def _date_row(
    flight: SampleFlight, day: int, randint: RandInt, random_: Callable[[], float]
) -> dict[str, str | int | None]:
    """The flight on day `day`: bookable after the clock's date, else what happened."""
    row: dict[str, str | int | None] = {
        "flight_number": flight.number,
        "date": DATES[day + 1],
        "status": "available",
        "seats_basic_economy": None,
        "seats_economy": None,
        "seats_business": None,
        "price_basic_economy": None,
        "price_economy": None,
        "price_business": None,
        "actual_departure_time_est": None,
        "actual_arrival_time_est": None,
        "estimated_departure_time_est": None,
        "estimated_arrival_time_est": None,
    }
    if day > TODAY:
        row["seats_basic_economy"] = randint(0, 20)
        row["seats_economy"] = randint(0, 20)
        row["seats_business"] = randint(0, 20)
        row["price_basic_economy"] = randint(50, 100)
        row["price_economy"] = randint(100, 200)
        row["price_business"] = randint(200, 500)
        return row
    departs = flight.departure + randint(-30, 30)
    arrives = departs + flight.duration + randint(-20, 20)
    if day < TODAY:
        if random_() < 0.09:
            row["status"] = "cancelled"
        else:
            row["status"] = "landed"
            row["actual_departure_time_est"] = _timestamp(day, departs)
            row["actual_arrival_time_est"] = _timestamp(day, arrives)
    elif arrives <= NOW_MINUTES:
        row["status"] = "landed"
        row["actual_departure_time_est"] = _timestamp(day, departs)
        row["actual_arrival_time_est"] = _timestamp(day, arrives)
    elif departs <= NOW_MINUTES:
        row["status"] = "flying"
        row["actual_departure_time_est"] = _timestamp(day, departs)
        row["estimated_arrival_time_est"] = _timestamp(day, arrives)
    else:
        if random_() < 0.42:
            row["status"] = "delayed"
            delay = randint(30, 180)
            departs, arrives = departs + delay, arrives + delay
        else:
            row["status"] = "on time"
        row["estimated_departure_time_est"] = _timestamp(day, departs)
        row["estimated_arrival_time_est"] = _timestamp(day, arrives)
    return row


def flight_rows(flights: list[SampleFlight], rng: random.Random, rows: TableRows) -> None:
    randint, _, random_ = draws(rng)
    for flight in flights:
        arrives = flight.arrival
        arrival_text = _clock(arrives % 1440) + ("+1" if arrives >= 1440 else "")
        rows.flights.append(
            {
                "flight_number": flight.number,
                "origin": flight.origin,
                "destination": flight.destination,
                "scheduled_departure_time_est": _clock(flight.departure),
                "scheduled_arrival_time_est": arrival_text,
            }
        )
        for day in range(DAYS):
            rows.flight_dates.append(_date_row(flight, day, randint, random_))
    # The showcase's travel dates are exactly as in the reference.
    for index, row in enumerate(rows.flight_dates):
        pinned = showcase.SHOWCASE_FLIGHT_DATES.get((row["flight_number"], row["date"]))
        if pinned:
            rows.flight_dates[index] = flight_date_row(row["flight_number"], row["date"], pinned)
