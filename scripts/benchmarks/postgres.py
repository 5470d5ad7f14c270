"""The tools on PostgreSQL beside the same tools on SQLite, measured in the same run.

A PostgreSQL server is started for the run as the tests start theirs
(tests/support/postgres.py: Debian's binaries, a unix socket in a temporary directory,
fsync off), so the figures say what the engine and the driver cost, not a disk. Both
databases are the default sample, built by `airline-agent seed`.

- Each read tool through `Toolbox.call`: median of many calls, SQLite as the baseline.
  SQLite reads a local file through one long-lived connection; PostgreSQL is a round
  trip per statement to another process (on a unix socket here; add the network for a
  remote server).
- One write (`update_reservation_baggages`: a paid bag, charged to the owner's card)
  through `Toolbox.call`, guard on.
- Writes per second with 1, 4 and 16 writer processes, each on reservations of its own,
  through `Database.run_write` as the toolbox writes (the `writes` part's change):
  SQLite serialises writers on its file lock, PostgreSQL on row locks only.
- A trial's database on the server (eval --db, an MCP session, a serve tab): a `CREATE
  DATABASE … TEMPLATE` copy of the τ² import (domain/postgres.py `TemplateCopies`),
  beside what it replaces, a re-import of db.json into a new database on the server.

Target: none lost or failed, at every concurrency, on both. No speed target: this part
says what moving to a server costs and buys on this machine.
"""

from __future__ import annotations

import multiprocessing
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Row, Timing, measure, timing

ROOT = Path(__file__).resolve().parents[2]
WRITERS = (1, 4, 16)
DEADLINE_S = 300

READS = {
    "get_user_details": {"user_id": "emma_kim_9957"},
    "get_reservation_details": {"reservation_id": "EHGLP3"},
    "list_all_airports": {},
    "search_direct_flight": {"origin": "PHX", "destination": "SEA", "date": "2024-05-17"},
    "search_onestop_flight": {"origin": "PHX", "destination": "JFK", "date": "2024-05-17"},
    "get_flight_status": {"flight_number": "HAT156", "date": "2024-05-17"},
}

Work = list[tuple[str, str]]


def _server() -> Any:
    sys.path.insert(0, str(ROOT))
    from tests.support.postgres import start_server

    return start_server()


def _seed(location: str) -> None:
    import subprocess

    subprocess.run(
        [sys.executable, "-m", "airline_agent", "seed", "--db", location],
        check=True,
        capture_output=True,
    )


def _toolbox(location: str) -> Any:
    from airline_agent.stack import open_existing_database, toolbox
    from airline_agent.tools.conversation import ToolConversation

    tools = toolbox(open_existing_database(location))
    return tools, ToolConversation()


def _reads(sqlite_file: str, postgres: str, runs: int) -> list[Row]:
    rows = []
    lite, lite_conversation = _toolbox(sqlite_file)
    server, server_conversation = _toolbox(postgres)
    try:
        for name, arguments in READS.items():

            def on_sqlite(name: str = name, arguments: dict = arguments) -> None:
                assert lite.call(name, arguments, lite_conversation).error is None

            def on_postgres(name: str = name, arguments: dict = arguments) -> None:
                assert server.call(name, arguments, server_conversation).error is None

            ours = measure(on_postgres, runs=runs)
            baseline = measure(on_sqlite, runs=runs)
            rows.append(Row("pg", f"{name} on PostgreSQL", ours, "SQLite", baseline, "—", None))
    finally:
        lite.database.close()
        server.database.close()
    return rows


def _bag_write(location: str, runs: int) -> Timing:
    """A paid bag on EHGLP3's owner's reservations, one more each call."""
    from airline_agent.tools.conversation import ToolConversation

    tools, _ = _toolbox(location)
    bags = [0]

    def write() -> None:
        bags[0] += 1
        outcome = tools.call(
            "update_reservation_baggages",
            {
                "reservation_id": "EHGLP3",
                "total_baggages": 4 + bags[0],  # B5: 2 passengers, gold: 4 bags free
                "nonfree_baggages": bags[0],
                "payment_id": "credit_card_5832574",
            },
            ToolConversation(customer="emma_kim_9957"),
        )
        assert outcome.error is None, outcome.result

    try:
        return measure(write, runs=runs)
    finally:
        tools.database.close()


def _work(location: str, writers: int, per_writer: int) -> list[Work]:
    from sqlalchemy import text

    from airline_agent.stack import open_existing_database

    database = open_existing_database(location)
    try:
        with database.read() as session:
            found = session.execute(
                text(
                    "SELECT r.reservation_id, min(m.payment_id) FROM reservation AS r "
                    "JOIN paymentmethod AS m ON m.user_id = r.user_id "
                    "AND m.source = 'credit_card' WHERE r.status IS NULL "
                    "GROUP BY r.reservation_id ORDER BY r.reservation_id"
                )
            ).all()
    finally:
        database.close()
    share = len(found) // writers
    return [
        [tuple(found[i * share + n % share]) for n in range(per_writer)] for i in range(writers)
    ]


