"""The read path: every read tool through SQLModel sessions, each lookup in one read
transaction (`Database.read`); one consistent view per read, threads, and index use."""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlmodel import Session, func, select

from airline_agent.domain import operations
from airline_agent.domain.db import Database
from airline_agent.domain.schema import Airport, Reservation
from tests.support.statements import traced
from tests.support.toolbox_fixtures import toolbox

READS = {
    "get_user_details": {"user_id": "emma_kim_9957"},
    "get_reservation_details": {"reservation_id": "EHGLP3"},
    "search_direct_flight": {"origin": "PHX", "destination": "SEA", "date": "2024-05-16"},
    "search_onestop_flight": {"origin": "PHX", "destination": "JFK", "date": "2024-05-16"},
    "get_flight_status": {"flight_number": "HAT021", "date": "2024-05-15"},
    "list_all_airports": {},
}


def _path(database: Database) -> str:
    return database.engine.url.database


def _status(session: Session) -> str | None:
    query = select(Reservation.status).where(Reservation.reservation_id == "EHGLP3")
    return session.exec(query).one()


def _airports(session: Session) -> int:
    return session.exec(select(func.count()).select_from(Airport)).one()


def test_a_lookup_of_several_queries_is_one_read_transaction(world_db: Database) -> None:
    world_db.disconnect()
    with traced() as statements:
        assert toolbox(world_db).call("get_user_details", {"user_id": "emma_kim_9957"}).ok
    begin = statements.index("BEGIN")
    end = statements.index("ROLLBACK", begin)  # nothing was written: just ends the read
    queries = [s for s in statements if s.startswith("SELECT")]
    assert len(queries) >= 3
    assert all(begin < statements.index(query) < end for query in queries)


def test_a_url_with_options_gives_exactly_the_same_results(world_db: Database) -> None:
    # A URL with a query string is the user's to have applied: it is not taken apart.
    other = Database.open(f"sqlite:///{_path(world_db)}?timeout=5")
    try:
        fast, portable = toolbox(world_db), toolbox(other)
        for name, arguments in READS.items():
            ours = fast.call(name, arguments)
            assert ours.ok, (name, ours.result)
            assert ours.result == portable.call(name, arguments).result, name
            assert ours.content() == portable.call(name, arguments).content(), name
    finally:
        other.close()


@pytest.mark.both_dialects  # also on a real PostgreSQL server (tests/support/postgres.py)
def test_tolerant_lookups_still_work(world_db: Database) -> None:
    tools = toolbox(world_db)
    assert tools.call("get_user_details", {"user_id": " Emma_Kim_9957 "}).result["user_id"] == (
        "emma_kim_9957"
    )
    assert tools.call("get_reservation_details", {"reservation_id": "ehglp3"}).result[
        "reservation_id"
    ] == ("EHGLP3")
    assert tools.call("get_flight_status", {"flight_number": "hat021", "date": "2024-05-15"}).result
    missing = tools.call("get_user_details", {"user_id": "nobody_0000"})
    assert missing.error == "NOT_FOUND"


@pytest.mark.both_dialects  # also on a real PostgreSQL server (tests/support/postgres.py)
def test_a_read_after_a_write_sees_the_committed_write(world_db: Database) -> None:
    tools = toolbox(world_db, guard=False)
    before = tools.call("get_reservation_details", {"reservation_id": "EHGLP3"}).result
    assert before["status"] is None  # τ²'s Reservation model: always there, null when none
    assert tools.call("cancel_reservation", {"reservation_id": "EHGLP3"}).ok
    after = tools.call("get_reservation_details", {"reservation_id": "EHGLP3"}).result
    assert after["status"] == "cancelled"
    assert len(after["payment_history"]) == 2 * len(before["payment_history"])


def test_a_read_sees_one_state_even_when_a_write_commits_meanwhile(
    world_db: Database,
) -> None:
    writer = sqlite3.connect(_path(world_db), isolation_level=None)
    try:
        with world_db.read() as session:
            first = _status(session)
            writer.execute(
                "UPDATE reservation SET status = 'cancelled' WHERE reservation_id = 'EHGLP3'"
            )
            again = _status(session)
        assert first is None and again is None
        with world_db.read() as session:
            now = _status(session)
        assert now == "cancelled"  # the next read sees the commit at once
    finally:
        writer.close()


