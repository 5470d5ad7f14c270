"""Read tools through `Toolbox.call` beside the same lookup in bare `sqlite3`.

For each read tool: the median time on the default sample and on the sample at ×10
(`seed --scale 10`), and the bare lookup a hand-written app would run (same rows, same
dict shape) in the same run, as information: the tools read through SQLModel sessions,
and what that costs beside bare sqlite3 is no target (a read takes well under a
millisecond inside a round that waits seconds for a model). Targets: ≤ 1 ms median at
×10, and the scaled database no slower than the default one (indexed, so flat). The four
(ours and bare, on each database) are timed in alternating turns, so a busy spell on
this shared machine does not pass for a difference between them.
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import Row, Timing, timing

CABINS = ("basic_economy", "economy", "business")


def _bare_user(db: sqlite3.Connection, user_id: str) -> dict:
    u = db.execute(
        "SELECT user_id, first_name, last_name, address1, address2, city, country, state, zip, "
        "email, dob, membership FROM user WHERE user_id = ?",
        (user_id,),
    ).fetchone()
    methods = {}
    for pid, source, brand, last_four, amount in db.execute(
        "SELECT payment_id, source, brand, last_four, amount FROM paymentmethod "
        "WHERE user_id = ? ORDER BY position",
        (user_id,),
    ):
        method = {"source": source, "id": pid}
        method.update(
            {"brand": brand, "last_four": last_four}
            if source == "credit_card"
            else {"amount": amount}
        )
        methods[pid] = method
    saved = [
        {"first_name": f, "last_name": la, "dob": d}
        for f, la, d in db.execute(
            "SELECT first_name, last_name, dob FROM savedpassenger WHERE user_id = ? "
            "ORDER BY position",
            (user_id,),
        )
    ]
    reservations = [
        r
        for (r,) in db.execute(
            "SELECT reservation_id FROM reservation WHERE user_id = ? ORDER BY seq", (user_id,)
        )
    ]
    return {
        "user_id": u[0],
        "name": {"first_name": u[1], "last_name": u[2]},
        "address": dict(
            zip(("address1", "address2", "city", "country", "state", "zip"), u[3:9], strict=True)
        ),
        "email": u[9],
        "dob": u[10],
        "payment_methods": methods,
        "saved_passengers": saved,
        "membership": u[11],
        "reservations": reservations,
    }


def _bare_reservation(db: sqlite3.Connection, rid: str) -> dict:
    r = db.execute(
        "SELECT reservation_id, user_id, origin, destination, flight_type, cabin, created_at, "
        "total_baggages, nonfree_baggages, insurance, status FROM reservation "
        "WHERE reservation_id = ?",
        (rid,),
    ).fetchone()
    flights = [
        {"origin": o, "destination": d, "flight_number": n, "date": dt, "price": p}
        for o, d, n, dt, p in db.execute(
            "SELECT origin, destination, flight_number, date, price FROM reservationflight "
            "WHERE reservation_id = ? ORDER BY position",
            (rid,),
        )
    ]
    passengers = [
        {"first_name": f, "last_name": la, "dob": d}
        for f, la, d in db.execute(
            "SELECT first_name, last_name, dob FROM reservationpassenger WHERE reservation_id = ? "
            "ORDER BY position",
            (rid,),
        )
    ]
    payments = [
        {"payment_id": p, "amount": a}
        for p, a in db.execute(
            "SELECT payment_id, amount FROM payment WHERE reservation_id = ? ORDER BY position",
            (rid,),
        )
    ]
    result = {
        "reservation_id": r[0],
        "user_id": r[1],
        "origin": r[2],
        "destination": r[3],
        "flight_type": r[4],
        "cabin": r[5],
        "flights": flights,
        "passengers": passengers,
        "payment_history": payments,
        "created_at": r[6],
        "total_baggages": r[7],
        "nonfree_baggages": r[8],
        "insurance": r[9],
        "status": r[10],  # null when active, as τ²'s model dumps it
    }
    return result


# The flight by route first (ix_flight_route), then its date by primary key: a plain
# JOIN lets SQLite's planner start from every flight of the date instead (5× slower);
# the baseline gets the good plan too, so the ratio measures our layers, not the plan.
_DIRECT = (
    "SELECT f.flight_number, f.origin, f.destination, f.scheduled_departure_time_est, "
    "f.scheduled_arrival_time_est, d.date, d.seats_basic_economy, d.seats_economy, "
    "d.seats_business, d.price_basic_economy, d.price_economy, d.price_business "
    "FROM flight f CROSS JOIN flightdate d "
    "WHERE d.flight_number = f.flight_number AND d.status = 'available' "
)


def _flight_dicts(rows: list) -> list[dict]:
    return [
        {
            "flight_number": r[0],
            "origin": r[1],
            "destination": r[2],
            "status": "available",
            "scheduled_departure_time_est": r[3],
            "scheduled_arrival_time_est": r[4],
            "date": r[5],
            "available_seats": dict(zip(CABINS, r[6:9], strict=True)),
            "prices": dict(zip(CABINS, r[9:12], strict=True)),
        }
        for r in rows
    ]


def _bare_direct(db: sqlite3.Connection, origin: str, destination: str, date: str) -> list:
    rows = db.execute(
        _DIRECT + "AND f.origin = ? AND f.destination = ? AND d.date = ? ORDER BY f.flight_number",
        (origin, destination, date),
    ).fetchall()
    return _flight_dicts(rows)


def _bare_onestop(db: sqlite3.Connection, origin: str, destination: str, date: str) -> list:
    firsts = _flight_dicts(
        db.execute(
            _DIRECT + "AND f.origin = ? AND d.date = ? ORDER BY f.flight_number", (origin, date)
        ).fetchall()
    )
    pairs = []
    for first in firsts:
        date2 = (
            f"{date[:-2]}{int(date[-2:]) + 1}"
            if "+1" in first["scheduled_arrival_time_est"]
            else date
        )
        for second in _flight_dicts(
            db.execute(
                _DIRECT + "AND f.origin = ? AND f.destination = ? AND d.date = ? "
                "AND f.scheduled_departure_time_est >= ? ORDER BY f.flight_number",
                (first["destination"], destination, date2, first["scheduled_arrival_time_est"]),
            ).fetchall()
        ):
            pairs.append([first, second])
    return pairs


def _bare_status(db: sqlite3.Connection, number: str, date: str) -> str:
    return db.execute(
        "SELECT status FROM flightdate WHERE flight_number = ? AND date = ?", (number, date)
    ).fetchone()[0]


def _bare_airports(db: sqlite3.Connection) -> list:
    return [
        {"iata": i, "city": c}
        for i, c in db.execute("SELECT iata, city FROM airport ORDER BY position, iata")
    ]


# A full tool call (arguments parsed and validated, the guard, one read transaction, the
# outcome timed), at ten times the reference airline's size.
TARGET_MS = 1.0
SCALE = 10

LOOKUPS = {
    "get_user_details": ({"user_id": "emma_kim_9957"}, lambda db: _bare_user(db, "emma_kim_9957")),
    "get_reservation_details": (
        {"reservation_id": "EHGLP3"},
        lambda db: _bare_reservation(db, "EHGLP3"),
    ),
    "search_direct_flight": (
        {"origin": "SEA", "destination": "JFK", "date": "2024-05-17"},
        lambda db: _bare_direct(db, "SEA", "JFK", "2024-05-17"),
    ),
    "search_onestop_flight": (
        {"origin": "PHX", "destination": "JFK", "date": "2024-05-17"},
        lambda db: _bare_onestop(db, "PHX", "JFK", "2024-05-17"),
    ),
    "get_flight_status": (
        {"flight_number": "HAT156", "date": "2024-05-17"},
        lambda db: _bare_status(db, "HAT156", "2024-05-17"),
    ),
    "list_all_airports": ({}, _bare_airports),
}


def _interleaved(
    contenders: dict[str, Callable[[], object]], runs: int, *, block: int = 10
) -> dict[str, Timing]:
    """Time each contender `runs` times, in turns of `block` calls, so that load from
    other processes falls on all of them alike (timed one after the other, a busy spell
    during one contender reads as a difference between them)."""
    samples: dict[str, list[float]] = {label: [] for label in contenders}
    for fn in contenders.values():  # warm up: statement caches, page cache
        for _ in range(5):
            fn()
    for _ in range(max(1, runs // block)):
        for label, fn in contenders.items():
            for _ in range(block):
                start = time.perf_counter()
                fn()
                samples[label].append((time.perf_counter() - start) * 1000)
    return {label: timing(values) for label, values in samples.items()}


def _measure(paths: dict[str, Path], runs: int) -> dict[str, dict[str, tuple[Timing, Timing]]]:
    """For each tool, {database label: (ours, bare)}: the tool through `Toolbox.call` and
    the bare lookup, on each database, all interleaved."""
    from airline_agent.domain.clock import Clock
    from airline_agent.domain.db import Database
    from airline_agent.tools.conversation import ToolConversation
    from airline_agent.tools.toolbox import Toolbox

    conversation = ToolConversation()
    databases = {label: Database.open(path) for label, path in paths.items()}
    bares = {label: sqlite3.connect(path) for label, path in paths.items()}
    results: dict[str, dict[str, tuple[Timing, Timing]]] = {}
    try:
        toolboxes = {
            label: Toolbox(database, clock=Clock.at(), guard=True)
            for label, database in databases.items()
        }
        for name, (arguments, lookup) in LOOKUPS.items():
            contenders: dict[str, Callable[[], object]] = {}
            for label in paths:
                toolbox, bare = toolboxes[label], bares[label]
                outcome = toolbox.call(name, arguments, conversation)
                assert outcome.ok, (name, label, outcome.result)
                assert outcome.result == lookup(bare), f"{name} ({label}): bare lookup differs"
                contenders[f"ours {label}"] = lambda t=toolbox, n=name, a=arguments: t.call(
                    n, a, conversation
                )
                contenders[f"bare {label}"] = lambda f=lookup, b=bare: f(b)
            timings = _interleaved(contenders, runs)
            results[name] = {
                label: (timings[f"ours {label}"], timings[f"bare {label}"]) for label in paths
            }
    finally:
        for bare in bares.values():
            bare.close()
        for database in databases.values():
            database.close()
    return results


def run(quick: bool) -> list[Row]:
    from airline_agent.domain.provisioning import build_database

    scale = SCALE
    runs = 50 if quick else 300
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        default_path, scaled_path = Path(tmp) / "default.db", Path(tmp) / f"scale{scale}.db"
        build_database(default_path).close()
        build_database(scaled_path, scale=scale).close()
        measured = _measure({"default": default_path, "scaled": scaled_path}, runs)
    for name in LOOKUPS:
        default, scaled = measured[name]["default"], measured[name]["scaled"]
        for label, (ours, baseline) in (("default", default), (f"scale {scale}", scaled)):
            timed = label != "default"
            rows.append(
                Row(
                    part="domain",
                    name=f"{name} ({label})",
                    ours=ours,
                    baseline_name="bare sqlite3",
                    baseline=baseline,
                    target=f"≤ {TARGET_MS:g} ms" if timed else "",
                    met=ours.median_ms <= TARGET_MS if timed else None,
                )
            )
        flat_ours, flat_base = scaled[0], default[0]
        rows.append(
            Row(
                part="domain",
                name=f"{name} scale {scale} vs default",
                ours=flat_ours,
                baseline_name="default db",
                baseline=flat_base,
                # Medians within 10% count as flat: the spread between runs is that large.
                target="scale ≤ default",
                met=flat_ours.median_ms <= flat_base.median_ms * 1.1,
            )
        )
    return rows
