"""The commands that make a database per run, on a PostgreSQL server (issue 23): `eval
--db postgresql://…` (the import of db.json once, each trial and each reference end
state a `CREATE DATABASE … TEMPLATE` copy of it, all dropped at the end) and `mcp` on a
PostgreSQL database (each session a TEMPLATE copy of a template made at start, dropped
when the session ends). Against the test process's own server (tests/support/postgres.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from sqlalchemy import text
from typer.testing import CliRunner

from airline_agent.domain.db import Database
from tests.conftest import tau2_files
from tests.support.chat_server import ChatServer
from tests.support.eval_roles import OracleAgent, ScriptedCustomer
from tests.support.eval_run import run_eval
from tests.support.mcp_servers import http_server
from tests.support.postgres import PASSWORD, PASSWORD_ROLE, PostgresServer

EMMA = "emma_kim_9957"
BAGS = {
    "reservation_id": "EHGLP3",
    "total_baggages": 1,
    "nonfree_baggages": 0,
    "payment_id": "credit_card_5832574",
}


def _databases(server: PostgresServer, prefix: str) -> set[str]:
    rows = server.sql(f"SELECT datname FROM pg_database WHERE datname LIKE '{prefix}%'")
    return {name for (name,) in rows}


# ---------------------------------------------------------------- eval


@pytest.fixture
def tasks_dir() -> Path:
    return tau2_files()[0].parent


@pytest.fixture
def agent(tasks_dir: Path) -> Iterator[ChatServer]:
    server = ChatServer(OracleAgent(tasks_dir / "tasks.json"))
    yield server
    server.close()


@pytest.fixture
def customer(tasks_dir: Path) -> Iterator[ChatServer]:
    server = ChatServer(ScriptedCustomer(tasks_dir / "tasks.json"))
    yield server
    server.close()


def test_eval_on_a_server_scores_as_on_files_from_one_import_and_leaves_nothing(
    agent, customer, tasks_dir: Path, postgres_server: PostgresServer, tmp_path: Path, monkeypatch
) -> None:
    """Cancel (14), book three (23), a flight change and cancel (7) and no action (0),
    two at a time: reward 1 each, db.json imported once (the rest are TEMPLATE copies of
    it), every scenario replays on SQLite, and no database of the run is left."""
    from airline_agent.domain import postgres, tau2

    imports: list[object] = []
    copies: list[tuple[str, str]] = []
    real_import, real_copy = tau2.import_tau2, postgres.Server.copy

    def import_tau2(*arguments: object, **options: object) -> object:
        imports.append(arguments)
        return real_import(*arguments, **options)

    monkeypatch.setattr(tau2, "import_tau2", import_tau2)

    def copy(self: postgres.Server, source: str, target: str) -> None:
        copies.append((source, target))
        real_copy(self, source, target)

    monkeypatch.setattr(postgres.Server, "copy", copy)
    prefix = postgres_server.new_name("evalrun")
    url = postgres_server.url(prefix, role=PASSWORD_ROLE, password=PASSWORD)
    run = run_eval(
        agent,
        customer,
        tmp_path / "run",
        *("--task-ids", "0,7,14,23", "--concurrency", "2", "--db", url),
        tasks=tasks_dir,
    )
    assert run.exit_code == 0, run.stderr
    results = run.results
    assert [t["reward"] for t in results["trials"]] == [1.0] * 4, results["trials"]
    assert all(t["db_match"] and t["db_diff"] == [] for t in results["trials"])
    shown = results["settings"]["db"]  # where the trials ran, without the password
    assert shown.startswith(f"postgresql+psycopg://{PASSWORD_ROLE}:***@/{prefix}?host=")
    assert PASSWORD not in (run.out / "results.json").read_text()
    assert len(imports) == 1
    templates = {source for source, _ in copies}
    assert len(templates) == 1 and templates.pop().endswith("_template")
    # the pristine state's twin, three reference end states (task 0 has no action), 4 trials
    assert len(copies) == 1 + 3 + 4
    assert _databases(postgres_server, prefix) == set()
    from airline_agent.cli import build_app

    replayed = CliRunner().invoke(build_app(), ["replay", str(run.out / "scenarios"), "--json"])
    assert replayed.exit_code == 0, replayed.stdout
    assert json.loads(replayed.stdout)["passed"] == 4


def test_eval_on_a_server_that_is_not_there_is_one_line(
    agent, customer, tasks_dir: Path, tmp_path: Path
) -> None:
    url = f"postgresql://airline@/evalrun?host={tmp_path}"  # no server has a socket there
    run = run_eval(
        agent, customer, tmp_path / "run", "--task-ids", "0", "--db", url, tasks=tasks_dir
    )
    assert run.exit_code == 1
    assert "cannot reach the PostgreSQL server" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_eval_db_takes_only_a_postgresql_url(agent, customer, tasks_dir, tmp_path) -> None:
    run = run_eval(
        agent, customer, tmp_path / "run", "--db", str(tmp_path / "x.db"), tasks=tasks_dir
    )
    assert run.exit_code == 2
    assert "eval makes its databases on a PostgreSQL server" in run.stderr


def test_a_trial_whose_database_cannot_be_made_is_an_infrastructure_error(
    agent, customer, tasks_dir: Path, postgres_server: PostgresServer, tmp_path, monkeypatch
) -> None:
    """The server refuses a trial's copy (here: it is made to): that trial is an
    infrastructure error with the one line, --resume's to run again; the others run."""
    from airline_agent.domain import postgres
    from airline_agent.domain.errors import DatabaseUnavailable

    real_copy = postgres.Server.copy

    def copy(self: postgres.Server, source: str, target: str) -> None:
        if "task_14_trial_0" in target:
            raise DatabaseUnavailable("the server refused (too many connections)")
        real_copy(self, source, target)

    monkeypatch.setattr(postgres.Server, "copy", copy)
    prefix = postgres_server.new_name("evalrun")
    run = run_eval(
        agent,
        customer,
        tmp_path / "run",
        *("--task-ids", "0,14", "--db", postgres_server.url(prefix)),
        tasks=tasks_dir,
    )
    assert run.exit_code == 1, run.stderr  # an infrastructure error
    trials = run.trials()
    assert trials[("0", 0)]["reward"] == 1.0
    failed = trials[("14", 0)]
    assert failed["infra_error"] and failed["termination"] == "infrastructure_error"
    assert failed["error"] == "the trial's database: the server refused (too many connections)"
    assert _databases(postgres_server, prefix) == set()


