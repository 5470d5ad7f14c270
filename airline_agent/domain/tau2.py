"""Import and export of τ²-bench airline data (`db.json`: flights, users, reservations).

Import then export gives back the input JSON up to dict key order and `1` vs `1.0`:
list orders (saved passengers, a user's reservations, segments, passengers, payment
history) and payment-method order are kept through `position` / `seq` columns. The
records are shaped by `tau2_shape`, the same builders the read tools answer with.

What τ²'s data model (`FlightDB`) takes is taken, as it is: a user's `reservations` is
any list of ids (τ²'s own airline test data lists three the user does not hold and omits
the one it holds), kept as written and returned so by `get_user_details`; `listing_odd`
says in one line what was odd about them, for the command to warn (not refuse). A user's
`address2` may be null or absent (τ²'s `Optional[str]`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from itertools import groupby
from operator import attrgetter
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Connection, Row
from sqlalchemy.orm import Mapped
from sqlmodel import SQLModel, col, select
from sqlmodel.sql.expression import SelectOfScalar

from airline_agent.domain.airports import airport_rows
from airline_agent.domain.cabins import CABINS
from airline_agent.domain.db import Database
from airline_agent.domain.loading import Progress, TableRows, load_rows
from airline_agent.domain.provenance import Provenance
from airline_agent.domain.schema import (
    Flight,
    FlightDate,
    Payment,
    PaymentMethod,
    Reservation,
    ReservationFlight,
    ReservationPassenger,
    SavedPassenger,
    User,
    UserReservation,
)
from airline_agent.domain.tau2_shape import (
    DATE_TIMES,
    Tau2Database,
    Tau2Flight,
    Tau2Reservation,
    Tau2User,
    flight_date_record,
    flight_from_parts,
    payment_line,
    payment_method_record,
    person_record,
    reservation_from_parts,
    segment_record,
    user_from_parts,
)

_TIME_COLUMNS = (
    "actual_departure_time_est",
    "actual_arrival_time_est",
    "estimated_departure_time_est",
    "estimated_arrival_time_est",
)


class Tau2FormatError(ValueError):
    """The input is not τ² airline data; the message says where and what is wrong."""


@contextmanager
def _at(where: str) -> Iterator[None]:
    """Turn a lookup failure inside one record into a message naming the record."""
    try:
        yield
    except Tau2FormatError:
        raise
    except KeyError as exc:
        raise Tau2FormatError(f"{where}: missing key {exc.args[0]!r}") from exc
    except (TypeError, AttributeError, ValueError) as exc:
        raise Tau2FormatError(f"{where}: unexpected shape ({exc})") from exc


def _section(data: dict[str, object], name: str) -> dict:
    section = data.get(name)
    if not isinstance(section, dict):
        raise Tau2FormatError(f"`{name}` must be an object keyed by id")
    return section


# ---- τ² dicts → rows -------------------------------------------------------------


def flight_rows(flight: dict, rows: TableRows) -> None:
    number = flight["flight_number"]
    with _at(f"flights.{number}"):
        rows.flights.append(
            {
                "flight_number": number,
                "origin": flight["origin"],
                "destination": flight["destination"],
                "scheduled_departure_time_est": flight["scheduled_departure_time_est"],
                "scheduled_arrival_time_est": flight["scheduled_arrival_time_est"],
            }
        )
        for date, day in flight["dates"].items():
            rows.flight_dates.append(flight_date_row(number, date, day))


def flight_date_row(number: str, date: str, day: dict) -> dict:
    with _at(f"flights.{number}.dates.{date}"):
        status = day["status"]
        row: dict = {"flight_number": number, "date": date, "status": status}
        for cabin in CABINS:
            row[f"seats_{cabin}"] = None
            row[f"price_{cabin}"] = None
        for column in _TIME_COLUMNS:
            row[column] = None
        if status == "available":
            for cabin in CABINS:
                row[f"seats_{cabin}"] = day["available_seats"][cabin]
                row[f"price_{cabin}"] = day["prices"][cabin]
        elif status in DATE_TIMES:
            for column in DATE_TIMES[status]:
                row[column] = day[column]
        else:
            raise Tau2FormatError(f"flights.{number}.dates.{date}: unknown status {status!r}")
        return row


def user_rows(user: dict, rows: TableRows) -> None:
    user_id = user["user_id"]
    with _at(f"users.{user_id}"):
        name, address = user["name"], user["address"]
        rows.users.append(
            {
                "user_id": user_id,
                "first_name": name["first_name"],
                "last_name": name["last_name"],
                "address1": address["address1"],
                "address2": address.get("address2"),
                "city": address["city"],
                "country": address["country"],
                "state": address["state"],
                "zip": address["zip"],
                "email": user["email"],
                "dob": user["dob"],
                "membership": user["membership"],
            }
        )
        for position, (payment_id, method) in enumerate(user["payment_methods"].items()):
            rows.payment_methods.append(
                {
                    "user_id": user_id,
                    "payment_id": payment_id,
                    "position": position,
                    "source": method["source"],
                    "brand": method.get("brand"),
                    "last_four": method.get("last_four"),
                    "amount": method.get("amount"),
                }
            )
        for position, passenger in enumerate(user["saved_passengers"]):
            rows.saved_passengers.append(
                {
                    "user_id": user_id,
                    "position": position,
                    "first_name": passenger["first_name"],
                    "last_name": passenger["last_name"],
                    "dob": passenger["dob"],
                }
            )
        if rows.user_reservations is None:
            return  # a build's rows: the load lists each user's reservations (loading.py)
        listed = user["reservations"]
        if not isinstance(listed, list) or not all(isinstance(i, str) for i in listed):
            raise Tau2FormatError(f"users.{user_id}.reservations: not a list of ids")
        rows.user_reservations += [
            {"user_id": user_id, "position": position, "reservation_id": reservation_id}
            for position, reservation_id in enumerate(listed)
        ]


def reservation_rows(reservation: dict, seq: int, rows: TableRows) -> None:
    reservation_id = reservation["reservation_id"]
    with _at(f"reservations.{reservation_id}"):
        rows.reservations.append(
            {
                "seq": seq,
                "reservation_id": reservation_id,
                "user_id": reservation["user_id"],
                "origin": reservation["origin"],
                "destination": reservation["destination"],
                "flight_type": reservation["flight_type"],
                "cabin": reservation["cabin"],
                "created_at": reservation["created_at"],
                "total_baggages": reservation["total_baggages"],
                "nonfree_baggages": reservation["nonfree_baggages"],
                "insurance": reservation["insurance"],
                "status": reservation.get("status"),
            }
        )
        for position, segment in enumerate(reservation["flights"]):
            rows.reservation_flights.append(
                {
                    "reservation_id": reservation_id,
                    "position": position,
                    "flight_number": segment["flight_number"],
                    "date": segment["date"],
                    "origin": segment["origin"],
                    "destination": segment["destination"],
                    "price": segment["price"],
                }
            )
        for position, passenger in enumerate(reservation["passengers"]):
            rows.reservation_passengers.append(
                {
                    "reservation_id": reservation_id,
                    "position": position,
                    "first_name": passenger["first_name"],
                    "last_name": passenger["last_name"],
                    "dob": passenger["dob"],
                }
            )
        for position, payment in enumerate(reservation["payment_history"]):
            rows.payments.append(
                {
                    "reservation_id": reservation_id,
                    "position": position,
                    "payment_id": payment["payment_id"],
                    "amount": payment["amount"],
                }
            )


def rows_from_tau2(data: object) -> TableRows:
    """Every table's rows for a τ² db.json object; Tau2FormatError when it is not one."""
    if not isinstance(data, dict):
        raise Tau2FormatError("expected a JSON object with flights, users and reservations")
    flights = _section(data, "flights")
    users = _section(data, "users")
    reservations = _section(data, "reservations")
    rows = TableRows(airports=airport_rows(), user_reservations=[])
    for flight in flights.values():
        with _at("flights"):
            flight_rows(flight, rows)
    for user in users.values():
        with _at("users"):
            user_rows(user, rows)
    for seq, reservation in enumerate(reservations.values(), start=1):
        with _at("reservations"):
            reservation_rows(reservation, seq, rows)
    return rows


