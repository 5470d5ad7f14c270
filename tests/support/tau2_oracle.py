"""An independent oracle for the compatibility tests: the τ²-bench airline tools applied
to the plain db.json dicts (written from the reference's documented behaviour, not from
our operations): the writes' effects, and every tool's result as τ²'s evaluator reads
its tool message (the JSON it parses, or the text when it is not JSON).
"""

from __future__ import annotations

import copy
import json
from typing import Any

NOW = "2024-05-15T15:00:00"


class OracleError(Exception):
    pass


def _key(mapping: dict, key: str) -> str:
    if key in mapping:
        return key
    for candidate in mapping:
        if candidate.lower() == key.strip().lower():
            return candidate
    raise OracleError(f"{key} not found")


def _new_reservation_id(db: dict) -> str:
    code = "HATHAT"
    while code in db["reservations"]:
        code = code[:-1] + chr(ord(code[-1]) + 1)
    return code


def book_reservation(db: dict, a: dict) -> Any:
    user = db["users"][_key(db["users"], a["user_id"])]
    count = len(a["passengers"])
    rid = _new_reservation_id(db)
    segments, total, dates = [], 0, []
    for ref in a["flights"]:
        flight = db["flights"][_key(db["flights"], ref["flight_number"])]
        day = flight["dates"][ref["date"]]
        if day["status"] != "available" or day["available_seats"][a["cabin"]] < count:
            raise OracleError("not bookable")
        price = day["prices"][a["cabin"]]
        segments.append(
            {
                "origin": flight["origin"],
                "destination": flight["destination"],
                "flight_number": flight["flight_number"],
                "date": ref["date"],
                "price": price,
            }
        )
        dates.append(day)
        total += price * count
    total += (30 * count if a["insurance"] == "yes" else 0) + 50 * a["nonfree_baggages"]
    if sum(p["amount"] for p in a["payment_methods"]) != total:
        raise OracleError(f"does not add up: {total}")
    for payment in a["payment_methods"]:
        method = user["payment_methods"][payment["payment_id"]]
        if method["source"] == "gift_card":
            method["amount"] -= payment["amount"]
        elif method["source"] == "certificate":
            del user["payment_methods"][payment["payment_id"]]
    for day in dates:
        day["available_seats"][a["cabin"]] -= count
    db["reservations"][rid] = {
        "reservation_id": rid,
        "user_id": user["user_id"],
        "origin": a["origin"],
        "destination": a["destination"],
        "flight_type": a["flight_type"],
        "cabin": a["cabin"],
        "flights": segments,
        "passengers": [dict(p) for p in a["passengers"]],
        "payment_history": [dict(p) for p in a["payment_methods"]],
        "created_at": NOW,
        "total_baggages": a["total_baggages"],
        "nonfree_baggages": a["nonfree_baggages"],
        "insurance": a["insurance"],
    }
    user["reservations"].append(rid)
    return _reservation_result(db["reservations"][rid])


def _reservation_result(reservation: dict) -> dict:
    """τ²'s tools answer with the `Reservation` model dumped: `status` always there."""
    return copy.deepcopy({**reservation, "status": reservation.get("status")})


def cancel_reservation(db: dict, a: dict) -> Any:
    reservation = db["reservations"][_key(db["reservations"], a["reservation_id"])]
    refunds = [
        {"payment_id": p["payment_id"], "amount": -p["amount"]}
        for p in reservation["payment_history"]
    ]
    reservation["payment_history"].extend(refunds)
    reservation["status"] = "cancelled"
    return _reservation_result(reservation)


def _pay_change(user: dict, payment_id: str, amount: float) -> dict | None:
    method = user["payment_methods"][payment_id]
    if method["source"] == "certificate":
        raise OracleError("certificate")
    if method["source"] == "gift_card":
        if method["amount"] < amount:
            raise OracleError("gift card balance")
        method["amount"] -= amount
    return {"payment_id": payment_id, "amount": amount} if amount != 0 else None


def update_reservation_baggages(db: dict, a: dict) -> Any:
    reservation = db["reservations"][_key(db["reservations"], a["reservation_id"])]
    user = db["users"][reservation["user_id"]]
    price = 50 * max(0, a["nonfree_baggages"] - reservation["nonfree_baggages"])
    line = _pay_change(user, a["payment_id"], price)
    if line:
        reservation["payment_history"].append(line)
    reservation["total_baggages"] = a["total_baggages"]
    reservation["nonfree_baggages"] = a["nonfree_baggages"]
    return _reservation_result(reservation)