# ---------------------------------------------------------------- mcp


def _bags(url: str) -> int:
    database = Database.open(url)
    try:
        with database.read() as session:
            value = session.execute(
                text("SELECT total_baggages FROM reservation WHERE reservation_id = 'EHGLP3'")
            ).scalar()
    finally:
        database.close()
    assert isinstance(value, int)
    return value


async def test_mcp_sessions_on_a_server_get_template_copies_dropped_at_the_end(
    world_db: Database, postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = world_db.engine.url.render_as_string(hide_password=False)
    name = world_db.engine.url.database or ""
    world_db.close()  # the server copies it into a template at start: nobody else may be on it then
    before = _databases(postgres_server, name)
    from tests.integration.test_mcp_server import answering, payload

    with http_server(url, cwd=tmp_path) as server:
        async with (
            Client(server.url, elicitation_callback=answering("accept")) as first,
            Client(server.url) as second,
        ):
            await first.call_tool("get_user_details", {"user_id": EMMA})
            wrote = await first.call_tool("update_reservation_baggages", BAGS)
            seen = await second.call_tool("get_reservation_details", {"reservation_id": "EHGLP3"})
            during = _databases(postgres_server, name) - before
            assert payload(wrote)["total_baggages"] == 1
            assert payload(seen)["total_baggages"] == 0  # the other session's own copy
    assert any(n.endswith("_template") for n in during), during
    assert sum(n.endswith(("_session_1", "_session_2")) for n in during) == 2, during
    assert _bags(url) == 0  # the served database is untouched
    assert _databases(postgres_server, name) == before, server.log  # copies, template dropped


def test_mcp_on_a_server_database_in_use_elsewhere_says_so_in_one_line(
    world_db: Database, tmp_path: Path
) -> None:
    from tests.support.cli import run_cli

    url = world_db.engine.url.render_as_string(hide_password=False)
    with world_db.engine.connect():  # another session on the database
        result = run_cli("mcp", "--db", url, "--http", "127.0.0.1:0", timeout=60)
    assert result.returncode == 1, result.stderr
    assert "cannot be copied while other sessions are connected" in result.stderr
    assert "--shared" in result.stderr and "Traceback" not in result.stderr


@pytest.fixture
def dialect() -> str:
    return "postgres"


@pytest.fixture(autouse=True)
def _on_postgres(request: pytest.FixtureRequest) -> None:
    """Every test here asks for the server (a skip, saying why, where none can start)."""
    request.getfixturevalue("postgres_server")


# ---------------------------------------------------------------- serve


async def test_serve_gives_each_tab_a_template_copy_dropped_with_its_tab(
    world_db: Database, postgres_server: PostgresServer
) -> None:
    import aiohttp

    from tests.support.serve import ServeProcess, process_environment, wait_until

    url = world_db.engine.url.render_as_string(hide_password=False)
    name = world_db.engine.url.database or ""
    world_db.close()  # serve copies it into a template at start: nobody else may be on it then
    before = _databases(postgres_server, name)
    server = ServeProcess("--db", url, model="gpt-4o-mini", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    try:
        assert f"live: each tab on its own copy of postgresql+psycopg://airline@/{name}" in (
            server.output
        )
        ws = server.url.replace("http://", "ws://") + "ws?width=120&height=40"
        async with aiohttp.ClientSession() as session:
            tabs = [await session.ws_connect(ws), await session.ws_connect(ws)]
            apps = server.wait_for_apps(lambda apps: len(apps) == 2, what="two apps")
            copies = {process_environment(pid)["AIRLINE_AGENT_DB"] for pid in apps}
            names = {copy.rsplit("/", 1)[-1].split("?")[0] for copy in copies}
            assert len(names) == 2 and name not in names
            assert names <= _databases(postgres_server, name)  # they exist, on the server
            assert all(n.endswith(("_tab_1", "_tab_2")) for n in names), names
            for tab in tabs:
                await tab.close()
            server.wait_for_apps(lambda apps: not apps, what="none left")
        wait_until(
            lambda: not names & _databases(postgres_server, name), "both tabs' copies dropped"
        )
    finally:
        code = server.stop()
    assert code == 0, server.output
    assert _databases(postgres_server, name) == before  # the template too
    assert "Traceback" not in server.output


# ---------------------------------------------------------------- the TUI, live


async def test_the_tui_live_on_a_server_writes_there_and_shows_the_change(
    chat_server: ChatServer, postgres_server: PostgresServer
) -> None:
    """A live TUI session (Pilot) on a database on the server: the model's cancellation
    runs there, the trace shows the tool and its row changes, the server has it."""
    from airline_agent.config import Settings
    from airline_agent.domain.provisioning import build_database
    from airline_agent.tui.app import AirlineApp
    from airline_agent.tui.controller import AgentController
    from airline_agent.tui.widgets.chat_pane import ChatPane
    from airline_agent.tui.widgets.trace_pane import TracePane
    from tests.support.postgres_fixtures import discard_later
    from tests.tui.helpers import wait_until

    template = postgres_server.template("sample", lambda url: build_database(url).close())
    url = postgres_server.copy_of(template)
    chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
    chat_server.stream(content="Your reservation EHGLP3 is cancelled.")
    settings = Settings(
        model="test-model", base_url=chat_server.url, api_key="sk-test", approve="auto", db=url
    )
    controller = AgentController(settings.with_overrides(guard=False))
    controller.feed.act_for(EMMA)
    app = AirlineApp(controller, pace=0)
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
            chat = app.main.query_one(ChatPane)
            chat.input.focus()
            chat.input.value = "Please cancel EHGLP3."
            await pilot.press("enter")
            trace = app.main.query_one(TracePane)
            await wait_until(
                pilot, lambda: any(e.title == "tool cancel_reservation" for e in trace.entries), 60
            )
            await wait_until(pilot, lambda: not app.main.turn_running, 60)
            tool = next(e for e in trace.entries if e.title == "tool cancel_reservation")
            assert not tool.error and tool.details["changes"]
        database = Database.open(url)
        try:
            with database.read() as session:
                status = text("SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'")
                assert session.execute(status).scalar() == "cancelled"
        finally:
            database.close()
    finally:
        discard_later(postgres_server, url)
