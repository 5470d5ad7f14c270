"""Seeding and τ² import speed, beside a bare sqlite3 executemany of the same rows.

Ours: `seed_sample` into a freshly created database (generation + insert, one
transaction). Baseline: the rows the generator produced, inserted with the `sqlite3`
module's executemany into a database created with the same DDL, in one transaction.
Target: seeding ≤ 2× the bare insert.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import Row, timing

ROOT = Path(__file__).resolve().parents[2]
TAU2_DB = ROOT.parent / "shared/reference/tau2/db.json"


def _fresh(directory: Path, name: str) -> Path:
    path = directory / name
    for companion in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        companion.unlink(missing_ok=True)
    return path


def _bare_insert(path: Path, rows) -> None:
    from sqlalchemy.dialects import sqlite as sqlite_dialect
    from sqlalchemy.schema import CreateIndex, CreateTable
    from sqlmodel import SQLModel

    dialect = sqlite_dialect.dialect()
    connection = sqlite3.connect(path)
    for table in SQLModel.metadata.sorted_tables:
        connection.execute(str(CreateTable(table).compile(dialect=dialect)))
        for index in table.indexes:
            connection.execute(str(CreateIndex(index).compile(dialect=dialect)))
    connection.commit()
    start = time.perf_counter()
    with connection:
        for table, table_rows in rows.in_order():
            if table_rows:
                columns = list(table_rows[0])
                connection.executemany(
                    f"INSERT INTO {table.name} ({', '.join(columns)}) "
                    f"VALUES ({', '.join(':' + c for c in columns)})",
                    table_rows,
                )
    _bare_insert.last_ms = (time.perf_counter() - start) * 1000  # type: ignore[attr-defined]
    connection.close()


def _timed(runs: int, fn: Callable[[], float]) -> list[float]:
    return [fn() for _ in range(runs)]


def run(quick: bool) -> list[Row]:
    from airline_agent.domain.db import Database
    from airline_agent.domain.sample import generate_sample, seed_sample
    from airline_agent.domain.tau2 import import_tau2

    rows_out: list[Row] = []
    scales = [(1, 3 if quick else 7), (10 if quick else 100, 1 if quick else 3)]
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for scale, runs in scales:

            def ours(scale: int = scale) -> float:
                database = Database.create(_fresh(directory, "ours.db"))
                start = time.perf_counter()
                seed_sample(database, scale=scale)
                elapsed = (time.perf_counter() - start) * 1000
                database.close()
                return elapsed

            rows = generate_sample(scale=scale)

            def bare(rows=rows) -> float:
                _bare_insert(_fresh(directory, "bare.db"), rows)
                return _bare_insert.last_ms  # type: ignore[attr-defined]

            ours_ms = _timed(runs, ours)
            bare_ms = _timed(runs, bare)
            del rows
            ours_t, bare_t = timing(ours_ms), timing(bare_ms)
            ratio = ours_t.median_ms / bare_t.median_ms
            rows_out.append(
                Row(
                    part="domain",
                    name=f"seed --scale {scale} (generate + insert)",
                    ours=ours_t,
                    baseline_name="bare sqlite3 executemany",
                    baseline=bare_t,
                    target="≤ 2× bare insert",
                    met=ratio <= 2.0,
                )
            )
        if TAU2_DB.is_file():
            data = json.loads(TAU2_DB.read_text())

            def imported() -> float:
                database = Database.create(_fresh(directory, "tau2.db"))
                start = time.perf_counter()
                import_tau2(database, data)
                elapsed = (time.perf_counter() - start) * 1000
                database.close()
                return elapsed

            rows_out.append(
                Row(
                    part="domain",
                    name="import τ² db.json (parsed; convert + insert)",
                    ours=timing(_timed(3 if quick else 7, imported)),
                )
            )
    return rows_out
