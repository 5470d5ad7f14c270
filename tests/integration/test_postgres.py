"""PostgreSQL as a real server (issue 23), against the test process's own server
(tests/support/postgres.py): building a database (seed, τ² import) in one transaction,
`export` byte-identical to SQLite's, copies by `CREATE DATABASE … TEMPLATE`, and each
error a server gives said in one line with nothing half-written."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from airline_agent.domain.db import Database, database_url
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.postgres import Server, postgres_url
from airline_agent.domain.provisioning import DatabaseExists, build_database
from tests.conftest import tau2_files
from tests.support.cli import run_cli
from tests.support.postgres import PASSWORD, PASSWORD_ROLE, Outage, PostgresServer
from tests.support.postgres_fixtures import discard_later
from tests.support.sample_db import seeded
from tests.support.toolbox_fixtures import toolbox


def _name(url: str) -> str:
    address = postgres_url(url)
    assert address is not None and address.database
    return address.database


# ---------------------------------------------------------------- URLs


def test_postgresql_urls_mean_psycopg_3() -> None:
    for given in ("postgresql://u:p@db.example/air", "postgres://u:p@db.example/air"):
        assert database_url(given) == "postgresql+psycopg://u:p@db.example/air"
    assert database_url("postgresql+psycopg://u@/air?host=/run/pg") == (
        "postgresql+psycopg://u@/air?host=%2Frun%2Fpg"
    )
    assert postgres_url("sqlite:///x.db") is None
    assert postgres_url("data/airline.db") is None


# ---------------------------------------------------------------- building and exporting


def test_seed_builds_a_missing_database_and_export_is_byte_identical_to_sqlite(
    scratch_postgres: str, tmp_path: Path
) -> None:
    sqlite_file = seeded(tmp_path / "sample.db")
    built = run_cli("seed", "--db", scratch_postgres)
    assert built.returncode == 0, built.stderr
    assert "2,000 reservations" in built.stderr
    ours = run_cli("export", "--db", scratch_postgres)
    theirs = run_cli("export", "--db", str(sqlite_file))
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout.encode() == theirs.stdout.encode()


def test_a_tau2_import_exports_as_sqlite_does_and_as_db_json(
    scratch_postgres: str, tmp_path: Path
) -> None:
    db_json, _ = tau2_files()
    on_server = build_database(scratch_postgres, tau2=db_json)
    in_file = build_database(tmp_path / "tau2.db", tau2=db_json)
    try:
        from airline_agent.domain.tau2 import export_tau2

        exported = json.dumps(export_tau2(on_server), indent=2, ensure_ascii=False)
        assert exported == json.dumps(export_tau2(in_file), indent=2, ensure_ascii=False)
        assert json.loads(exported) == json.loads(db_json.read_text(encoding="utf-8"))
    finally:
        on_server.close()
        in_file.close()


def test_ids_sort_byte_by_byte_whatever_the_servers_collation(
    postgres_server: PostgresServer, scratch_postgres: str
) -> None:
    """The test server's default collation is ICU en-US, which sorts `mia_li` after
    `Mia` and ignores underscores; the columns are COLLATE "C", as SQLite's BINARY."""
    [(collation,)] = postgres_server.sql(
        "SELECT daticulocale FROM pg_database WHERE datname = 'postgres'"
    )
    assert collation == "en-US"
    database = build_database(scratch_postgres)
    try:
        from airline_agent.domain.operations.lookups import list_customers

        ids = [user_id for user_id, _ in list_customers(database)]
        assert ids == sorted(ids)  # Python sorts by code point, as SQLite does
    finally:
        database.close()


def test_a_built_database_has_the_planners_statistics_and_its_copies_too(
    postgres_server: PostgresServer, sample_on_server: str
) -> None:
    """Without them the planner takes the new tables for empty (until autovacuum comes
    by) and the one-stop search nests 300 index scans; a TEMPLATE copy carries them."""
    name = _name(sample_on_server)
    tuples = postgres_server.sql(
        "SELECT relname, reltuples FROM pg_class WHERE relname IN ('flight', 'flightdate')",
        name,
    )
    assert dict(tuples) == {"flight": 300, "flightdate": 9000}
    [(columns,)] = postgres_server.sql(
        "SELECT count(*) FROM pg_stats WHERE tablename = 'flightdate'", name
    )
    assert columns > 0


