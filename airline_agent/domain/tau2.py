"""Import and export of τ²-bench airline data (`db.json`: flights, users, reservations).

Import then export gives back the input JSON up to dict key order and `1` vs `1.0`:
list orders (saved passengers, a user's reservations, segments, passengers, payment
history) and payment-method order are kept through `position` / `seq` columns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import select

from airline_agent.domain import schema
from airline_agent.domain.airports import airport_rows
from airline_agent.domain.db import Database
from airline_agent.domain.loading import Progress, TableRows, load_rows

# Which keys a flight date carries, by status (as in the τ² data).
_DATE_TIMES = {
    "landed": ("actual_departure_time_est", "actual_arrival_time_est"),
    "delayed": ("estimated_departure_time_est", "estimated_arrival_time_est"),
    "on time": ("estimated_departure_time_est", "estimated_arrival_time_est"),
    "flying": ("actual_departure_time_est", "estimated_arrival_time_est"),
    "cancelled": (),
}
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
        for cabin in schema.CABINS:
            row[f"seats_{cabin}"] = None
            row[f"price_{cabin}"] = None
        for column in _TIME_COLUMNS:
            row[column] = None
        if status == "available":
            for cabin in schema.CABINS:
                row[f"seats_{cabin}"] = day["available_seats"][cabin]
                row[f"price_{cabin}"] = day["prices"][cabin]
        elif status in _DATE_TIMES:
            for column in _DATE_TIMES[status]:
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
                "address2": address["address2"],
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
    rows = TableRows(airports=airport_rows())
    for flight in flights.values():
        with _at("flights"):
            flight_rows(flight, rows)
    for user in users.values():
        with _at("users"):
            user_rows(user, rows)
    owners: dict[str, str] = {}
    for seq, reservation in enumerate(reservations.values(), start=1):
        with _at("reservations"):
            reservation_rows(reservation, seq, rows)
            owners[reservation["reservation_id"]] = reservation["user_id"]
    # A user's reservation list is derived from the reservations themselves, so it has
    # to name exactly the reservations that belong to the user.
    for user in users.values():
        with _at(f"users.{user['user_id']}"):
            listed = set(user["reservations"])
        owned = {rid for rid, owner in owners.items() if owner == user["user_id"]}
        if listed != owned:
            extra = sorted(listed - owned) or sorted(owned - listed)
            raise Tau2FormatError(
                f"users.{user['user_id']}.reservations does not match the reservations "
                f"of that user (e.g. {extra[0]})"
            )
    return rows


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
        data, name, label = source, "τ² data", "tau2"
    else:
        data, name, label = read_tau2_file(Path(source)), str(source), "tau2"
    try:
        rows = rows_from_tau2(data)
        load_rows(database, rows, source=label, check_references=True, progress=progress)
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


def _number(value: float | int | None) -> float | int | None:
    """Payment history amounts are whole dollars in τ²; keep fractions when there are."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def flight_date_dict(row: Any) -> dict:
    status = row.status
    day: dict = {"status": status}
    if status == "available":
        day["available_seats"] = {c: getattr(row, f"seats_{c}") for c in schema.CABINS}
        day["prices"] = {c: getattr(row, f"price_{c}") for c in schema.CABINS}
    else:
        for column in _DATE_TIMES.get(status, ()):
            day[column] = getattr(row, column)
    return day


def _grouped(rows: Any, key: Callable[[Any], str]) -> dict[str, list]:
    groups: dict[str, list] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    return groups


def export_tau2(database: Database) -> dict:
    """The whole database in τ² db.json shape: {"flights", "users", "reservations"}."""
    t = {
        name: model.__table__
        for name, model in (
            ("flight", schema.Flight),
            ("date", schema.FlightDate),
            ("user", schema.User),
            ("method", schema.PaymentMethod),
            ("saved", schema.SavedPassenger),
            ("reservation", schema.Reservation),
            ("segment", schema.ReservationFlight),
            ("passenger", schema.ReservationPassenger),
            ("payment", schema.Payment),
        )
    }
    with database.engine.connect() as connection:

        def rows(name: str, *order: str) -> list:
            table = t[name]
            return list(connection.execute(select(table).order_by(*(table.c[o] for o in order))))

        dates = _grouped(rows("date", "flight_number", "date"), lambda r: r.flight_number)
        methods = _grouped(rows("method", "user_id", "position"), lambda r: r.user_id)
        saved = _grouped(rows("saved", "user_id", "position"), lambda r: r.user_id)
        segments = _grouped(
            rows("segment", "reservation_id", "position"), lambda r: r.reservation_id
        )
        passengers = _grouped(
            rows("passenger", "reservation_id", "position"), lambda r: r.reservation_id
        )
        payments = _grouped(
            rows("payment", "reservation_id", "position"), lambda r: r.reservation_id
        )
        reservation_rows_ = rows("reservation", "seq")
        user_rows_ = rows("user", "user_id")
        flight_rows_ = rows("flight", "flight_number")

    flights = {
        f.flight_number: {
            "flight_number": f.flight_number,
            "origin": f.origin,
            "destination": f.destination,
            "scheduled_departure_time_est": f.scheduled_departure_time_est,
            "scheduled_arrival_time_est": f.scheduled_arrival_time_est,
            "dates": {d.date: flight_date_dict(d) for d in dates.get(f.flight_number, [])},
        }
        for f in flight_rows_
    }
    owned = _grouped(reservation_rows_, lambda r: r.user_id)
    users = {}
    for u in user_rows_:
        payment_methods = {}
        for m in methods.get(u.user_id, []):
            method: dict = {"source": m.source, "id": m.payment_id}
            if m.source == "credit_card":
                method["brand"] = m.brand
                method["last_four"] = m.last_four
            else:
                method["amount"] = m.amount
            payment_methods[m.payment_id] = method
        users[u.user_id] = {
            "user_id": u.user_id,
            "name": {"first_name": u.first_name, "last_name": u.last_name},
            "address": {
                "address1": u.address1,
                "address2": u.address2,
                "city": u.city,
                "country": u.country,
                "state": u.state,
                "zip": u.zip,
            },
            "email": u.email,
            "dob": u.dob,
            "payment_methods": payment_methods,
            "saved_passengers": [
                {"first_name": p.first_name, "last_name": p.last_name, "dob": p.dob}
                for p in saved.get(u.user_id, [])
            ],
            "membership": u.membership,
            "reservations": [r.reservation_id for r in owned.get(u.user_id, [])],
        }
    reservations = {}
    for r in reservation_rows_:
        rid = r.reservation_id
        reservation = {
            "reservation_id": rid,
            "user_id": r.user_id,
            "origin": r.origin,
            "destination": r.destination,
            "flight_type": r.flight_type,
            "cabin": r.cabin,
            "flights": [
                {
                    "origin": s.origin,
                    "destination": s.destination,
                    "flight_number": s.flight_number,
                    "date": s.date,
                    "price": s.price,
                }
                for s in segments.get(rid, [])
            ],
            "passengers": [
                {"first_name": p.first_name, "last_name": p.last_name, "dob": p.dob}
                for p in passengers.get(rid, [])
            ],
            "payment_history": [
                {"payment_id": p.payment_id, "amount": _number(p.amount)}
                for p in payments.get(rid, [])
            ],
            "created_at": r.created_at,
            "total_baggages": r.total_baggages,
            "nonfree_baggages": r.nonfree_baggages,
            "insurance": r.insurance,
        }
        if r.status is not None:
            reservation["status"] = r.status
        reservations[rid] = reservation
    return {"flights": flights, "users": users, "reservations": reservations}