def update_reservation_flights(db: dict, a: dict) -> Any:
    reservation = db["reservations"][_key(db["reservations"], a["reservation_id"])]
    user = db["users"][reservation["user_id"]]
    count = len(reservation["passengers"])
    new, total = [], 0
    for ref in a["flights"]:
        flight = db["flights"][_key(db["flights"], ref["flight_number"])]
        kept = [
            s
            for s in reservation["flights"]
            if s["flight_number"] == flight["flight_number"]
            and s["date"] == ref["date"]
            and a["cabin"] == reservation["cabin"]
        ]
        if kept:
            segment = kept[0]
        else:
            day = flight["dates"][ref["date"]]
            if day["status"] != "available" or day["available_seats"][a["cabin"]] < count:
                raise OracleError("not bookable")
            segment = {
                "flight_number": flight["flight_number"],
                "date": ref["date"],
                "price": day["prices"][a["cabin"]],
                "origin": flight["origin"],
                "destination": flight["destination"],
            }
        total += segment["price"] * count
        new.append(segment)
    total -= sum(s["price"] for s in reservation["flights"]) * count
    line = _pay_change(user, a["payment_id"], total)
    if line:
        reservation["payment_history"].append(line)
    reservation["flights"] = new
    reservation["cabin"] = a["cabin"]
    return _reservation_result(reservation)


def update_reservation_passengers(db: dict, a: dict) -> Any:
    reservation = db["reservations"][_key(db["reservations"], a["reservation_id"])]
    if len(a["passengers"]) != len(reservation["passengers"]):
        raise OracleError("passenger count")
    reservation["passengers"] = [dict(p) for p in a["passengers"]]
    return _reservation_result(reservation)


def send_certificate(db: dict, a: dict) -> Any:
    user = db["users"][_key(db["users"], a["user_id"])]
    number = 3221322
    while f"certificate_{number}" in user["payment_methods"]:
        number += 1
    cid = f"certificate_{number}"
    user["payment_methods"][cid] = {"source": "certificate", "id": cid, "amount": a["amount"]}
    return f"Certificate {cid} added to user {user['user_id']} with amount {a['amount']}."


WRITES = {
    "book_reservation": book_reservation,
    "cancel_reservation": cancel_reservation,
    "update_reservation_baggages": update_reservation_baggages,
    "update_reservation_flights": update_reservation_flights,
    "update_reservation_passengers": update_reservation_passengers,
    "send_certificate": send_certificate,
}


def get_user_details(db: dict, a: dict) -> Any:
    return copy.deepcopy(db["users"][_key(db["users"], a["user_id"])])


def get_reservation_details(db: dict, a: dict) -> Any:
    return _reservation_result(db["reservations"][_key(db["reservations"], a["reservation_id"])])


def _direct(db: dict, date: str, origin: str | None, destination: str | None, after: str | None):
    found = []
    for flight in db["flights"].values():
        day = flight["dates"].get(date)
        if (
            (origin is None or flight["origin"] == origin)
            and (destination is None or flight["destination"] == destination)
            and day is not None
            and day["status"] == "available"
            and (after is None or flight["scheduled_departure_time_est"] >= after)
        ):
            found.append(
                {
                    "flight_number": flight["flight_number"],
                    "origin": flight["origin"],
                    "destination": flight["destination"],
                    "status": "available",
                    "scheduled_departure_time_est": flight["scheduled_departure_time_est"],
                    "scheduled_arrival_time_est": flight["scheduled_arrival_time_est"],
                    "date": None,  # τ²'s DirectFlight: set only by the one-stop search
                    "available_seats": dict(day["available_seats"]),
                    "prices": dict(day["prices"]),
                }
            )
    return found


def search_direct_flight(db: dict, a: dict) -> Any:
    return _direct(db, a["date"], a["origin"], a["destination"], None)


def search_onestop_flight(db: dict, a: dict) -> Any:
    date = a["date"]
    pairs = []
    for first in _direct(db, date, a["origin"], None, None):
        first["date"] = date
        # τ²'s own arithmetic on the day of the month (no zero padding)
        second_date = (
            f"2024-05-{int(date[-2:]) + 1}" if "+1" in first["scheduled_arrival_time_est"] else date
        )
        after = first["scheduled_arrival_time_est"]
        for second in _direct(db, second_date, first["destination"], a["destination"], after):
            second["date"] = second_date
            pairs.append([dict(first), second])
    return pairs


