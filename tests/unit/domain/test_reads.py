"""The read path (domain/read_snapshots.py): bare sqlite3 for SQLite files, the same SQL through
SQLAlchemy elsewhere; snapshots, threads, and index use."""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

import pytest

from airline_agent.domain import operations
from airline_agent.domain.db import Database
from airline_agent.domain.operations import flights, ids, lookups
from airline_agent.domain.read_snapshots import EngineReads, SqliteReads, by_position
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


def test_a_sqlite_file_is_read_with_bare_sqlite3(world_db: Database) -> None:
    with world_db.reads():
        pass
    assert isinstance(world_db._read_source, SqliteReads)


def test_sqlalchemy_reads_give_exactly_the_same_results(world_db: Database) -> None:
    # A URL with a query string is not taken apart: it goes through SQLAlchemy.
    other = Database.open(f"sqlite:///{_path(world_db)}?timeout=5")
    try:
        with other.reads():
            pass
        assert isinstance(other._read_source, EngineReads)
        fast, portable = toolbox(world_db), toolbox(other)
        for name, arguments in READS.items():
            ours = fast.call(name, arguments)
            assert ours.ok, (name, ours.result)
            assert ours.result == portable.call(name, arguments).result, name
            assert ours.content() == portable.call(name, arguments).content(), name
    finally:
        other.close()


@pytest.mark.both_backends  # also on a real PostgreSQL server (tests/support/postgres.py)
def test_tolerant_lookups_still_work_on_the_fast_path(world_db: Database) -> None:
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


@pytest.mark.both_backends  # also on a real PostgreSQL server (tests/support/postgres.py)
def test_a_read_after_a_write_sees_the_committed_write(world_db: Database) -> None:
    tools = toolbox(world_db, guard=False)
    before = tools.call("get_reservation_details", {"reservation_id": "EHGLP3"}).result
    assert before["status"] is None  # τ²'s Reservation model: always there, null when none
    assert tools.call("cancel_reservation", {"reservation_id": "EHGLP3"}).ok
    after = tools.call("get_reservation_details", {"reservation_id": "EHGLP3"}).result
    assert after["status"] == "cancelled"
    assert len(after["payment_history"]) == 2 * len(before["payment_history"])


def test_a_snapshot_sees_one_state_even_when_a_write_commits_meanwhile(
    world_db: Database,
) -> None:
    writer = sqlite3.connect(_path(world_db), isolation_level=None)
    try:
        with world_db.reads() as reads:
            first = reads.value("SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'")
            writer.execute(
                "UPDATE reservation SET status = 'cancelled' WHERE reservation_id = 'EHGLP3'"
            )
            again = reads.value("SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'")
        assert first is None and again is None
        with world_db.reads() as reads:
            now = reads.value("SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'")
        assert now == "cancelled"
    finally:
        writer.close()


def test_statements_see_each_commit_at_once_and_join_an_open_snapshot(
    world_db: Database,
) -> None:
    status = "SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'"
    writer = sqlite3.connect(_path(world_db), isolation_level=None)
    try:
        assert world_db.statements().value(status) is None
        writer.execute(
            "UPDATE reservation SET status = 'cancelled' WHERE reservation_id = 'EHGLP3'"
        )
        assert world_db.statements().value(status) == "cancelled"  # no snapshot held it back
        with world_db.reads() as reads:
            assert reads.value(status) == "cancelled"
            writer.execute("UPDATE reservation SET status = NULL WHERE reservation_id = 'EHGLP3'")
            # In the thread's open snapshot, a statement reads in its transaction.
            assert world_db.statements().value(status) == "cancelled"
        assert world_db.statements().value(status) is None
    finally:
        writer.close()


@pytest.mark.both_backends  # also on a real PostgreSQL server (tests/support/postgres.py)
def test_reads_nested_in_the_same_thread_do_not_wait_for_themselves(world_db: Database) -> None:
    with world_db.reads() as outer:
        assert operations.get_user(world_db, "emma_kim_9957")["user_id"] == "emma_kim_9957"
        assert outer.value("SELECT count(*) FROM airport") > 0
    # The outer transaction ended: a later snapshot can begin again.
    with world_db.reads() as reads:
        assert reads.value("SELECT count(*) FROM airport") > 0


def test_the_read_connection_never_writes(world_db: Database) -> None:
    with world_db.reads() as reads:
        try:
            reads.rows("DELETE FROM airport")
        except sqlite3.OperationalError as exc:
            assert "readonly" in str(exc) or "read-only" in str(exc) or "query_only" in str(exc)
        else:  # pragma: no cover
            raise AssertionError("the read connection wrote")
    with world_db.reads() as reads:
        assert reads.value("SELECT count(*) FROM airport") > 0


