"""The deterministic sample database: same seed and scale, same rows, byte for byte.

Default scale is the τ²-bench reference: 20 airports, 300 flights (HAT001–HAT300) over
30 dates (2024-05-01..30), 500 users and 2,000 reservations, with similar distributions.
Statuses follow the domain clock's default, 2024-05-15 15:00: earlier dates landed or
cancelled, flights of the 15th landed / flying / on time / delayed by their times, later
dates available with seats and prices per cabin. Every reservation follows real routes
of the generated flights on dates that exist. `scale` multiplies users and reservations.

The showcase records (showcase.py) are always present, exactly as in the reference.
The parts: `schedule` (flights and dates), `customers`, `reservations`, drawing from one
random generator in a fixed order (`draws`). Writing a database is `provisioning`'s.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from airline_agent.domain import showcase
from airline_agent.domain.airports import airport_rows
from airline_agent.domain.db import Database
from airline_agent.domain.loading import Progress, TableRows, load_rows
from airline_agent.domain.provenance import Provenance
from airline_agent.domain.sample.customers import user_rows
from airline_agent.domain.sample.reservations import Routes, reservation_rows
from airline_agent.domain.sample.schedule import flight_rows, schedule
from airline_agent.domain.tau2 import reservation_rows as tau2_reservation_rows
from airline_agent.domain.tau2 import user_rows as tau2_user_rows

DEFAULT_SEED = 2024
USERS_PER_SCALE = 500
RESERVATIONS_PER_SCALE = 2_000
# Reservations are generated and written in batches so `--scale 100` stays small in memory.
BATCH = 20_000


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
    flights = schedule(rng)
    flight_rows(flights, rng, rows)
    tau2_user_rows(showcase.SHOWCASE_USER, rows)
    customers = user_rows(USERS_PER_SCALE * scale - 1, rng, rows)
    for seq, reservation in enumerate(showcase.SHOWCASE_RESERVATIONS, start=1):
        tau2_reservation_rows(reservation, seq, rows)
    total = RESERVATIONS_PER_SCALE * scale
    done = len(showcase.SHOWCASE_RESERVATIONS)
    yield rows
    routes = Routes(flights)
    taken = {r["reservation_id"] for r in showcase.SHOWCASE_RESERVATIONS}
    while done < total:
        if progress:
            progress("building", done, total)
        count = min(BATCH, total - done)
        rows = TableRows()
        reservation_rows(count, customers, routes, rng, rows, done + 1, taken)
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
        provenance=Provenance.sample(seed, scale),
        check_references=False,  # consistent by construction, and tested
        progress=progress,
    )