def get_flight_status(db: dict, a: dict) -> Any:
    return db["flights"][a["flight_number"]]["dates"][a["date"]]["status"]


def calculate(db: dict, a: dict) -> Any:
    # τ² answers str(round(float(...), 2)); its evaluator reads that text as JSON
    return float(str(round(float(eval(a["expression"], {"__builtins__": None}, {})), 2)))


def transfer_to_human_agents(db: dict, a: dict) -> Any:
    return "Transfer successful"


READS = {
    "get_user_details": get_user_details,
    "get_reservation_details": get_reservation_details,
    "search_direct_flight": search_direct_flight,
    "search_onestop_flight": search_onestop_flight,
    "get_flight_status": get_flight_status,
    "calculate": calculate,
    "transfer_to_human_agents": transfer_to_human_agents,
}


def apply(db: dict, name: str, arguments: dict[str, Any]) -> Any:
    """Apply one action to `db` in place; its result as τ²'s evaluator reads it."""
    tool = WRITES.get(name) or READS.get(name)
    if tool is None:
        raise OracleError(f"{name}: not modelled")
    return tool(db, arguments)


# ---------------------------------------------------------------- τ²'s text
# τ²'s environment writes a tool's result as its text when it is text, else as
# `json.dumps` (its defaults: ", " and ": ", non-ASCII escaped) of the result's pydantic
# models dumped: each record's keys in its model's field order (τ²'s data_model.py at
# a2c0247, its base class's fields first), whatever order db.json has them in, and its
# numbers of the model's types.
_PERSON = {"first_name": str, "last_name": str, "dob": str}
_SEGMENT = {"flight_number": str, "origin": str, "destination": str, "date": str, "price": int}
_PAYMENT = {"payment_id": str, "amount": int}
_RESERVATION = {
    "reservation_id": str,
    "user_id": str,
    "origin": str,
    "destination": str,
    "flight_type": str,
    "cabin": str,
    "flights": [_SEGMENT],
    "passengers": [_PERSON],
    "payment_history": [_PAYMENT],
    "created_at": str,
    "total_baggages": int,
    "nonfree_baggages": int,
    "insurance": str,
    "status": str,
}
_METHODS = {
    "credit_card": {"source": str, "id": str, "brand": str, "last_four": str},
    "gift_card": {"source": str, "id": str, "amount": float},
    "certificate": {"source": str, "id": str, "amount": float},
}
_ADDRESS = dict.fromkeys(("address1", "address2", "city", "country", "state", "zip"), str)
_USER = {
    "user_id": str,
    "name": {"first_name": str, "last_name": str},
    "address": _ADDRESS,
    "email": str,
    "dob": str,
    "payment_methods": "methods",
    "saved_passengers": [_PERSON],
    "membership": str,
    "reservations": [str],
}
_DIRECT_FLIGHT = {
    "flight_number": str,
    "origin": str,
    "destination": str,
    "status": str,
    "scheduled_departure_time_est": str,
    "scheduled_arrival_time_est": str,
    "date": str,
    "available_seats": {"by key": int},
    "prices": {"by key": int},
}
_RESULTS = {
    "get_user_details": _USER,
    "get_reservation_details": _RESERVATION,
    "book_reservation": _RESERVATION,
    "cancel_reservation": _RESERVATION,
    "update_reservation_baggages": _RESERVATION,
    "update_reservation_flights": _RESERVATION,
    "update_reservation_passengers": _RESERVATION,
    "search_direct_flight": [_DIRECT_FLIGHT],
    "search_onestop_flight": [[_DIRECT_FLIGHT]],
}


def _dumped(value: Any, model: Any) -> Any:
    if value is None:
        return None
    if model == "methods":
        return {key: _dumped(method, _METHODS[method["source"]]) for key, method in value.items()}
    if isinstance(model, list):
        return [_dumped(item, model[0]) for item in value]
    if isinstance(model, dict) and list(model) == ["by key"]:
        return {key: _dumped(item, model["by key"]) for key, item in value.items()}
    if isinstance(model, dict):
        return {field: _dumped(value.get(field), kind) for field, kind in model.items()}
    return model(value)


def tau2_text(name: str, result: Any) -> str:
    """The text of τ²'s tool message for `result` (what `apply` gives for `name`)."""
    if isinstance(result, str):
        return result
    if name == "calculate":  # τ²'s tool answers the text of the rounded float
        return str(result)
    return json.dumps(_dumped(result, _RESULTS[name]))