@pytest.mark.both_backends  # also on a real PostgreSQL server (tests/support/postgres.py)
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


def test_close_closes_the_read_connection_and_a_new_read_reopens_it(world_db: Database) -> None:
    assert operations.flight_status(world_db, "HAT021", "2024-05-15")
    source = world_db._read_source
    world_db.close()
    assert world_db._read_source is None
    assert isinstance(source, SqliteReads)
    assert operations.flight_status(world_db, "HAT021", "2024-05-15")


def _read_queries() -> dict[str, str]:
    queries = {
        name: value
        for module in (lookups, flights)
        for name, value in vars(module).items()
        if isinstance(value, str) and value.startswith("SELECT ")
    }
    queries["one-stop second legs"] = (
        flights._BOOKABLE + "AND f.origin IN (:s0, :s1) AND f.destination = :destination "
        "AND d.date IN (:d0, :d1) ORDER BY f.flight_number"
    )
    for name in ("USER_ID", "RESERVATION_ID", "FLIGHT_NUMBER"):
        queries[f"{name}.exact"] = getattr(ids, name).exact
    return queries


def test_every_read_query_is_served_by_an_index(world_db: Database) -> None:
    """Flat at any scale: no read scans a table that grows (airports are a fixed list;
    the partial `_BOOKABLE` prefix is only ever run with a route or origin added;
    `_CUSTOMERS` is the TUI picker's whole list, read once per `u`, in its key's order)."""
    connection = sqlite3.connect(_path(world_db))
    try:
        queries = _read_queries()
        assert len(queries) >= 15
        for name, sql in queries.items():
            if name in ("_AIRPORTS", "_BOOKABLE", "_CUSTOMERS"):
                continue
            params = {p: "x" for p in re.findall(r":(\w+)", sql)}
            plan = [row[3] for row in connection.execute("EXPLAIN QUERY PLAN " + sql, params)]
            scans = [step for step in plan if step.startswith("SCAN")]
            assert not scans, f"{name}: {plan}"
    finally:
        connection.close()


def test_flight_searches_start_from_the_route(world_db: Database) -> None:
    connection = sqlite3.connect(Path(_path(world_db)))
    try:
        params = {"origin": "PHX", "destination": "SEA", "date": "2024-05-16"}
        plan = [r[3] for r in connection.execute("EXPLAIN QUERY PLAN " + flights._DIRECT, params)]
        assert "ix_flight_route" in plan[0], plan
    finally:
        connection.close()


def test_named_parameters_are_bound_by_position_exactly_as_by_name(world_db: Database) -> None:
    """The sqlite3 reads number `:name` parameters and bind them from a tuple
    (read_snapshots.by_position): every read query gives the rows it gives by name."""
    connection = sqlite3.connect(_path(world_db))
    route = {"origin": "PHX", "destination": "SEA", "date": "2024-05-16", "number": "HAT156"}
    route |= {"s0": "PHX", "s1": "LAS", "d0": "2024-05-16", "d1": "2024-05-17"}
    found = set()
    try:
        for name, sql in _read_queries().items():
            text, pick = by_position(sql)
            assert ":" not in text, name
            for key in ("emma_kim_9957", "EHGLP3", "HAT156"):
                params = {**route, "key": key}
                by_name = connection.execute(sql, params).fetchall()
                assert connection.execute(text, pick(params)).fetchall() == by_name, name
                if by_name:
                    found.add(name)
        assert len(found) >= 15, found  # rows to compare, not only empty results
    finally:
        connection.close()


def test_numbering_leaves_quoted_text_names_and_comments_alone() -> None:
    text, pick = by_position(
        "SELECT ':a', \":b\", `:c`, [:d], :e, :f -- :g\n/* :h */ WHERE x = :e AND y::int"
    )
    assert text == "SELECT ':a', \":b\", `:c`, [:d], ?1, ?2 -- :g\n/* :h */ WHERE x = ?1 AND y::int"
    assert pick({"e": 1, "f": 2, "g": 3}) == (1, 2)
    assert by_position("SELECT a FROM t WHERE b = :b")[1]({"b": "x", "c": "y"}) == ("x",)
    assert by_position("SELECT 1") == ("SELECT 1", by_position("SELECT 2")[1])
    assert by_position("SELECT 1")[1]({"unused": 1}) == ()