def test_a_new_reservation_continues_the_loaded_sequence(world_on_server: Database) -> None:
    """Rows loaded with their own `seq` advance the key sequence (SQLite does it by
    itself): the first booking after a load does not collide with a loaded row."""
    tools = toolbox(world_on_server, guard=False)
    booked = tools.call(
        "book_reservation",
        {
            "user_id": "noah_lee_1001",
            "origin": "PHX",
            "destination": "JFK",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [{"flight_number": "HAT050", "date": "2024-05-25"}],
            "passengers": [{"first_name": "Noah", "last_name": "Lee", "dob": "1980-01-01"}],
            "payment_methods": [{"payment_id": "credit_card_1111111", "amount": 176}],
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    )
    assert booked.error is None, booked.result
    reservations = tools.call("get_user_details", {"user_id": "noah_lee_1001"}).result
    assert reservations["reservations"][-1] == booked.result["reservation_id"]


def test_seed_refuses_an_existing_database_and_force_replaces_it_in_one_transaction(
    scratch_postgres: str,
) -> None:
    build_database(scratch_postgres, seed=1).close()
    with pytest.raises(DatabaseExists, match="already holds tables"):
        build_database(scratch_postgres, seed=2)
    build_database(scratch_postgres, seed=2, force=True).close()
    database = Database.open(scratch_postgres)
    try:
        assert database.meta()["source"] == "sample seed=2 scale=1"
    finally:
        database.close()


def test_a_failed_rebuild_leaves_the_old_database_whole(
    scratch_postgres: str, tmp_path: Path
) -> None:
    build_database(scratch_postgres, seed=1).close()
    broken = tmp_path / "db.json"
    data = json.loads(tau2_files()[0].read_text(encoding="utf-8"))
    first = next(iter(data["reservations"].values()))
    first["user_id"] = "nobody_at_all"  # a reference to a missing user: the load fails
    data["users"] = {
        uid: {**u, "reservations": [r for r in u["reservations"] if r != first["reservation_id"]]}
        for uid, u in data["users"].items()
    }
    broken.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="refer to missing records"):
        build_database(scratch_postgres, tau2=broken, force=True)
    database = Database.open(scratch_postgres)  # complete, and still the old one
    try:
        assert database.meta()["source"] == "sample seed=1 scale=1"
    finally:
        database.close()


def test_a_failed_build_of_a_new_database_leaves_no_database(
    postgres_server: PostgresServer, scratch_postgres: str, tmp_path: Path
) -> None:
    broken = tmp_path / "db.json"
    broken.write_text('{"flights": {}, "users": [], "reservations": {}}', encoding="utf-8")
    with pytest.raises(ValueError, match="users"):
        build_database(scratch_postgres, tau2=broken)
    assert not Server(postgres_url(scratch_postgres)).exists(_name(scratch_postgres))


def test_an_empty_database_is_refused_with_how_to_build_it(
    postgres_server: PostgresServer, scratch_postgres: str
) -> None:
    postgres_server.sql(f'CREATE DATABASE "{_name(scratch_postgres)}"')
    with pytest.raises(DatabaseUnavailable, match=r"holds no tables.*airline-agent seed --db"):
        Database.open(scratch_postgres)
    build_database(scratch_postgres).close()  # seed builds in it without --force


def test_a_database_of_another_program_is_never_replaced(
    postgres_server: PostgresServer, scratch_postgres: str
) -> None:
    name = _name(scratch_postgres)
    postgres_server.sql(f'CREATE DATABASE "{name}"')
    postgres_server.sql("CREATE TABLE invoices (id int)", database=name)
    with pytest.raises(DatabaseUnavailable, match="another program"):
        build_database(scratch_postgres, force=True)
    assert postgres_server.sql("SELECT count(*) FROM invoices", database=name) == [(0,)]
    with pytest.raises(DatabaseUnavailable, match="not an airline-agent database"):
        Database.open(scratch_postgres)


# ---------------------------------------------------------------- the commands on a server


def test_call_writes_and_export_shows_it(sample_on_server: str) -> None:
    cancelled = run_cli(
        "call",
        "cancel_reservation",
        '{"reservation_id": "EHGLP3"}',
        "--no-guard",
        "--db",
        sample_on_server,
    )
    assert cancelled.returncode == 0, cancelled.stderr
    assert json.loads(cancelled.stdout)["status"] == "cancelled"
    exported = run_cli("export", "--db", sample_on_server)
    assert json.loads(exported.stdout)["reservations"]["EHGLP3"]["status"] == "cancelled"


