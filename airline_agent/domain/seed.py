"""The deterministic sample database: same seed and scale, same rows, byte for byte.

Default scale is the τ²-bench reference: 20 airports, 300 flights (HAT001–HAT300) over
30 dates (2024-05-01..30), 500 users and 2,000 reservations, with similar distributions.
Statuses follow the domain clock's default, 2024-05-15 15:00: earlier dates landed or
cancelled, flights of the 15th landed / flying / on time / delayed by their times, later
dates available with seats and prices per cabin. Every reservation follows real routes
of the generated flights on dates that exist. `scale` multiplies users and reservations.

The showcase records (showcase.py) are always present, exactly as in the reference.
"""

from __future__ import annotations

import os
import random
import string
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

from airline_agent.domain import showcase
from airline_agent.domain.airports import AIRPORT_CODES, airport_rows
from airline_agent.domain.db import Database, describe
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.loading import Progress, TableRows, load_rows
from airline_agent.domain.sample_names import CITIES, FIRST_NAMES, LAST_NAMES, STREETS
from airline_agent.domain.tau2 import flight_date_row, reservation_rows, user_rows

DEFAULT_SEED = 2024
FLIGHTS = 300
USERS_PER_SCALE = 500
RESERVATIONS_PER_SCALE = 2_000

FIRST_DATE = date(2024, 5, 1)
DAYS = 30
TODAY = 14  # index of 2024-05-15, the default clock's date
NOW_MINUTES = 15 * 60  # 15:00 on that date

# Day index -1 .. DAYS + 1 as strings: times may spill into the day before or after.
_DATES = [(FIRST_DATE + timedelta(days=i)).isoformat() for i in range(-1, DAYS + 2)]

_DURATIONS = (60, 90, 120, 150, 180, 210, 240, 270, 300, 330, 360)
_DURATION_WEIGHTS = (25, 16, 69, 19, 52, 18, 48, 19, 13, 6, 15)
_CABINS = ("basic_economy", "economy", "business")
_PRICE_RANGES = {"basic_economy": (50, 100), "economy": (100, 200), "business": (200, 500)}
_MEMBERSHIPS = ("regular", "silver", "gold")
_MEMBERSHIP_WEIGHTS = (143, 182, 175)
_METHOD_COUNTS = (1, 2, 3, 4, 5, 6, 7)
_METHOD_COUNT_WEIGHTS = (80, 142, 111, 90, 41, 28, 8)
_CERTIFICATES = (100.0, 150.0, 250.0, 500.0)
_PASSENGER_COUNTS = (1, 2, 3, 4)
_PASSENGER_WEIGHTS = (920, 662, 323, 95)
_BAGS = (0, 1, 2, 3, 4, 5, 6, 7, 8)
_BAG_WEIGHTS = (1075, 433, 277, 99, 71, 19, 19, 2, 5)
_ID_CHARACTERS = string.ascii_uppercase + string.digits
# Random bytes → id characters in one `translate` (a slight bias towards the first
# characters is harmless for sample ids).
_ID_TABLE = bytes(ord(_ID_CHARACTERS[i % len(_ID_CHARACTERS)]) for i in range(256))
# Reservations are generated and written in batches so `--scale 100` stays small in memory.
BATCH = 20_000


class DatabaseExists(DatabaseUnavailable):
    """The target already holds a database and `force` was not given."""


def _draws(rng: random.Random):
    """randint, choice and random drawing from one float each: the stdlib's randint and
    choice cost ~1 µs a call, which dominates generating a million rows."""
    random_ = rng.random

    def randint(low: int, high: int) -> int:
        return low + int(random_() * (high - low + 1))

    def choice(items):
        return items[int(random_() * len(items))]

    return randint, choice, random_


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


def _timestamp(day: int, minutes: int) -> str:
    """Day index plus minutes (may be negative or past midnight) as an ISO timestamp."""
    day += minutes // 1440
    minutes %= 1440
    return f"{_DATES[day + 1]}T{minutes // 60:02d}:{minutes % 60:02d}:00"