@pytest.mark.both_dialects  # also on a real PostgreSQL server (tests/support/postgres.py)
def test_reads_nested_in_the_same_thread_do_not_wait_for_themselves(world_db: Database) -> None:
    with world_db.read() as outer:
        assert operations.get_user(world_db, "emma_kim_9957")["user_id"] == "emma_kim_9957"
        assert _airports(outer) > 0
    # The outer transaction ended: a later read can begin again.
    with world_db.read() as session:
        assert _airports(session) > 0


def test_a_read_never_writes(world_db: Database) -> None:
    with world_db.read() as session:
        session.delete(session.exec(select(Airport)).first())
        session.flush()
        assert _airports(session) == 19  # seen inside the read only
    with world_db.read() as session:
        assert _airports(session) == 20  # never committed


@pytest.mark.both_dialects  # also on a real PostgreSQL server (tests/support/postgres.py)
def test_tools_can_be_called_from_several_threads_while_writing(world_db: Database) -> None:
    tools = toolbox(world_db, guard=False)
    expected = {name: tools.call(name, arguments).result for name, arguments in READS.items()}
    failures: list[str] = []

    def reader() -> None:
        for _ in range(30):
            for name, arguments in READS.items():
                outcome = tools.call(name, arguments)
                if name == "get_reservation_details":
                    ok = outcome.ok  # the writer may have cancelled it meanwhile
                else:
                    ok = outcome.result == expected[name]
                if not ok:
                    failures.append(f"{name}: {outcome.result}")

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    cancelled = tools.call("cancel_reservation", {"reservation_id": "EHGLP3"})
    for thread in threads:
        thread.join()
    assert cancelled.ok, cancelled.result
    assert failures == []
    final = tools.call("get_reservation_details", {"reservation_id": "EHGLP3"}).result
    assert final["status"] == "cancelled"


def test_a_read_after_close_opens_the_database_again(world_db: Database) -> None:
    assert operations.flight_status(world_db, "HAT021", "2024-05-15")
    world_db.close()
    assert operations.flight_status(world_db, "HAT021", "2024-05-15")


# Reads that scan on purpose: the airports are a fixed list, the customers the TUI
# picker's whole list (read once per `u`, in its key's order), and a tolerant id lookup
# (`lower(id) = …`) only runs after an exact one found nothing.
_SCANS_ALLOWED = re.compile(r'FROM airport\b|ORDER BY "?user"?\.user_id$|lower\(')
# Each read tool, with ids as a customer or a model may write them.
_TOLERANT = {
    "get_user_details": {"user_id": " Emma_Kim_9957 "},
    "get_reservation_details": {"reservation_id": "ehglp3"},
    "get_flight_status": {"flight_number": "hat021", "date": "2024-05-15"},
}


def _read_statements(database: Database) -> list[str]:
    """The SELECTs the read tools run (each once, and with tolerant ids)."""
    database.disconnect()
    tools = toolbox(database)
    with traced() as statements:
        for name, arguments in [*READS.items(), *_TOLERANT.items()]:
            assert tools.call(name, arguments).ok, name
        operations.list_customers(database)
    return [s for s in statements if s.startswith("SELECT")]


def test_every_read_query_is_served_by_an_index(world_db: Database) -> None:
    """Flat at any scale: no read scans a table that grows."""
    connection = sqlite3.connect(_path(world_db))
    try:
        queries = _read_statements(world_db)
        assert len(queries) >= 15
        for sql in queries:
            plan = [row[3] for row in connection.execute("EXPLAIN QUERY PLAN " + sql)]
            scans = [step for step in plan if step.startswith("SCAN")]
            assert not scans or _SCANS_ALLOWED.search(sql), f"{sql}: {plan}"
    finally:
        connection.close()


def test_flight_searches_start_from_the_route(world_db: Database) -> None:
    world_db.disconnect()
    connection = sqlite3.connect(Path(_path(world_db)))
    try:
        with traced() as statements:
            operations.search_direct(world_db, "PHX", "SEA", "2024-05-16")
        first = next(s for s in statements if s.startswith("SELECT"))
        plan = [r[3] for r in connection.execute("EXPLAIN QUERY PLAN " + first)]
        assert "ix_flight_route" in plan[0], plan
    finally:
        connection.close()
