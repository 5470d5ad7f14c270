"""Ctrl-C stops `airline-agent eval` cleanly: a real SIGINT to the command in a child
process keeps every finished trial (its record and scenario on disk, results.json
written, marked incomplete), exits 130, and `--resume` finishes the rest.

The signal arrives while a trial is certainly in flight, on any machine: the agent's model
holds its first answer of the second trial until the test releases it (trials run one at a
time, and a trial's files are written before the next one starts)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import tau2_files
from tests.support.chat_server import ChatServer
from tests.support.cli import cli_env
from tests.support.eval_roles import OracleAgent, ScriptedCustomer
from tests.support.eval_run import eval_arguments, run_eval

TASKS = "1,3,4,7,12,24"


def _wait_for(predicate, deadline_s: float) -> bool:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_ctrl_c_keeps_the_finished_trials_and_resume_finishes(tmp_path: Path) -> None:
    db, tasks_json = tau2_files()
    oracle = OracleAgent(tasks_json, hold_task=2)
    agent = ChatServer(oracle)
    customer = ChatServer(ScriptedCustomer(tasks_json))
    out = tmp_path / "run"
    chosen = ("--task-ids", TASKS, "--concurrency", "1")
    try:
        arguments = eval_arguments(agent, customer, out, *chosen, tasks=db.parent)
        child = subprocess.Popen(
            [sys.executable, "-m", "airline_agent", *arguments],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(model=None),
        )
        in_flight = lambda: oracle.holding.is_set() or child.poll() is not None  # noqa: E731
        assert _wait_for(in_flight, 180) and child.poll() is None, child.communicate(timeout=60)
        assert len(list((out / "trials").glob("*.json"))) == 1  # the first trial, kept
        child.send_signal(signal.SIGINT)
        _, stderr = child.communicate(timeout=120)
        assert child.returncode == 130, stderr
        assert "interrupted; the finished trials are kept" in stderr
        assert "Traceback" not in stderr
        results = json.loads((out / "results.json").read_text())
        kept = {(t["task_id"], t["trial"]): t["started_at"] for t in results["trials"]}
        assert len(kept) == 1 and results["complete"] is False
        assert len(list((out / "trials").glob("*.json"))) == len(kept)
        assert not list(out.rglob(".*.writing-*"))  # no half-written file left behind
        oracle.hold_task = None
        agent.release()  # the held answer goes to a client that is gone
        resumed = run_eval(agent, customer, out, *chosen, "--resume", tasks=db.parent)
        assert resumed.exit_code == 0, resumed.stderr
        trials = resumed.trials()
        assert len(trials) == 6 and resumed.results["complete"] is True
        assert {key: trials[key]["started_at"] for key in kept} == kept
        assert all(trial["reward"] == 1.0 for trial in trials.values())
    finally:
        agent.close()
        customer.close()