def _writer(location: str, work: Work, start: Any, done: Any) -> None:
    from airline_agent.domain import operations
    from airline_agent.domain.db import Database

    database = Database.open(location)
    bags: dict[str, int] = {}
    failures = 0
    try:
        start.wait(DEADLINE_S)
        for reservation_id, card in work:
            bags[reservation_id] = bags.get(reservation_id, 0) + 1
            count = bags[reservation_id]
            try:
                database.run_write(
                    lambda session, rid=reservation_id, n=count, card=card: (
                        operations.update_baggages(
                            operations.WriteRows(session),
                            reservation_id=rid,
                            total_baggages=10 + n,
                            nonfree_baggages=n,
                            payment_id=card,
                        )
                    )
                )
            except Exception as exc:
                failures += 1
                print(f"write failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        database.close()
        done.put(failures)


def _payments(location: str) -> int:
    from sqlalchemy import text

    from airline_agent.stack import open_existing_database

    database = open_existing_database(location)
    try:
        with database.read() as session:
            return int(session.execute(text("SELECT count(*) FROM payment")).scalar_one())
    finally:
        database.close()


def _one_run(location: str, work: list[Work]) -> tuple[float, int]:
    context = multiprocessing.get_context("fork")
    start = context.Barrier(len(work) + 1)
    done = context.Queue()
    processes = [
        context.Process(target=_writer, args=(location, part, start, done)) for part in work
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


def _throughput(fresh: Any, writers: int, per_writer: int, runs: int) -> dict[str, Any]:
    """ms per write over `runs` runs on fresh copies (`fresh()` → location), failures
    and writes lost (payment lines that should be there and are not)."""
    samples, failed, lost = [], 0, 0
    for _ in range(runs):
        location = fresh()
        work = _work(location, writers, per_writer)
        before = _payments(location)
        elapsed, failures = _one_run(location, work)
        total = writers * per_writer
        samples.append(elapsed * 1000 / total)
        failed += failures
        lost += total - failures - (_payments(location) - before)
    return {"timing": timing(samples), "failed": failed, "lost": lost}


def _tau2_import(url: str) -> None:
    from airline_agent.domain.db import Database
    from airline_agent.domain.tau2 import import_tau2

    database = Database.create(url)
    try:
        import_tau2(database, ROOT.parent / "shared" / "reference" / "tau2" / "db.json")
    finally:
        database.close()


def _trial_copies(server: Any, runs: int) -> Row:
    """A TEMPLATE copy of the τ² import, beside a re-import of db.json, both on the server."""
    from airline_agent.domain.postgres import TemplateCopies

    copies = TemplateCopies.built(server.url("bench_trials"), _tau2_import)
    made: list[str] = []
    names = iter(range(1_000_000))
    try:
        ours = measure(lambda: made.append(copies.copy("trial")), runs=runs)
        imported = measure(
            lambda: _tau2_import(server.url(f"bench_import_{next(names)}")),
            runs=max(3, runs // 10),
            warmup=1,
        )
    finally:
        copies.close()  # the copies made and the template
    return Row(
        "pg",
        "a trial's τ² database on PostgreSQL: TEMPLATE copy",
        ours,
        "re-import of db.json",
        imported,
        "—",
        None,
    )


def _per_second(measured: Timing) -> str:
    return f"{1000 / measured.median_ms:,.0f}/s"


def run(quick: bool) -> list[Row]:
    from airline_agent.domain.db import Database

    runs = 50 if quick else 300
    per_writer = 30 if quick else 100
    throughput_runs = 2 if quick else 5
    server = _server()
    rows: list[Row] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sqlite_file = str(Path(tmp) / "sample.db")
            _seed(sqlite_file)
            template = server.url("bench_sample")
            _seed(template)
            copies = iter(range(1_000_000))

            def on_server() -> str:
                return server.copy_of("bench_sample", f"bench_{next(copies)}")

            def in_file() -> str:
                copy = Path(tmp) / f"copy-{next(copies)}.db"
                source = Database.open(sqlite_file)
                try:
                    source.copy_to(copy).close()
                finally:
                    source.close()
                return str(copy)

            rows += _reads(sqlite_file, template, runs)
            rows.append(
                Row(
                    "pg",
                    "update_reservation_baggages on PostgreSQL",
                    _bag_write(on_server(), max(20, runs // 5)),
                    "SQLite",
                    _bag_write(in_file(), max(20, runs // 5)),
                    "—",
                    None,
                )
            )
            rows.append(_trial_copies(server, 10 if quick else 30))
            for writers in WRITERS:
                pg = _throughput(on_server, writers, per_writer, throughput_runs)
                lite = _throughput(in_file, writers, per_writer, throughput_runs)
                print(
                    f"writes, {writers:2} process(es): PostgreSQL {_per_second(pg['timing'])} "
                    f"({pg['failed']} failed, {pg['lost']} lost), SQLite "
                    f"{_per_second(lite['timing'])} ({lite['failed']} failed, "
                    f"{lite['lost']} lost)",
                    file=sys.stderr,
                )
                sound = all(m["failed"] == 0 and m["lost"] == 0 for m in (pg, lite))
                rows.append(
                    Row(
                        "pg",
                        f"ms/write, {writers} writer process(es), PostgreSQL",
                        pg["timing"],
                        "SQLite",
                        lite["timing"],
                        "none lost or failed",
                        sound,
                    )
                )
    finally:
        server.stop()
    return rows