def listing_odd(data: dict) -> str | None:
    """What τ²'s model takes but a consistent database would not hold, in one line: the
    users whose list of reservations names ones they do not hold, or leaves out ones they
    hold (the first such user named); None when every list is its user's reservations."""
    held: dict[str, list[str]] = {}
    for reservation in data["reservations"].values():
        held.setdefault(reservation["user_id"], []).append(reservation["reservation_id"])
    odd = [
        (user_id, user["reservations"], held.get(user_id, []))
        for user_id, user in data["users"].items()
        if set(user["reservations"]) != set(held.get(user_id, []))
    ]
    if not odd:
        return None
    user_id, listed, owned = odd[0]
    parts = []
    if extra := [i for i in listed if i not in owned]:
        parts.append(f"lists {', '.join(extra)}, which it does not hold")
    if missing := [i for i in owned if i not in listed]:
        parts.append(f"does not list {', '.join(missing)}, which it holds")
    others = f" (and {len(odd) - 1} more users)" if len(odd) > 1 else ""
    return (
        f"users.{user_id}.reservations {' and '.join(parts)}{others}; kept as written, as "
        "τ² keeps it (get_user_details returns the list as it is)"
    )


def read_tau2_file(path: Path) -> dict:
    """The parsed db.json, or a Tau2FormatError naming the file and the problem."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise Tau2FormatError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise Tau2FormatError(f"{path}: not a UTF-8 text file") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise Tau2FormatError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc


def import_tau2(
    database: Database, source: Path | str | dict, *, progress: Progress | None = None
) -> None:
    """Fill an empty, created database from a τ² db.json (a path or the parsed dict).

    Raises Tau2FormatError (a ValueError) naming the file and the problem; nothing is
    written then.
    """
    if isinstance(source, dict):
        data, name, provenance = source, "τ² data", Provenance.tau2(None)
    else:
        data, name = read_tau2_file(Path(source)), str(source)
        provenance = Provenance.tau2(Path(source))
    try:
        rows = rows_from_tau2(data)
        load_rows(database, rows, provenance=provenance, check_references=True, progress=progress)
    except Tau2FormatError as exc:
        raise Tau2FormatError(f"{name}: {exc}") from exc
    except ValueError as exc:
        raise Tau2FormatError(f"{name}: {exc}") from exc
    except Exception as exc:  # a constraint the data breaks, e.g. a duplicate id
        orig = getattr(exc, "orig", None)
        if orig is None:
            raise
        raise Tau2FormatError(f"{name}: rejected by the database ({orig})") from exc


# ---- rows → τ² dicts -------------------------------------------------------------


# Export reads every row of the database only to show it: the models' columns as plain
# rows (SQLAlchemy Core on the read transaction's connection), which the builders of
# tau2_shape take as they take SQLModel objects; a row never changed needs nothing the
# ORM keeps for one, and an export of ten times the reference airline waits for it all.
# Each row is turned into its part of a record as it is read, and a child table's rows
# come in their parent's order, so a record's parts are one run of rows (`groupby`): no
# row is kept, only what the export gives.
_Model = TypeVar("_Model", bound=SQLModel)
Ids = Collection[str] | None  # the records' ids, or None for all of them


def _of(
    rows: Connection, query: SelectOfScalar[_Model], key: Mapped[str], ids: Ids
) -> Iterator[Row[_Model]]:
    """The query's rows, only those whose `key` is one of `ids` unless all are asked for."""
    if ids is not None:
        query = query.where(key.in_(ids))
    return iter(rows.execute(query))


