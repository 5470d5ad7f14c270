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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Table, select
from sqlmodel import SQLModel

from airline_agent.domain import schema
from airline_agent.domain.airports import airport_rows
from airline_agent.domain.cabins import CABINS
from airline_agent.domain.db import Database
from airline_agent.domain.loading import Progress, TableRows, load_rows
from airline_agent.domain.provenance import Provenance
from airline_agent.domain.tau2_shape import (
    DATE_TIMES,
    FLIGHT_COLUMNS,
    FLIGHT_DATE_COLUMNS,
    PASSENGER_COLUMNS,
    PAYMENT_COLUMNS,
    PAYMENT_METHOD_COLUMNS,
    RESERVATION_COLUMNS,
    SEGMENT_COLUMNS,
    USER_COLUMNS,
    flight_record,
    reservation_record,
    user_record,
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


def _section(data: Any, name: str) -> dict:
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


def rows_from_tau2(data: Any) -> TableRows:
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


def _rows(
    connection: Connection, table: Table, names: Sequence[str], *order: str
) -> list[Sequence[Any]]:
    query = select(*(table.c[name] for name in names)).order_by(*(table.c[o] for o in order))
    return list(connection.execute(query))


def _grouped(
    connection: Connection, table: Table, key: str, names: Sequence[str]
) -> dict[str, list[Sequence[Any]]]:
    """The rows of a child table by parent key, in stored order, without the key."""
    groups: dict[str, list[Sequence[Any]]] = {}
    for row in _rows(connection, table, (key, *names), key, "position"):
        groups.setdefault(row[0], []).append(row[1:])
    return groups


def export_tau2(database: Database) -> dict:
    """The whole database in τ² db.json shape: {"flights", "users", "reservations"}."""
    with database.engine.connect() as connection:
        flights = _rows(connection, schema.Flight.__table__, FLIGHT_COLUMNS, "flight_number")
        dates: dict[str, list[Sequence[Any]]] = {}
        for row in _rows(
            connection,
            schema.FlightDate.__table__,
            ("flight_number", *FLIGHT_DATE_COLUMNS),
            "flight_number",
            "date",
        ):
            dates.setdefault(row[0], []).append(row[1:])
        users = _rows(connection, schema.User.__table__, USER_COLUMNS, "user_id")
        methods = _grouped(
            connection, schema.PaymentMethod.__table__, "user_id", PAYMENT_METHOD_COLUMNS
        )
        saved = _grouped(connection, schema.SavedPassenger.__table__, "user_id", PASSENGER_COLUMNS)
        reservations = _rows(connection, schema.Reservation.__table__, RESERVATION_COLUMNS, "seq")
        segments = _grouped(
            connection, schema.ReservationFlight.__table__, "reservation_id", SEGMENT_COLUMNS
        )
        passengers = _grouped(
            connection, schema.ReservationPassenger.__table__, "reservation_id", PASSENGER_COLUMNS
        )
        payments = _grouped(connection, schema.Payment.__table__, "reservation_id", PAYMENT_COLUMNS)
        lists = SQLModel.metadata.tables[schema.USER_RESERVATION]
        listed = _grouped(connection, lists, "user_id", ("reservation_id",))
    owned = {user_id: [row[0] for row in rows] for user_id, rows in listed.items()}
    return {
        "flights": {f[0]: flight_record(f, dates.get(f[0], ())) for f in flights},
        "users": {
            u[0]: user_record(u, methods.get(u[0], ()), saved.get(u[0], ()), owned.get(u[0], ()))
            for u in users
        },
        "reservations": {
            r[0]: reservation_record(
                r, segments.get(r[0], ()), passengers.get(r[0], ()), payments.get(r[0], ())
            )
            for r in reservations
        },
    }
