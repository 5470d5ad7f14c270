"""No secret in any file an eval run writes (issue 30): a model server that fails with a
body echoing the API key leaves `[redacted]` in every file of the run folder — results,
summary, τ²'s results, run.json, the scenarios and every trial record — whichever of the
two servers (the agent's, the customer's) failed. The real command, loopback servers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import tau2_files
from tests.support.chat_server import ChatServer, Reply
from tests.support.cli import invoke_cli
from tests.support.eval_roles import OracleAgent, ScriptedCustomer
from tests.support.eval_run import eval_arguments

KEY = "sk-eval-secret-0123456789abcdef"


def _echoing_the_key(body: dict) -> Reply:
    """A server that fails, saying the key back (as a misconfigured proxy does)."""
    said = {"error": {"message": f"boom {KEY}", "type": "server_error", "code": None}}
    return Reply(500, json.dumps(said).encode(), headers={"retry-after": "0"})


@pytest.fixture
def tasks_dir() -> Path:
    db, _ = tau2_files()
    return db.parent


@pytest.fixture
def failing() -> Iterator[ChatServer]:
    server = ChatServer(_echoing_the_key)
    yield server
    server.close()


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


def _files_holding(folder: Path, text: str) -> list[str]:
    return sorted(
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file() and text in path.read_text(encoding="utf-8", errors="replace")
    )


@pytest.mark.parametrize("who_fails", ["agent", "customer"])
def test_a_server_echoing_the_key_leaves_it_in_no_file_of_the_run(
    who_fails, failing, agent, customer, tasks_dir, tmp_path
) -> None:
    out = tmp_path / "run"
    servers = (failing, customer) if who_fails == "agent" else (agent, failing)
    arguments = eval_arguments(*servers, out, "--task-ids", "1", tasks=tasks_dir)
    result = invoke_cli(*arguments, model=None, OPENAI_API_KEY=KEY)
    assert result.returncode == 1, result.stderr  # an infrastructure error
    assert KEY not in result.stdout + result.stderr
    trial = json.loads((out / "trials" / "task-1-trial-0.json").read_text())
    assert trial["record"]["infra_error"] and "[redacted]" in trial["record"]["error"]
    assert "[redacted]" in trial["simulation"]["info"]["airline_agent"]["error"]
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert {"results.json", "summary.md", "tau2_results.json", "run.json"} <= set(written)
    assert _files_holding(out, KEY) == []
    assert _files_holding(out, "0123456789abcdef") == []  # no part of it either
