"""Running `airline-agent eval` in tests: the real command (the typer app, in this
process, or a child process where a signal is sent), its two models served by loopback
Chat Completions servers playing scripted roles (tests/support/eval_roles.py).

`like` is passed as `--like`: "ours" (this project's agent and customer, what the tests
written before `--like` test) unless a test asks for "tau2" (as τ²-bench's runner runs)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.support.chat_server import ChatServer


@dataclass
class EvalResult:
    exit_code: int
    stdout: str
    stderr: str
    out: Path

    @property
    def results(self) -> dict[str, Any]:
        return json.loads((self.out / "results.json").read_text())

    @property
    def tau2(self) -> dict[str, Any]:
        return json.loads((self.out / "tau2_results.json").read_text())

    def trials(self) -> dict[tuple[str, int], dict[str, Any]]:
        return {(t["task_id"], t["trial"]): t for t in self.results["trials"]}


def eval_arguments(
    agent: ChatServer | str,
    customer: ChatServer | str,
    out: Path,
    *extra: str,
    tasks: Path,
    agent_model: str = "oracle",
    like: str = "ours",
) -> list[str]:
    agent_url = agent if isinstance(agent, str) else agent.url
    customer_url = customer if isinstance(customer, str) else customer.url
    return [
        "eval",
        "--tasks",
        str(tasks),
        "--agent-model",
        agent_model,
        "--agent-base-url",
        agent_url,
        "--user-model",
        "customer",
        "--user-base-url",
        customer_url,
        "--out",
        str(out),
        "--like",
        like,
        *extra,
    ]


def run_eval(
    agent: ChatServer | str,
    customer: ChatServer | str,
    out: Path,
    *extra: str,
    tasks: Path,
    agent_model: str = "oracle",
    like: str = "ours",
) -> EvalResult:
    from airline_agent.cli import build_app

    arguments = eval_arguments(
        agent, customer, out, *extra, tasks=tasks, agent_model=agent_model, like=like
    )
    result = CliRunner().invoke(build_app(), arguments, catch_exceptions=False)
    return EvalResult(result.exit_code, result.stdout, result.stderr, out)
