"""eval's COMMUNICATE check, through the command (issue 30): only what the agent says to
the customer in its messages counts, as in τ²: the figure said by the customer, computed
by a tool, put in a call's arguments or in the model's reasoning is not told; said in a
message that also calls a tool, with its thousands separated by commas, it is. Loopback
servers: the scripted customer of eval_roles, an agent scripted here."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import tau2_files
from tests.support.chat_server import ChatServer, Reply, completion_body
from tests.support.eval_roles import DONE, ScriptedCustomer
from tests.support.eval_run import run_eval

INFO = "1628"


def _task_folder(tasks_dir: Path, folder: Path) -> Path:
    """τ²'s task 0 (no action), told to communicate 1628, whose customer says 1628."""
    task = json.loads((tasks_dir / "tasks.json").read_text())[0]
    task["user_scenario"]["instructions"]["known_info"] += f"\nYour budget is {INFO} dollars."
    task["evaluation_criteria"]["communicate_info"] = [INFO]
    folder.mkdir()
    (folder / "tasks.json").write_text(json.dumps([task]))
    (folder / "db.json").symlink_to(tasks_dir / "db.json")
    return folder


class Agent:
    """First a message with a `calculate` call (its content `first`, its reasoning
    naming the figure), then, after the result (the figure), `DONE` and `last`."""

    def __init__(self, first: str | None, last: str) -> None:
        self.first, self.last = first, last

    def __call__(self, body: dict[str, Any]) -> Reply:
        if not any(m["role"] == "tool" for m in body["messages"]):
            call = ("calculate", {"expression": f"{INFO} + 0"})
            reply = completion_body(self.first, [call], reasoning=f"The figure is {INFO}.")
        else:
            reply = completion_body(f"{DONE} {self.last}")
        return Reply(200, json.dumps(reply).encode())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    db, _ = tau2_files()
    return _task_folder(db.parent, tmp_path / "tasks")


@pytest.fixture
def customer(folder: Path) -> Iterator[ChatServer]:
    server = ChatServer(ScriptedCustomer(folder / "tasks.json"))
    yield server
    server.close()


@pytest.mark.parametrize(
    ("first", "last", "told"),
    [
        (None, "Anything else?", False),  # only the customer, the tool, the reasoning said it
        ("Let me work it out.", "That is all.", False),
        (f"It comes to $1,{INFO[1:]}; let me check.", "That is all.", True),  # with a call
        (None, f"Your budget is {INFO}.", True),
        (None, "Your budget is 1,6,2,8.", True),  # every comma goes
        (None, "Your budget is 1.628.", False),  # a point stays
    ],
)
def test_only_the_agent_s_messages_tell(customer, folder, tmp_path, first, last, told) -> None:
    agent = ChatServer(Agent(first, last))
    try:
        run = run_eval(agent, customer, tmp_path / "run", tasks=folder)
    finally:
        agent.close()
    assert run.exit_code == 0, run.stderr
    (trial,) = run.results["trials"]
    assert trial["termination"] == "customer_stop" and trial["db_match"] is True
    assert trial["communicate"] == {"expected": [INFO], "missing": [] if told else [INFO]}
    assert trial["reward"] == (1.0 if told else 0.0)
    (simulation,) = run.tau2["simulations"]
    assert simulation["reward_info"]["communicate_checks"][0]["met"] is told
    # the figure was in the customer's message and the tool's result in every case
    roles = {m["role"] for m in simulation["messages"] if INFO in (m.get("content") or "")}
    assert {"user", "tool"} <= roles
