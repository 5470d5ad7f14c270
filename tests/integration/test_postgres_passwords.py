"""A PostgreSQL password is shown by no command (issue 30), in whatever place of the URL
it is given: the login (as typed, or percent-encoded with `/`, `?`, `#`, `@` in it), the
query's `?password=` (its name percent-encoded too), under `postgresql://`, `postgres://`
and `postgresql+psycopg://`. Every command that takes `--db`, run as the user runs it
(typer's runner), against the test process's real server refusing a wrong password, and
with a URL that cannot be parsed (a port that is not a number); eval's files too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from tests.conftest import tau2_files
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli
from tests.support.eval_roles import OracleAgent, ScriptedCustomer
from tests.support.eval_run import run_eval
from tests.support.postgres import PASSWORD, PASSWORD_ROLE, PostgresServer

WRONG = "not-the-right-horse"
ODD = "n0t/r1ght?h#rse@b4ttery"  # percent-encoded in the URL
SECRETS = (WRONG, ODD, quote(ODD, safe=""), quote_plus(ODD), "b4ttery", "h#rse", "r1ght")


def _forms(server: PostgresServer, database: str) -> dict[str, str]:
    socket = server.socket_dir
    return {
        "login": f"postgresql://{PASSWORD_ROLE}:{WRONG}@/{database}?host={socket}",
        "login encoded": (
            f"postgresql+psycopg://{PASSWORD_ROLE}:{quote(ODD, safe='')}@/{database}?host={socket}"
        ),
        "query": f"postgresql://{PASSWORD_ROLE}@/{database}?host={socket}&password={WRONG}",
        "query, name encoded": (
            f"postgres://{PASSWORD_ROLE}@/{database}?host={socket}&pass%77ord={quote_plus(ODD)}"
        ),
    }


UNPARSEABLE = {
    "login, bad port": "postgresql://alice:S3cretpw@127.0.0.1:notaport/airline",
    "query, bad port": "postgresql://alice@127.0.0.1:notaport/airline?password=S3cretpw",
    "an @ unencoded": "postgresql://alice:S3c@retpw@127.0.0.1:5432/airline",
}


def _commands(url: str, tmp_path: Path, tasks: Path, model_server: str) -> dict[str, list[str]]:
    return {
        "call": ["call", "get_user_details", '{"user_id": "emma_kim_9957"}', "--db", url],
        "export": ["export", "--db", url],
        "seed": ["seed", "--db", url],
        "mcp": ["mcp", "--db", url],
        "chat": ["chat", "--db", url, "--model", "m", "--base-url", model_server],
        "serve": ["serve", "--db", url, "--model", "m", "--base-url", model_server],
        "eval": [
            *("eval", "--tasks", str(tasks), "--task-ids", "0", "--out", str(tmp_path / "run")),
            *("--agent-model", "m", "--agent-base-url", model_server, "--db", url),
        ],
    }


COMMANDS = ("call", "export", "seed", "mcp", "chat", "serve", "eval")


@pytest.fixture
def tasks_dir() -> Path:
    return tau2_files()[0].parent


@pytest.fixture
def model_server() -> Iterator[str]:
    server = ChatServer()  # never asked: the database fails first
    yield server.url
    server.close()


def _shown(result, out: Path) -> str:
    written = "".join(path.read_text(errors="replace") for path in out.rglob("*") if path.is_file())
    return result.stdout + result.stderr + written


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("form", ["login", "login encoded", "query", "query, name encoded"])
def test_a_refused_password_is_shown_by_no_command(
    command, form, postgres_server: PostgresServer, tasks_dir, model_server, tmp_path
) -> None:
    url = _forms(postgres_server, "postgres")[form]
    arguments = _commands(url, tmp_path, tasks_dir, model_server)[command]
    result = invoke_cli(*arguments)
    assert result.returncode in (1, 2), result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "refused the login" in result.stderr and "***" in result.stderr, result.stderr
    shown = _shown(result, tmp_path)
    assert [secret for secret in SECRETS if secret in shown] == []


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("form", list(UNPARSEABLE))
def test_a_url_that_cannot_be_used_is_one_line_without_its_password(
    command, form, tasks_dir, model_server, tmp_path
) -> None:
    url = UNPARSEABLE[form]
    result = invoke_cli(*_commands(url, tmp_path, tasks_dir, model_server)[command])
    assert result.returncode in (1, 2), result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "airline" in line]
    assert len(errors) == 1 and "***" in errors[0], result.stderr
    assert "not a number" in errors[0] or "%40" in errors[0]
    assert "S3c" not in _shown(result, tmp_path) and "retpw" not in _shown(result, tmp_path)


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


def test_eval_s_files_hold_no_password_given_in_the_query(
    agent, customer, tasks_dir, postgres_server: PostgresServer, tmp_path
) -> None:
    """results.json's and run.json's `settings.db` say where the trials ran, the
    `?password=` masked; no file of the run holds the password."""
    prefix = postgres_server.new_name("evalpw")
    socket = postgres_server.socket_dir
    url = f"postgresql://{PASSWORD_ROLE}@/{prefix}?host={socket}&password={PASSWORD}"
    chosen = ("--task-ids", "0", "--db", url)
    run = run_eval(agent, customer, tmp_path / "run", *chosen, tasks=tasks_dir)
    assert run.exit_code == 0, run.stderr
    expected = f"postgresql://{PASSWORD_ROLE}@/{prefix}?host={socket}&password=***"
    assert run.results["settings"]["db"] == expected
    assert json.loads((run.out / "run.json").read_text())["settings"]["db"] == expected
    assert [t["reward"] for t in run.results["trials"]] == [1.0]
    assert PASSWORD not in _shown_run(run)


def _shown_run(run) -> str:
    files = "".join(p.read_text() for p in run.out.rglob("*") if p.is_file())
    return run.stdout + run.stderr + files


def test_replay_s_output_database_is_no_url(tmp_path, monkeypatch) -> None:
    """`replay --stop-at N --db OUT` writes a new SQLite file: a URL given there is
    refused in one line that shows no password (it was taken for a path: a folder
    `postgresql:` made, the password printed as its name)."""
    monkeypatch.chdir(tmp_path)
    scenario = next(Path(__file__).parents[2].glob("data/scenarios/*.yaml"))
    url = "postgresql://alice:S3cretpw@db.example/airline?password=S3cretpw"
    result = invoke_cli("replay", str(scenario), "--stop-at", "1", "--db", url)
    assert result.returncode == 2
    assert "S3cret" not in result.stdout + result.stderr
    assert "not a URL" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