def test_a_chat_on_a_server_runs_its_tools_there(chat_server, sample_on_server: str) -> None:
    chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
    chat_server.stream("Your reservation is cancelled.")
    result = run_cli(
        "chat",
        *("--db", sample_on_server, "--approve", "auto", "--as", "emma_kim_9957", "--no-guard"),
        stdin="cancel EHGLP3\n",
        server=chat_server,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(chat_server.requests[1]["messages"][-1]["content"])["status"] == "cancelled"
    database = Database.open(sample_on_server)
    try:
        with database.read() as session:
            status = text("SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'")
            assert session.execute(status).scalar() == "cancelled"
    finally:
        database.close()


# ---------------------------------------------------------------- copies


def test_a_copy_is_a_template_copy_with_the_same_export(
    world_on_server: Database, postgres_server: PostgresServer
) -> None:
    from airline_agent.domain.tau2 import export_tau2

    target = postgres_server.url(postgres_server.new_name("copy"))
    toolbox(world_on_server, guard=False).call("cancel_reservation", {"reservation_id": "EHGLP3"})
    copy = world_on_server.copy_to(target)
    try:
        assert export_tau2(copy) == export_tau2(world_on_server)
        tools = toolbox(copy, guard=False)
        tools.call("send_certificate", {"user_id": "emma_kim_9957", "amount": 5})
        assert export_tau2(copy) != export_tau2(world_on_server)  # two databases
    finally:
        copy.close()
        discard_later(postgres_server, target)


def test_a_database_in_use_elsewhere_is_not_copied_and_says_why(
    world_on_server: Database, postgres_server: PostgresServer
) -> None:
    other = Database.open(world_on_server.engine.url.render_as_string(hide_password=False))
    target = postgres_server.url(postgres_server.new_name("copy"))
    try:
        with (
            other.engine.connect(),  # another session on the source
            pytest.raises(DatabaseUnavailable, match="other sessions are connected"),
        ):
            world_on_server.copy_to(target)
    finally:
        other.close()


# ---------------------------------------------------------------- errors a server gives


def test_a_missing_database_is_refused_with_how_to_create_it(scratch_postgres: str) -> None:
    result = run_cli("call", "list_all_airports", "--db", scratch_postgres)
    assert result.returncode == 1, result.stderr  # as for a missing file
    assert "no such database on the server" in result.stderr
    assert "airline-agent seed --db postgresql+psycopg://" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_refused_connection_is_one_line() -> None:
    with socket.socket() as held:  # bound, never listening: connections are refused
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        url = f"postgresql+psycopg://airline@127.0.0.1:{port}/airline"
        with pytest.raises(DatabaseUnavailable, match="cannot reach the PostgreSQL server"):
            Database.open(url)


def test_a_wrong_password_is_one_line_without_the_password(
    postgres_server: PostgresServer, world_on_server: Database
) -> None:
    name = _name(str(world_on_server.engine.url))
    wrong = postgres_server.url(name, role=PASSWORD_ROLE, password="not-" + PASSWORD)
    with pytest.raises(DatabaseUnavailable, match="refused the login") as refused:
        Database.open(wrong)
    assert "not-" + PASSWORD not in str(refused.value)
    missing = postgres_server.url(name, role=PASSWORD_ROLE)
    with pytest.raises(DatabaseUnavailable, match="password"):
        Database.open(missing)


def _debit_then_lose_the_connection(owner: PostgresServer, attempts: list[int], *, lose: int):
    """A write that debits the gift card, then has its session killed by the server and
    goes on reading (the next statement finds the connection gone) on its first `lose`
    attempts."""

    def work(session) -> str:
        connection = session.connection()
        pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar()
        attempts.append(pid)
        connection.exec_driver_sql(
            "UPDATE paymentmethod SET amount = amount - 10 WHERE payment_id = 'gift_card_2222222'"
        )
        if len(attempts) <= lose:
            owner.sql(f"SELECT pg_terminate_backend({pid})")
            connection.exec_driver_sql("SELECT count(*) FROM paymentmethod").scalar()
        return "done"

    return work


def test_a_connection_lost_mid_write_changes_nothing_and_is_tried_again(
    world_on_server: Database, postgres_server: PostgresServer
) -> None:
    """The server kills the write's session half-way: it rolls that transaction back, and
    `run_write` runs the write again on a new connection, so it happens once."""
    attempts: list[int] = []
    before = _balance(world_on_server)
    work = _debit_then_lose_the_connection(postgres_server, attempts, lose=1)
    assert world_on_server.run_write(work) == "done"
    assert len(attempts) == 2 and attempts[0] != attempts[1]
    assert _balance(world_on_server) == before - 10  # once, not twice


def test_a_connection_lost_on_every_attempt_is_one_sentence_and_nothing_changed(
    world_on_server: Database, postgres_server: PostgresServer
) -> None:
    from airline_agent.domain.db import WRITE_ATTEMPTS
    from airline_agent.domain.errors import ConnectionLost

    attempts: list[int] = []
    before = _balance(world_on_server)
    work = _debit_then_lose_the_connection(postgres_server, attempts, lose=WRITE_ATTEMPTS)
    with pytest.raises(ConnectionLost, match=r"lost.*nothing was changed, try again"):
        world_on_server.run_write(work)
    assert len(attempts) == WRITE_ATTEMPTS
    assert _balance(world_on_server) == before


def test_a_connection_lost_at_the_commit_is_said_as_uncertain_and_not_run_again(
    world_on_server: Database, postgres_server: PostgresServer
) -> None:
    """Lost when only the COMMIT was left to send: whether it was saved cannot be known
    from here, so the write is not repeated (it could charge twice) and says so."""
    from airline_agent.domain.errors import CommitUncertain

    attempts: list[int] = []

    def work(session) -> None:
        connection = session.connection()
        pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar()
        attempts.append(pid)
        connection.exec_driver_sql(
            "UPDATE paymentmethod SET amount = amount - 10 WHERE payment_id = 'gift_card_2222222'"
        )
        postgres_server.sql(f"SELECT pg_terminate_backend({pid})")

    with pytest.raises(CommitUncertain, match="may or may not have been saved"):
        world_on_server.run_write(work)
    assert len(attempts) == 1


def test_a_deadlock_is_run_again_and_both_writes_land(
    world_on_server: Database,
) -> None:
    """Two writers lock two rows in opposite orders: the server kills one (deadlock); it
    is run again and both changes are there, each once."""
    url = world_on_server.engine.url.render_as_string(hide_password=False)
    other = Database.open(url)
    first_locked = [threading.Event(), threading.Event()]
    rows = ("gift_card_2222222", "credit_card_1111111")
    attempts = [0, 0]
    errors: list[BaseException] = []

    def writer(index: int, database: Database) -> None:
        def work(session) -> None:
            attempts[index] += 1
            connection = session.connection()
            order = rows if index == 0 else rows[::-1]
            connection.execute(
                text("SELECT 1 FROM paymentmethod WHERE payment_id = :p FOR UPDATE"),
                {"p": order[0]},
            )
            first_locked[index].set()
            first_locked[1 - index].wait(30)
            connection.execute(
                text("SELECT 1 FROM paymentmethod WHERE payment_id = :p FOR UPDATE"),
                {"p": order[1]},
            )
            connection.execute(
                text("UPDATE paymentmethod SET amount = amount + 1 WHERE payment_id = :p"),
                {"p": "gift_card_2222222"},
            )

        try:
            database.run_write(work)
        except BaseException as exc:
            errors.append(exc)

    before = _balance(world_on_server)
    threads = [
        threading.Thread(target=writer, args=(0, world_on_server)),
        threading.Thread(target=writer, args=(1, other)),
    ]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        other.close()
    assert errors == []
    assert sorted(attempts) == [1, 2]  # one was the deadlock's victim, and ran again
    assert _balance(world_on_server) == before + 2


def test_under_serializable_isolation_serialization_failures_are_run_again(
    postgres_server: PostgresServer,
) -> None:
    """A server whose default isolation is SERIALIZABLE (a DBA's choice) rolls back the
    writers that raced for one gift card with serialization failures (40001): they are
    decided and written again, so exactly the charges that fit are made, and the one that
    does not fit is a CONFLICT about the balance."""
    from tests.support.races import Call, race
    from tests.support.world import make_world_db, world

    data = world()
    noah = data["users"]["noah_lee_1001"]
    noah["payment_methods"]["gift_card_2222223"]["amount"] = 100.0  # two $50 bags of three
    for number in range(3):
        reservation_id = f"RACE{number:02d}"
        data["reservations"][reservation_id] = data["reservations"]["NEW001"] | {
            "reservation_id": reservation_id
        }
        noah["reservations"].append(reservation_id)
    template = postgres_server.template(
        "serializable", lambda url: make_world_db(url, json.loads(json.dumps(data))).close()
    )
    url = postgres_server.copy_of(template)
    name = _name(url)
    postgres_server.sql(f'ALTER DATABASE "{name}" SET default_transaction_isolation = serializable')
    bag = {"total_baggages": 2, "nonfree_baggages": 1, "payment_id": "gift_card_2222223"}
    calls = [
        Call(
            "update_reservation_baggages",
            {"reservation_id": f"RACE{n:02d}", **bag},
            acting_user="noah_lee_1001",
        )
        for n in range(3)
    ]
    try:
        results = race(url, calls)
        assert sorted(str(r.error) for r in results) == ["CONFLICT", "None", "None"], results
        loser = next(r for r in results if r.error == "CONFLICT")
        assert "balance" in loser.result["message"], loser.result
        [(isolation,)] = postgres_server.sql("SHOW default_transaction_isolation", name)
        assert isolation == "serializable"
        [(left,)] = postgres_server.sql(
            "SELECT amount FROM paymentmethod WHERE payment_id = 'gift_card_2222223'", name
        )
        assert left == 0
    finally:
        discard_later(postgres_server, url)


def _balance(database: Database) -> float:
    with database.read() as session:
        return session.execute(
            text("SELECT amount FROM paymentmethod WHERE payment_id = 'gift_card_2222222'")
        ).scalar()


def test_a_server_that_goes_away_mid_session_is_one_line_for_every_tool(
    postgres_server: PostgresServer, world_on_server: Database
) -> None:
    """The server goes down (every connection closed, new ones refused) while a session
    has its database open: each read and write tool answers one plain line, no SQL and no
    traceback, and nothing was changed."""
    name = _name(str(world_on_server.engine.url))
    outage = Outage(postgres_server)
    database = Database.open(outage.url(name))
    try:
        tools = toolbox(database, guard=False)
        assert tools.call("get_user_details", {"user_id": "emma_kim_9957"}).error is None
        before = _balance(world_on_server)
        outage.cut()
        calls = [
            ("get_user_details", {"user_id": "emma_kim_9957"}),
            ("get_reservation_details", {"reservation_id": "EHGLP3"}),
            ("send_certificate", {"user_id": "emma_kim_9957", "amount": 5}),
            ("cancel_reservation", {"reservation_id": "EHGLP3"}),
        ]
        for tool, arguments in calls:
            outcome = tools.call(tool, arguments)
            message = outcome.result["message"]
            assert outcome.error == "INTERNAL_ERROR", (tool, outcome.result)
            assert message.startswith("the database server cannot be reached"), (tool, message)
            assert "nothing was changed" in message and "\n" not in message
            assert "[SQL" not in message and "unexpectedly" not in message
    finally:
        database.close()
    assert _balance(world_on_server) == before
    with world_on_server.read() as session:
        status = text("SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'")
        assert session.execute(status).scalar() is None  # not cancelled


def test_a_user_who_may_not_write_gets_permission_denied_and_reads_still_work(
    postgres_server: PostgresServer, world_on_server: Database
) -> None:
    name = _name(str(world_on_server.engine.url))
    postgres_server.sql(
        "DO $$ BEGIN CREATE ROLE airline_reader LOGIN; EXCEPTION WHEN duplicate_object "
        "THEN NULL; END $$"
    )
    postgres_server.sql("GRANT SELECT ON ALL TABLES IN SCHEMA public TO airline_reader", name)
    reader = Database.open(postgres_server.url(name, role="airline_reader"))
    try:
        tools = toolbox(reader, guard=False)
        assert tools.call("get_user_details", {"user_id": "emma_kim_9957"}).error is None
        refused = tools.call("send_certificate", {"user_id": "emma_kim_9957", "amount": 5})
        assert refused.error == "PERMISSION_DENIED", refused.result
        assert "refuses changes" in refused.result["message"]
        assert "[SQL" not in refused.result["message"]
    finally:
        reader.close()


# ---------------------------------------------------------------- fixtures


@pytest.fixture
def sample_on_server(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh copy of the default sample on the server (built once per process)."""
    template = postgres_server.template("sample", lambda url: build_database(url).close())
    url = postgres_server.copy_of(template)
    yield url
    discard_later(postgres_server, url)


@pytest.fixture
def world_on_server(world_db: Database) -> Database:
    """The small world, on the server (`dialect` is "postgres" in this module)."""
    return world_db


@pytest.fixture(autouse=True)
def _on_postgres(request: pytest.FixtureRequest) -> None:
    """Every test here asks for the server (a skip, saying why, where none can start)."""
    request.getfixturevalue("postgres_server")


@pytest.fixture
def dialect() -> str:
    return "postgres"