_Row = TypeVar("_Row")
_Part = TypeVar("_Part")


def _parts_by_owner(
    rows: Iterable[_Row], owner: Callable[[_Row], str], part: Callable[[_Row], _Part]
) -> dict[str, list[_Part]]:
    """Each row's part (`part`) by its parent's key (`owner`), in the order read: rows of
    one parent come together (the queries order them by it)."""
    return {key: [part(row) for row in run] for key, run in groupby(rows, key=owner)}


def _flights(rows: Connection, ids: Ids) -> dict[str, Tau2Flight]:
    days = _of(
        rows,
        select(FlightDate).order_by(col(FlightDate.flight_number), col(FlightDate.date)),
        col(FlightDate.flight_number),
        ids,
    )
    dates = {
        number: {day.date: flight_date_record(day) for day in run}
        for number, run in groupby(days, key=attrgetter("flight_number"))
    }
    flights = _of(
        rows, select(Flight).order_by(col(Flight.flight_number)), col(Flight.flight_number), ids
    )
    return {f.flight_number: flight_from_parts(f, dates.get(f.flight_number, {})) for f in flights}


def _users(rows: Connection, ids: Ids) -> dict[str, Tau2User]:
    by_user = attrgetter("user_id")
    methods = {
        user_id: {method.payment_id: payment_method_record(method) for method in run}
        for user_id, run in groupby(
            _of(
                rows,
                select(PaymentMethod).order_by(
                    col(PaymentMethod.user_id), col(PaymentMethod.position)
                ),
                col(PaymentMethod.user_id),
                ids,
            ),
            key=by_user,
        )
    }
    saved = _parts_by_owner(
        _of(
            rows,
            select(SavedPassenger).order_by(
                col(SavedPassenger.user_id), col(SavedPassenger.position)
            ),
            col(SavedPassenger.user_id),
            ids,
        ),
        by_user,
        person_record,
    )
    # The user's list as τ² keeps it (schema.UserReservation), not derived from the
    # reservations.
    listed = _parts_by_owner(
        _of(
            rows,
            select(UserReservation).order_by(
                col(UserReservation.user_id), col(UserReservation.position)
            ),
            col(UserReservation.user_id),
            ids,
        ),
        by_user,
        attrgetter("reservation_id"),
    )
    users = _of(rows, select(User).order_by(col(User.user_id)), col(User.user_id), ids)
    return {
        u.user_id: user_from_parts(
            u, methods.get(u.user_id, {}), saved.get(u.user_id, []), listed.get(u.user_id, [])
        )
        for u in users
    }


