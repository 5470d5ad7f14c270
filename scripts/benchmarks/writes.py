"""One write tool as a conversation calls it, and write throughput with 1, 4 and 16
concurrent writer processes on one SQLite file, beside bare sqlite3 doing the same change
in the same run.

One write: `update_reservation_baggages` through `Toolbox.call` (a paid bag on the
showcase reservation EHGLP3, guard on, acting for its owner), on the sample at ×10
(`seed --scale 10`): arguments validated, the guard's decision and the write in one
transaction, its row changes recorded, committed. Target: ≤ 10 ms median. (The tool takes
at most 100 bags on a reservation: a fresh copy of the database every 90 writes, two
unmeasured writes on each.)

Ours: `operations.update_baggages` (one more paid bag on a reservation, charged to the
owner's credit card: reads the reservation, the customer and their payment methods,
appends a payment line, updates the reservation; in one `Database.write()` transaction
opened for it, as the toolbox opens one per write call).
Baseline: the same UPDATE and INSERT with the `sqlite3` module in `BEGIN IMMEDIATE` …
`COMMIT`, with the same pragmas (WAL, synchronous=NORMAL, busy timeout). Each process
writes to reservations of its own, so writers contend for the database's lock only.
All processes open their database first, then wait at one barrier; the time is from
the barrier to the last process done. The table shows ms per write (the inverse of the
throughput, so that the ratio reads like every other row); writes/s are printed too.

Target: no write lost or failed at any concurrency. That the write lock costs no
single-writer speed is a before/after comparison: run this part against the previous
code (`PYTHONPATH=<old checkout> .venv/bin/python scripts/bench.py writes`; a checkout
from before the operations took their caller's transaction, issue 21, needs the bench of
its own time).
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Row, Timing, timing

WRITERS = (1, 4, 16)
DEADLINE_S = 300

# (reservation id, owner's credit card) pairs, one list per writer process.
Work = list[tuple[str, str]]


def _build(path: Path, *options: str) -> None:
    """The sample, built by the command itself (the same on every version)."""
    subprocess.run(
        [sys.executable, "-m", "airline_agent", "seed", "--db", str(path), *options],
        check=True,
        capture_output=True,
    )


TOOL_WRITE_TARGET_MS = 10.0
# The tool takes at most 100 bags on a reservation: each copy of the database takes this
# many writes (one more paid bag each), then the next writes go to a fresh copy.
WRITES_PER_COPY = 90
WARMUP = 2  # unmeasured writes on each copy (its first statements are compiled then)


def _copy(source: Path, target: Path) -> None:
    """A copy of the database file (sqlite3's backup: the same on every version)."""
    origin, copy = sqlite3.connect(source), sqlite3.connect(target)
    try:
        origin.backup(copy)
    finally:
        copy.close()
        origin.close()


def _tool_write(path: Path, runs: int) -> Timing:
    """A paid bag on EHGLP3 through `Toolbox.call`, one more each call; `runs` of them
    timed, on as many fresh copies of the database at `path` as they need."""
    from airline_agent.stack import open_existing_database, toolbox
    from airline_agent.tools.conversation import ToolConversation

    conversation = ToolConversation(customer="emma_kim_9957")
    samples: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        while len(samples) < runs:
            copy = Path(scratch) / f"copy-{len(samples)}.db"
            _copy(path, copy)
            tools = toolbox(open_existing_database(copy))
            try:
                for bags in range(1, min(WRITES_PER_COPY, WARMUP + runs - len(samples)) + 1):
                    arguments = {
                        "reservation_id": "EHGLP3",
                        "total_baggages": 4 + bags,  # B5: 2 passengers, gold: 4 bags free
                        "nonfree_baggages": bags,
                        "payment_id": "credit_card_5832574",
                    }
                    start = time.perf_counter()
                    outcome = tools.call("update_reservation_baggages", arguments, conversation)
                    elapsed = (time.perf_counter() - start) * 1000
                    assert outcome.error is None, outcome.result
                    if bags > WARMUP:
                        samples.append(elapsed)
            finally:
                tools.database.close()
    return timing(samples)


def _work(path: Path, writers: int, per_writer: int) -> list[Work]:
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(
            "SELECT r.reservation_id, min(m.payment_id) FROM reservation AS r "
            "JOIN paymentmethod AS m ON m.user_id = r.user_id AND m.source = 'credit_card' "
            "WHERE r.status IS NULL GROUP BY r.reservation_id ORDER BY r.reservation_id"
        ).fetchall()
    finally:
        connection.close()
    # Each writer gets reservations of its own and goes round them (a reservation may
    # take several bags).
    share = len(rows) // writers
    return [[rows[i * share + n % share] for n in range(per_writer)] for i in range(writers)]


def _ours(path: str, work: Work, start: Any, done: Any) -> None:
    from airline_agent.domain import operations
    from airline_agent.domain.db import Database

    database = Database.open(path)
    bags: dict[str, int] = {}
    failures = 0
    try:
        start.wait(DEADLINE_S)
        for reservation_id, card in work:
            bags[reservation_id] = bags.get(reservation_id, 0) + 1
            try:
                with database.write() as session:
                    operations.update_baggages(
                        # The rows of the transaction (the code before issue 31: the session).
                        getattr(operations, "WriteRows", lambda s: s)(session),
                        reservation_id=reservation_id,
                        total_baggages=10 + bags[reservation_id],
                        nonfree_baggages=bags[reservation_id],
                        payment_id=card,
                    )
            except Exception as exc:
                failures += 1
                print(f"write failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        database.close()
        done.put(failures)


def _bare(path: str, work: Work, start: Any, done: Any) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("PRAGMA busy_timeout=5000")
    failures = 0
    try:
        start.wait(DEADLINE_S)
        for reservation_id, card in work:
            try:
                connection.execute("BEGIN IMMEDIATE")
                connection.execute(
                    "UPDATE reservation SET total_baggages = total_baggages + 1, "
                    "nonfree_baggages = nonfree_baggages + 1 WHERE reservation_id = ?",
                    (reservation_id,),
                )
                connection.execute(
                    "INSERT INTO payment (reservation_id, position, payment_id, amount) "
                    "SELECT ?, coalesce(max(position), -1) + 1, ?, 50.0 FROM payment "
                    "WHERE reservation_id = ?",
                    (reservation_id, card, reservation_id),
                )
                connection.execute("COMMIT")
            except sqlite3.Error:
                failures += 1
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
    finally:
        connection.close()
        done.put(failures)


def _one_run(path: Path, writer: Any, work: list[Work]) -> tuple[float, int]:
    """Seconds from the barrier to the last writer done, and the writes that failed."""
    context = multiprocessing.get_context("fork")
    start = context.Barrier(len(work) + 1)
    done = context.Queue()
    processes = [
        context.Process(target=writer, args=(str(path), part, start, done)) for part in work
    ]
    for process in processes:
        process.start()
    start.wait(DEADLINE_S)
    began = time.perf_counter()
    failures = sum(done.get(timeout=DEADLINE_S) for _ in processes)
    elapsed = time.perf_counter() - began
    for process in processes:
        process.join(DEADLINE_S)
    return elapsed, failures


def _payments(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT count(*) FROM payment").fetchone()[0]
    finally:
        connection.close()


def _measure(template: Path, scratch: Path, writers: int, per_writer: int, runs: int) -> dict:
    """Per contender: ms per write over the runs, failed writes, lost writes."""
    work = _work(template, writers, per_writer)
    total = writers * per_writer
    found: dict[str, dict[str, Any]] = {}
    for label, writer in (("ours", _ours), ("bare", _bare)):
        samples, failed, lost = [], 0, 0
        for _ in range(runs):
            path = scratch / f"{label}.db"
            path.write_bytes(template.read_bytes())
            before = _payments(path)
            elapsed, failures = _one_run(path, writer, work)
            samples.append(elapsed * 1000 / total)
            failed += failures
            lost += total - failures - (_payments(path) - before)
        found[label] = {"timing": timing(samples), "failed": failed, "lost": lost}
    return found


def _per_second(timing_: Timing) -> str:
    return f"{1000 / timing_.median_ms:,.0f}/s"


def run(quick: bool) -> list[Row]:
    per_writer = 40 if quick else 120
    runs = 3 if quick else 7
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        scaled = Path(tmp) / "scale10.db"
        _build(scaled, "--scale", "10")
        one = _tool_write(scaled, 30 if quick else 200)
        rows.append(
            Row(
                part="writes",
                name="update_reservation_baggages (scale 10)",
                ours=one,
                target=f"≤ {TOOL_WRITE_TARGET_MS:g} ms",
                met=one.median_ms <= TOOL_WRITE_TARGET_MS,
            )
        )
        template = Path(tmp) / "template.db"
        _build(template)
        for writers in WRITERS:
            measured = _measure(template, Path(tmp), writers, per_writer, runs)
            ours, bare = measured["ours"], measured["bare"]
            sound = ours["failed"] == 0 and ours["lost"] == 0
            print(
                f"writes, {writers:2} process(es): ours {_per_second(ours['timing'])} "
                f"({ours['failed']} failed, {ours['lost']} lost), bare sqlite3 "
                f"{_per_second(bare['timing'])} ({bare['failed']} failed, {bare['lost']} lost)",
                file=sys.stderr,
            )
            rows.append(
                Row(
                    part="writes",
                    name=f"ms/write, {writers} writer process(es)",
                    ours=ours["timing"],
                    baseline_name="bare sqlite3",
                    baseline=bare["timing"],
                    target="none lost or failed",
                    met=sound,
                )
            )
    return rows
