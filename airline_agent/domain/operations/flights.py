"""Reads of flights: airports, bookable flights (direct and one-stop), flight status.
Plain SQL in one snapshot, as in lookups.py. (The schedule facts the guard judges a write
by are read in the write's transaction: rows.schedule.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from airline_agent.domain.db import Database
from airline_agent.domain.errors import NotFound
from airline_agent.domain.operations.ids import FLIGHT_NUMBER, require

_AIRPORTS = "SELECT iata, city FROM airport ORDER BY position, iata"


def list_airports(database: Database) -> list[dict[str, str]]:
    rows = database.statements().rows(_AIRPORTS)
    return [{"iata": iata, "city": city} for iata, city in rows]


# Bookable flights: the flight (by route, `ix_flight_route`) first, then its date by
# primary key. CROSS JOIN fixes that order in SQLite, whose planner would otherwise
# start from every flight of the date (`ix_flight_date_date_status`); other databases
# plan it freely (it is an inner join either way).
_BOOKABLE = (
    "SELECT f.flight_number, f.origin, f.destination, f.scheduled_departure_time_est, "
    "f.scheduled_arrival_time_est, d.date, d.seats_basic_economy, d.seats_economy, "
    "d.seats_business, d.price_basic_economy, d.price_economy, d.price_business "
    "FROM flight AS f CROSS JOIN flightdate AS d "
    "WHERE d.flight_number = f.flight_number AND d.status = 'available' "
)
_DIRECT = (
    _BOOKABLE + "AND f.origin = :origin AND f.destination = :destination AND d.date = :date "
    "ORDER BY f.flight_number"
)
_FROM_ORIGIN = _BOOKABLE + "AND f.origin = :origin AND d.date = :date ORDER BY f.flight_number"


def _bookable(rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    return [
        {
            "flight_number": r[0],
            "origin": r[1],
            "destination": r[2],
            "status": "available",
            "scheduled_departure_time_est": r[3],
            "scheduled_arrival_time_est": r[4],
            "date": r[5],
            "available_seats": {"basic_economy": r[6], "economy": r[7], "business": r[8]},
            "prices": {"basic_economy": r[9], "economy": r[10], "business": r[11]},
        }
        for r in rows
    ]


def search_direct(
    database: Database, origin: str, destination: str, date: str
) -> list[dict[str, Any]]:
    """Flights from `origin` to `destination` bookable (status `available`) on `date`."""
    rows = database.statements().rows(
        _DIRECT, {"origin": origin, "destination": destination, "date": date}
    )
    return _bookable(rows)


def second_leg_date(date: str, first_arrival: str) -> str:
    """The reference rule: an overnight first leg (`+1`) connects on the next day of the
    month, written without zero padding (so it matches nothing before the 9th)."""
    if "+1" not in first_arrival:
        return date
    try:
        return f"{date[:-2]}{int(date[-2:]) + 1}"
    except ValueError:
        return date


def _placeholders(prefix: str, values: Sequence[str], params: dict[str, str]) -> str:
    names = []
    for i, value in enumerate(values):
        params[f"{prefix}{i}"] = value
        names.append(f":{prefix}{i}")
    return ", ".join(names)


def search_onestop(
    database: Database, origin: str, destination: str, date: str
) -> list[list[dict[str, Any]]]:
    """Pairs of bookable flights origin → X → destination; the second leg leaves at or
    after the first one's scheduled arrival (compared as text, as the reference does)."""
    with database.reads() as reads:
        first_legs = _bookable(reads.rows(_FROM_ORIGIN, {"origin": origin, "date": date}))
        if not first_legs:
            return []
        stops = sorted({leg["destination"] for leg in first_legs})
        dates = sorted(
            {second_leg_date(date, leg["scheduled_arrival_time_est"]) for leg in first_legs}
        )
        params = {"destination": destination}
        second_legs = _bookable(
            reads.rows(
                _BOOKABLE + f"AND f.origin IN ({_placeholders('s', stops, params)}) "
                "AND f.destination = :destination "
                f"AND d.date IN ({_placeholders('d', dates, params)}) ORDER BY f.flight_number",
                params,
            )
        )
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


_STATUS = "SELECT status FROM flightdate WHERE flight_number = :number AND date = :date"


def flight_status(database: Database, flight_number: str, date: str) -> str:
    reads = database.statements()
    status = reads.value(_STATUS, {"number": flight_number, "date": date})
    if status is not None:
        return status
    number = require(reads, FLIGHT_NUMBER, flight_number, "Flight")
    status = reads.value(_STATUS, {"number": number, "date": date})
    if status is None:
        raise NotFound(f"Flight {number} not found on date {date}")
    return status
