"""`airline-agent eval --api responses`: the agent under test on a loopback Responses API
server (the oracle agent of tests/support/eval_roles.py, its answers as `response`
objects), the simulated customer on Chat Completions; the oracle scores 1, the run
records the agent's wire, and every trial's scenario replays on both wires."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from airline_agent.agent import responses_wire
from airline_agent.cli import build_app
from tests.conftest import tau2_files
from tests.support.chat_server import ChatServer, Reply
from tests.support.eval_roles import OracleAgent, ScriptedCustomer
from tests.support.eval_run import run_eval
from tests.support.responses_server import ResponsesServer, response_object

TASKS = ("0", "3", "12", "14", "39")  # no action, cancel, calculate + bags, book, 2 turns


class ResponsesOracle:
    """The oracle agent on the Responses wire: reads the Responses body as the history it
    carries, and answers what the oracle would, as a `response` object."""

    def __init__(self, oracle: OracleAgent) -> None:
        self.oracle = oracle
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        self.bodies.append(body)
        assert "messages" not in body, "the agent spoke Chat Completions"
        assert responses_wire.problems(body["input"]) == [], "an invalid Responses input"
        chat = {"model": body["model"], "messages": responses_wire.history_of(body)}
        answer = json.loads(self.oracle(chat).body)["choices"][0]["message"]
        calls = [
            (call["function"]["name"], json.loads(call["function"]["arguments"]), call["id"])
            for call in answer.get("tool_calls") or ()
        ]
        made = response_object(answer.get("content"), calls, model=body["model"], usage=(300, 20))
        return Reply(200, json.dumps(made).encode())


@pytest.fixture
def tasks_dir() -> Path:
    db, _ = tau2_files()
    return db.parent


@pytest.fixture
def agent(tasks_dir: Path) -> Iterator[ResponsesServer]:
    server = ResponsesServer(ResponsesOracle(OracleAgent(tasks_dir / "tasks.json")))
    yield server
    server.close()


@pytest.fixture
def customer(tasks_dir: Path) -> Iterator[ChatServer]:
    server = ChatServer(ScriptedCustomer(tasks_dir / "tasks.json"))
    yield server
    server.close()


def test_the_oracle_on_the_responses_wire_scores_1(agent, customer, tasks_dir, tmp_path) -> None:
    run = run_eval(
        agent,
        customer,
        tmp_path / "run",
        "--task-ids",
        ",".join(TASKS),
        "--api",
        "responses",
        tasks=tasks_dir,
    )
    assert run.exit_code == 0, run.stderr
    results = run.results
    assert results["pass_hat_k"] == {"1": 1.0} and results["average_reward"] == 1.0
    assert set(agent.paths) == {"/v1/responses"}  # the agent on the Responses API
    assert set(customer.paths) == {"/v1/chat/completions"}  # the customer on Chat's
    settings = json.loads((run.out / "run.json").read_text())["settings"]
    assert settings["api"] == "responses"
    for api in ("chat", "responses"):
        replayed = CliRunner().invoke(
            build_app(),
            ["replay", str(run.out / "scenarios"), "--json", "--api", api],
        )
        report = json.loads(replayed.stdout)
        assert replayed.exit_code == 0, (api, report)
        assert report["passed"] == len(TASKS)