def _reservations(rows: Connection, ids: Ids) -> dict[str, Tau2Reservation]:
    by_reservation = attrgetter("reservation_id")
    segments = _parts_by_owner(
        _of(
            rows,
            select(ReservationFlight).order_by(
                col(ReservationFlight.reservation_id), col(ReservationFlight.position)
            ),
            col(ReservationFlight.reservation_id),
            ids,
        ),
        by_reservation,
        segment_record,
    )
    passengers = _parts_by_owner(
        _of(
            rows,
            select(ReservationPassenger).order_by(
                col(ReservationPassenger.reservation_id), col(ReservationPassenger.position)
            ),
            col(ReservationPassenger.reservation_id),
            ids,
        ),
        by_reservation,
        person_record,
    )
    payments = _parts_by_owner(
        _of(
            rows,
            select(Payment).order_by(col(Payment.reservation_id), col(Payment.position)),
            col(Payment.reservation_id),
            ids,
        ),
        by_reservation,
        payment_line,
    )
    reservations = _of(
        rows,
        select(Reservation).order_by(col(Reservation.seq)),
        col(Reservation.reservation_id),
        ids,
    )
    return {
        r.reservation_id: reservation_from_parts(
            r,
            segments.get(r.reservation_id, []),
            passengers.get(r.reservation_id, []),
            payments.get(r.reservation_id, []),
        )
        for r in reservations
    }


def export_tau2(
    database: Database,
    *,
    flights: Ids = None,
    users: Ids = None,
    reservations: Ids = None,
) -> Tau2Database:
    """The database in τ² db.json shape: {"flights", "users", "reservations"}, read in one
    read transaction (a consistent copy, even while others write). Each kind whole, or only
    the records of the ids given for it (what a run changed: scenarios/dbdiff.py)."""
    with database.read() as session:
        rows = session.connection()
        return {
            "flights": _flights(rows, flights) if flights != () else {},
            "users": _users(rows, users) if users != () else {},
            "reservations": _reservations(rows, reservations) if reservations != () else {},
        }
