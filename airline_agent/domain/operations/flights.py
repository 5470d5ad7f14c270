"""Reads of flights: airports, bookable flights (direct and one-stop), flight status.
One read transaction each, as in lookups.py. (The schedule facts the guard judges a
write by are read in the write's transaction: rows.WriteRows.schedule.)
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TypedDict

from sqlmodel import Session, col, select

from airline_agent.domain.db import Database
from airline_agent.domain.errors import NotFound
from airline_agent.domain.operations.ids import FLIGHT_NUMBER, require
from airline_agent.domain.schema import Airport, Flight, FlightDate
from airline_agent.domain.tau2_shape import BookableFlight, bookable_flight


class AirportRecord(TypedDict):
    iata: str
    city: str


def list_airports(database: Database) -> list[AirportRecord]:
    with database.read() as session:
        airports = session.exec(
            select(Airport).order_by(col(Airport.position), col(Airport.iata))
        ).all()
    return [{"iata": airport.iata, "city": airport.city} for airport in airports]


def _bookable(
    session: Session, flights: Sequence[Flight], dates: Collection[str]
) -> list[BookableFlight]:
    """Each of `flights` on each of `dates` where it is bookable (status `available`), in
    the order of `flights`. The flights come first (by route, `ix_flight_route`), then
    their dates by primary key, the bookable ones kept here: with the status, or the
    flights, in the same query SQLite's planner starts from every flight of the date
    instead (`ix_flight_date_date_status`), as many as the schedule has."""
    if not flights:
        return []
    days = session.exec(
        select(FlightDate).where(
            col(FlightDate.flight_number).in_([flight.flight_number for flight in flights]),
            col(FlightDate.date).in_(dates),
        )
    ).all()
    bookable = {(day.flight_number, day.date): day for day in days if day.status == "available"}
    return [
        bookable_flight(flight, bookable[(flight.flight_number, date)])
        for flight in flights
        for date in sorted(dates)
        if (flight.flight_number, date) in bookable
    ]


def search_direct(
    database: Database, origin: str, destination: str, date: str
) -> list[BookableFlight]:
    """Flights from `origin` to `destination` bookable (status `available`) on `date`."""
    with database.read() as session:
        route = session.exec(
            select(Flight)
            .where(Flight.origin == origin, Flight.destination == destination)
            .order_by(col(Flight.flight_number))
        ).all()
        return _bookable(session, route, [date])


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
        leaving = session.exec(
            select(Flight).where(Flight.origin == origin).order_by(col(Flight.flight_number))
        ).all()
        first_legs = _bookable(session, leaving, [date])
        if not first_legs:
            return []
        stops = {leg["destination"] for leg in first_legs}
        dates = {second_leg_date(date, leg["scheduled_arrival_time_est"]) for leg in first_legs}
        arriving = session.exec(
            select(Flight)
            .where(col(Flight.origin).in_(stops), Flight.destination == destination)
            .order_by(col(Flight.flight_number))
        ).all()
        second_legs = _bookable(session, arriving, dates)
    pairs = []
    for first in first_legs:
        leg_date = second_leg_date(date, first["scheduled_arrival_time_est"])
        for second in second_legs:
            if (
                second["origin"] == first["destination"]
                and second["date"] == leg_date
                and second["scheduled_departure_time_est"] >= first["scheduled_arrival_time_est"]
            ):
                pairs.append([first, second])
    return pairs


def flight_status(database: Database, flight_number: str, date: str) -> str:
    with database.read() as session:
        day = session.get(FlightDate, (flight_number, date))
        if day is None:
            number = require(session, FLIGHT_NUMBER, flight_number, "Flight")
            day = session.get(FlightDate, (number, date))
            if day is None:
                raise NotFound(f"Flight {number} not found on date {date}")
        return day.status
