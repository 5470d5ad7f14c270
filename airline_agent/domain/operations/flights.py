"""Reads of flights: airports, bookable flights (direct and one-stop), flight status.
One read transaction each, as in lookups.py. (The schedule facts the guard judges a
write by are read in the write's transaction: rows.WriteRows.schedule.)

The searches read dozens of flights and dates only to show them: they take the models'
columns as plain rows (the same `select()`s, run on the read transaction's connection,
SQLAlchemy Core), since a row that is never changed needs nothing the ORM keeps for one
(its identity, its changes), and a model waiting for a search waits for all of it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TypedDict

from sqlalchemy import Connection, bindparam
from sqlmodel import col, select

from airline_agent.domain.db import Database
from airline_agent.domain.errors import NotFound
from airline_agent.domain.operations.ids import FLIGHT_NUMBER, require
from airline_agent.domain.schema import Airport, Flight, FlightDate
from airline_agent.domain.tau2_shape import (
    BookableFlight,
    FlightDateRow,
    FlightRow,
    bookable_flight,
)


class AirportRecord(TypedDict):
    iata: str
    city: str


_AIRPORTS = select(Airport).order_by(col(Airport.position), col(Airport.iata))

# Bookable flights: the flights first (by route, `ix_flight_route`), then their dates by
# primary key, the bookable ones kept in Python. With the status, or the flights, in the
# same query SQLite's planner starts from every flight of the date instead
# (`ix_flight_date_date_status`), as many as the schedule has.
_ROUTE = (
    select(Flight)
    .where(Flight.origin == bindparam("origin"), Flight.destination == bindparam("destination"))
    .order_by(col(Flight.flight_number))
)
_LEAVING = (
    select(Flight).where(Flight.origin == bindparam("origin")).order_by(col(Flight.flight_number))
)
_ARRIVING = (
    select(Flight)
    .where(
        col(Flight.origin).in_(bindparam("origins", expanding=True)),
        Flight.destination == bindparam("destination"),
    )
    .order_by(col(Flight.flight_number))
)
_DATES = select(FlightDate).where(
    col(FlightDate.flight_number).in_(bindparam("numbers", expanding=True)),
    col(FlightDate.date).in_(bindparam("dates", expanding=True)),
)
_STATUS = select(FlightDate.status).where(
    FlightDate.flight_number == bindparam("number"), FlightDate.date == bindparam("date")
)


def list_airports(database: Database) -> list[AirportRecord]:
    with database.read() as session:
        airports = session.exec(_AIRPORTS).all()
    return [{"iata": airport.iata, "city": airport.city} for airport in airports]


# A flight on one date.
Leg = tuple[FlightRow, FlightDateRow]


def _bookable(
    schedule: Connection, flights: Sequence[FlightRow], dates: Collection[str]
) -> list[Leg]:
    """Each of `flights` on each of `dates` where it is bookable (status `available`), in
    the order of `flights`."""
    if not flights:
        return []
    numbers = [flight.flight_number for flight in flights]
    days = schedule.execute(_DATES, {"numbers": numbers, "dates": list(dates)}).all()
    bookable = {(day.flight_number, day.date): day for day in days if day.status == "available"}
    return [
        (flight, bookable[(flight.flight_number, date)])
        for flight in flights
        for date in sorted(dates)
        if (flight.flight_number, date) in bookable
    ]


def search_direct(
    database: Database, origin: str, destination: str, date: str
) -> list[BookableFlight]:
    """Flights from `origin` to `destination` bookable (status `available`) on `date`."""
    with database.read() as session:
        schedule = session.connection()
        route = schedule.execute(_ROUTE, {"origin": origin, "destination": destination}).all()
        return [bookable_flight(*leg) for leg in _bookable(schedule, route, [date])]


def second_leg_date(date: str, first_arrival: str) -> str:
    """The reference rule: an overnight first leg (`+1`) connects on the next day of the
    month, written without zero padding (so it matches nothing before the 9th)."""
    if "+1" not in first_arrival:
        return date
    try:
        return f"{date[:-2]}{int(date[-2:]) + 1}"
    except ValueError:
        return date


def search_onestop(
    database: Database, origin: str, destination: str, date: str
) -> list[list[BookableFlight]]:
    """Pairs of bookable flights origin → X → destination; the second leg leaves at or
    after the first one's scheduled arrival (compared as text, as the reference does)."""
    with database.read() as session:
        schedule = session.connection()
        leaving = schedule.execute(_LEAVING, {"origin": origin}).all()
        first_legs = _bookable(schedule, leaving, [date])
        if not first_legs:
            return []
        stops = sorted({flight.destination for flight, _ in first_legs})
        dates = {second_leg_date(date, f.scheduled_arrival_time_est) for f, _ in first_legs}
        arriving = schedule.execute(_ARRIVING, {"origins": stops, "destination": destination})
        second_legs = _bookable(schedule, arriving.all(), dates)
    onward: dict[tuple[str, str], list[Leg]] = {}  # by where and when they leave
    for second, day in second_legs:
        onward.setdefault((second.origin, day.date), []).append((second, day))
    shown: dict[tuple[str, str], BookableFlight] = {}

    def as_shown(flight: FlightRow, day: FlightDateRow) -> BookableFlight:
        key = (flight.flight_number, day.date)
        if key not in shown:
            shown[key] = bookable_flight(flight, day)
        return shown[key]

    pairs = []
    for first, first_day in first_legs:
        arrival = first.scheduled_arrival_time_est
        for second, second_day in onward.get(
            (first.destination, second_leg_date(date, arrival)), []
        ):
            if second.scheduled_departure_time_est >= arrival:
                pairs.append([as_shown(first, first_day), as_shown(second, second_day)])
    return pairs


def flight_status(database: Database, flight_number: str, date: str) -> str:
    with database.read() as session:
        status = session.exec(_STATUS, params={"number": flight_number, "date": date}).first()
        if status is None:
            number = require(session, FLIGHT_NUMBER, flight_number, "Flight")
            status = session.exec(_STATUS, params={"number": number, "date": date}).first()
            if status is None:
                raise NotFound(f"Flight {number} not found on date {date}")
        return status