class _Flight:
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


def _schedule(rng: random.Random) -> list[_Flight]:
    flights = []
    for index in range(1, FLIGHTS + 1):
        number = f"HAT{index:03d}"
        pinned = showcase.SHOWCASE_FLIGHTS.get(number)
        if pinned:
            origin, destination, departs, arrives = pinned
            departure = _minutes(departs)
            flights.append(
                _Flight(number, origin, destination, departure, _minutes(arrives) - departure)
            )
            continue
        origin, destination = rng.sample(AIRPORT_CODES, 2)
        departure = rng.randrange(24) * 60
        duration = rng.choices(_DURATIONS, _DURATION_WEIGHTS)[0]
        flights.append(_Flight(number, origin, destination, departure, duration))
    return flights


def _flight_rows(flights: list[_Flight], rng: random.Random, rows: TableRows) -> None:
    randint, _, random_ = _draws(rng)
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
            row = {
                "flight_number": flight.number,
                "date": _DATES[day + 1],
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
            else:
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
            rows.flight_dates.append(row)
    # The showcase's travel dates are exactly as in the reference.
    for index, row in enumerate(rows.flight_dates):
        pinned = showcase.SHOWCASE_FLIGHT_DATES.get((row["flight_number"], row["date"]))
        if pinned:
            rows.flight_dates[index] = flight_date_row(row["flight_number"], row["date"], pinned)


class _Customer:
    __slots__ = ("cards", "dob", "first_name", "last_name", "saved", "user_id")

    def __init__(self, user_id: str, first: str, last: str, dob: str) -> None:
        self.user_id = user_id
        self.first_name = first
        self.last_name = last
        self.dob = dob
        self.cards: list[str] = []  # payment ids that can pay a booking
        self.saved: list[tuple[str, str, str]] = []


def _dob(rng: random.Random, first_year: int, last_year: int) -> str:
    r = rng.random
    year = first_year + int(r() * (last_year - first_year + 1))
    return f"{year}-{1 + int(r() * 12):02d}-{1 + int(r() * 28):02d}"


def _user_rows(count: int, rng: random.Random, rows: TableRows) -> list[_Customer]:
    randint, choice, random_ = _draws(rng)
    taken = {showcase.SHOWCASE_USER["user_id"]}
    customers = []
    memberships = rng.choices(_MEMBERSHIPS, _MEMBERSHIP_WEIGHTS, k=count)
    method_counts = rng.choices(_METHOD_COUNTS, _METHOD_COUNT_WEIGHTS, k=count)
    for index in range(count):
        first, last = choice(FIRST_NAMES), choice(LAST_NAMES)
        user_id = f"{first.lower()}_{last.lower()}_{randint(1000, 9999)}"
        while user_id in taken:
            user_id = f"{first.lower()}_{last.lower()}_{randint(1000, 99999)}"
        taken.add(user_id)
        city, state, zip_prefix = choice(CITIES)
        customer = _Customer(user_id, first, last, _dob(rng, 1945, 2004))
        rows.users.append(
            {
                "user_id": user_id,
                "first_name": first,
                "last_name": last,
                "address1": f"{randint(1, 999)} {choice(STREETS)}",
                "address2": f"Suite {randint(100, 999)}",
                "city": city,
                "country": "USA",
                "state": state,
                "zip": f"{zip_prefix}{randint(0, 99):02d}",
                "email": f"{first.lower()}.{last.lower()}{randint(1000, 9999)}@example.com",
                "dob": customer.dob,
                "membership": memberships[index],
            }
        )
        ids: set[str] = set()
        for position in range(method_counts[index]):
            # The first method can always pay for a booking.
            kind = randint(0, 1) if position == 0 else randint(0, 2)
            source = ("credit_card", "gift_card", "certificate")[kind]
            payment_id = f"{source}_{randint(1000000, 9999999)}"
            while payment_id in ids:
                payment_id = f"{source}_{randint(1000000, 9999999)}"
            ids.add(payment_id)
            method = {
                "user_id": user_id,
                "payment_id": payment_id,
                "position": position,
                "source": source,
                "brand": None,
                "last_four": None,
                "amount": None,
            }
            if kind == 0:
                method["brand"] = "visa" if random_() < 0.52 else "mastercard"
                method["last_four"] = f"{randint(0, 9999):04d}"
                customer.cards.append(payment_id)
            elif kind == 1:
                method["amount"] = float(randint(0, 300))
                customer.cards.append(payment_id)
            else:
                method["amount"] = choice(_CERTIFICATES)
            rows.payment_methods.append(method)
        for position in range(1 if random_() < 0.66 else 2):
            saved = (choice(FIRST_NAMES), choice(LAST_NAMES), _dob(rng, 1940, 2012))
            customer.saved.append(saved)
            rows.saved_passengers.append(
                {
                    "user_id": user_id,
                    "position": position,
                    "first_name": saved[0],
                    "last_name": saved[1],
                    "dob": saved[2],
                }
            )
        customers.append(customer)
    return customers


class _Routes:
    """Direct flights and two-flight connections between every pair of airports."""

    def __init__(self, flights: list[_Flight]) -> None:
        self.flights = flights
        departing: dict[str, list[_Flight]] = {}
        for flight in flights:
            departing.setdefault(flight.origin, []).append(flight)
        self.direct: dict[tuple[str, str], list[tuple[_Flight, ...]]] = {}
        self.connecting: dict[tuple[str, str], list[tuple[_Flight, ...]]] = {}
        self.all_connecting: list[tuple[_Flight, ...]] = []
        for flight in flights:
            self.direct.setdefault((flight.origin, flight.destination), []).append((flight,))
            for onward in departing.get(flight.destination, ()):
                if onward.destination != flight.origin:
                    path = (flight, onward)
                    self.connecting.setdefault((flight.origin, onward.destination), []).append(path)
                    self.all_connecting.append(path)


def _dated(path: tuple[_Flight, ...], day: int) -> list[tuple[_Flight, int]]:
    """Each flight of the path with its day: a connection leaves ≥ 1 h after arrival."""
    dated = [(path[0], day)]
    ready = day * 1440 + path[0].arrival + 60
    for flight in path[1:]:
        while day * 1440 + flight.departure < ready:
            day += 1
        dated.append((flight, day))
        ready = day * 1440 + flight.arrival + 60
    return dated


def _reservation_rows(
    count: int,
    customers: list[_Customer],
    routes: _Routes,
    rng: random.Random,
    rows: TableRows,
    first_seq: int,
    taken: set[str],
) -> None:
    randint, choice, random_ = _draws(rng)
    ids = rng.randbytes(6 * count).translate(_ID_TABLE).decode("ascii")
    cabins = rng.choices(_CABINS, k=count)
    passenger_counts = rng.choices(_PASSENGER_COUNTS, _PASSENGER_WEIGHTS, k=count)
    bags = rng.choices(_BAGS, _BAG_WEIGHTS, k=count)
    reservations, segments = rows.reservations, rows.reservation_flights
    passengers, payments = rows.reservation_passengers, rows.payments
    flights, all_connecting = routes.flights, routes.all_connecting
    direct, connecting = routes.direct, routes.connecting
    for index in range(count):
        reservation_id = ids[6 * index : 6 * index + 6]
        while reservation_id in taken:
            reservation_id = "".join(rng.choices(_ID_CHARACTERS, k=6))
        taken.add(reservation_id)
        customer = choice(customers)
        outbound = (choice(flights),) if random_() < 0.3 else choice(all_connecting)
        origin, destination = outbound[0].origin, outbound[-1].destination
        back = None
        if random_() < 0.48:
            same = direct if len(outbound) == 1 else connecting
            other = connecting if len(outbound) == 1 else direct
            if random_() < 0.1:
                same, other = other, same
            back = same.get((destination, origin)) or other.get((destination, origin))
        if back:
            # Outbound by day 21 and back within 4 days keeps every flight in May 1..30.
            trip = _dated(outbound, randint(0, 21))
            trip += _dated(choice(back), trip[-1][1] + randint(1, 4))
        else:
            trip = _dated(outbound, randint(0, 27))
        cabin = cabins[index]
        low, high = _PRICE_RANGES[cabin]
        reservation_id_ = reservation_id
        fare = 0
        for position, (flight, day) in enumerate(trip):
            price = randint(low, high)
            fare += price
            segments.append(
                {
                    "reservation_id": reservation_id_,
                    "position": position,
                    "flight_number": flight.number,
                    "date": _DATES[day + 1],
                    "origin": flight.origin,
                    "destination": flight.destination,
                    "price": price,
                }
            )
        travellers = passenger_counts[index]
        for position in range(travellers):
            if position == 0 and random_() < 0.5:
                person = (customer.first_name, customer.last_name, customer.dob)
            elif position <= len(customer.saved) and random_() < 0.5:
                person = customer.saved[position - 1]
            else:
                person = (choice(FIRST_NAMES), choice(LAST_NAMES), _dob(rng, 1940, 2012))
            passengers.append(
                {
                    "reservation_id": reservation_id_,
                    "position": position,
                    "first_name": person[0],
                    "last_name": person[1],
                    "dob": person[2],
                }
            )
        insured = random_() < 0.5
        payments.append(
            {
                "reservation_id": reservation_id_,
                "position": 0,
                "payment_id": choice(customer.cards),
                "amount": fare * travellers + (30 * travellers if insured else 0),
            }
        )
        # Booked before the first flight, between 2024-04-30 and the clock's date.
        first_day = trip[0][1]
        booked_day = randint(max(-1, first_day - 14), max(-1, min(first_day, TODAY) - 1))
        booked = randint(0, 86399)
        reservations.append(
            {
                "seq": first_seq + index,
                "reservation_id": reservation_id_,
                "user_id": customer.user_id,
                "origin": origin,
                "destination": destination,
                "flight_type": "round_trip" if back else "one_way",
                "cabin": cabin,
                "created_at": f"{_DATES[booked_day + 1]}T{booked // 3600:02d}:"
                f"{booked // 60 % 60:02d}:{booked % 60:02d}",
                "total_baggages": bags[index],
                "nonfree_baggages": 0,
                "insurance": "yes" if insured else "no",
                "status": None,
            }
        )


def generate_batches(
    *, seed: int = DEFAULT_SEED, scale: int = 1, progress: Progress | None = None
) -> Iterator[TableRows]:
    """The sample's rows in batches: flights and users first, then reservations.

    `progress("building", done, total)` counts reservations.
    """
    if not isinstance(scale, int) or scale < 1:
        raise ValueError(f"scale must be a whole number ≥ 1, not {scale}")
    rng = random.Random(seed)
    rows = TableRows(airports=airport_rows())
    flights = _schedule(rng)
    _flight_rows(flights, rng, rows)
    user_rows(showcase.SHOWCASE_USER, rows)
    customers = _user_rows(USERS_PER_SCALE * scale - 1, rng, rows)
    for seq, reservation in enumerate(showcase.SHOWCASE_RESERVATIONS, start=1):
        reservation_rows(reservation, seq, rows)
    total = RESERVATIONS_PER_SCALE * scale
    done = len(showcase.SHOWCASE_RESERVATIONS)
    yield rows
    routes = _Routes(flights)
    taken = {r["reservation_id"] for r in showcase.SHOWCASE_RESERVATIONS}
    while done < total:
        if progress:
            progress("building", done, total)
        count = min(BATCH, total - done)
        rows = TableRows()
        _reservation_rows(count, customers, routes, rng, rows, done + 1, taken)
        done += count
        yield rows
    if progress:
        progress("building", total, total)


def generate_sample(*, seed: int = DEFAULT_SEED, scale: int = 1) -> TableRows:
    """Every row of the sample database for this seed and scale, in one TableRows."""
    merged = TableRows()
    for batch in generate_batches(seed=seed, scale=scale):
        for (_, into), (_, rows) in zip(merged.in_order(), batch.in_order(), strict=True):
            into.extend(rows)
    return merged


def seed_sample(
    database: Database,
    *,
    seed: int = DEFAULT_SEED,
    scale: int = 1,
    progress: Progress | None = None,
) -> None:
    """Fill an empty, created database with the sample for this seed and scale."""
    load_rows(
        database,
        generate_batches(seed=seed, scale=scale, progress=progress),
        source=f"sample seed={seed} scale={scale}",
        check_references=False,  # consistent by construction, and tested
        progress=progress,
    )


def _is_url(location: str | Path) -> bool:
    return "://" in str(location)


def build_database(
    location: str | Path,
    *,
    seed: int = DEFAULT_SEED,
    scale: int = 1,
    tau2: Path | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> Database:
    """Create and fill a database (the sample, or a τ² db.json) and open it.

    A file is built under a temporary name beside the target and renamed into place only
    when complete, so a failure leaves no half-written database. Refuses an existing
    database unless `force`. (For a URL the build happens in place.)
    """
    from airline_agent.domain.tau2 import import_tau2

    def fill(database: Database) -> None:
        if tau2 is not None:
            import_tau2(database, tau2, progress=progress)
        else:
            seed_sample(database, seed=seed, scale=scale, progress=progress)

    name = describe(location)
    if _is_url(location):
        return _build_at_url(str(location), fill, force=force)
    target = Path(location).expanduser()
    if target.exists() and not force:
        raise DatabaseExists(
            f"{name}: already exists. Use `--force` to replace it, or choose another `--db`."
        )
    _make_folder(target, name)
    building = target.with_name(f".{target.name}.building-{os.getpid()}")
    _remove_database_files(building)
    try:
        database = Database.create(building)
        try:
            fill(database)
        finally:
            # Closing the last connection folds any WAL into the file, so the rename
            # moves the whole database.
            database.close()
        _remove_database_files(target)
        os.replace(building, target)
    finally:
        _remove_database_files(building)
    return Database.open(target)


def _remove_database_files(path: Path) -> None:
    """The database file and SQLite's companions (a stale -wal must not outlive its db)."""
    for companion in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        companion.unlink(missing_ok=True)


def _build_at_url(url: str, fill, *, force: bool) -> Database:
    from sqlalchemy import inspect
    from sqlmodel import SQLModel

    from airline_agent.domain.db import make_engine

    engine = make_engine(url)
    try:
        existing = inspect(engine).get_table_names()
        if existing and not force:
            raise DatabaseExists(f"{describe(url)}: already holds tables. Use `--force`.")
        if existing:
            SQLModel.metadata.drop_all(engine)
    finally:
        engine.dispose()
    database = Database.create(url)
    fill(database)
    return database


def _make_folder(target: Path, name: str) -> None:
    """The database's folder, or DatabaseUnavailable naming what is in the way."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        # A file in the way reads "File exists" or "Not a directory": name that file.
        folders = [target.parent, *target.parent.parents]
        blocked = next((f for f in folders if f.exists() and not f.is_dir()), None)
        if blocked is not None:
            why = f"{blocked} is a file, not a folder"
        else:
            why = f"{exc.filename or target.parent}: {exc.strerror or exc}"
        raise DatabaseUnavailable(f"{name}: cannot be created ({why})") from None


def ensure_database(location: str | Path, *, progress: Progress | None = None) -> Database:
    """Open the database; build the default sample there first when the file is absent.

    A corrupt or foreign file raises DatabaseUnavailable (never overwritten).
    """
    if not _is_url(location) and not Path(location).expanduser().exists():
        return build_database(location, progress=progress)
    return Database.open(location)
