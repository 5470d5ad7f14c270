"""Eval part: `airline-agent eval` on the τ² tasks with scripted models (the oracle agent
and the scripted customer of tests/support/eval_roles.py, on loopback servers). The real
commands in a child process, start-up included.

- Instant models: 50 tasks × 4 trials at --concurrency 4, beside the same conversations
  through `replay` (its scenario files) in the same run. Target: under 30 s.
- Models that take 0.1 s a request (a fixed latency on the loopback servers): τ²'s tasks
  0–15, one trial each, `--like tau2` at --concurrency 8, against the ideal: every request
  waited for and nothing else, 8 at a time (requests × latency / concurrency), and never
  less than the longest trial's requests one after another. Ours is the run's trials, from
  the first one's start to the last one's end (results.json); the whole command, with its
  start-up and the import of db.json, is said beside it. Target: within 2.5× the ideal.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.common import Row, timing

ROOT = Path(__file__).resolve().parents[2]
TARGET_S = 30.0
LATENCY_S = 0.1  # each request's wait at the loopback servers
LATENCY_TASKS = tuple(str(task) for task in range(16))
LATENCY_CONCURRENCY = 8
LATENCY_TARGET = 2.5  # × the ideal


def _command(*arguments: str) -> float:
    """Seconds the command took; raises if it failed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AIRLINE_AGENT_"))}
    if "AIRLINE_AGENT_TAU2_DIR" in os.environ:
        env["AIRLINE_AGENT_TAU2_DIR"] = os.environ["AIRLINE_AGENT_TAU2_DIR"]
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "airline_agent", *arguments],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{arguments[0]} failed ({done.returncode}): {done.stderr[-500:]}")
    return elapsed


class _Slow:
    """A scripted role that answers each request after a fixed latency."""

    def __init__(self, role: Any, latency: float) -> None:
        self.role, self.latency = role, latency

    def __call__(self, body: dict[str, Any]) -> Any:
        return dataclasses.replace(self.role(body), delay=self.latency)


def _trials_span(out: Path) -> float:
    """Seconds from the first trial's start to the last one's end (results.json)."""
    trials = json.loads((out / "results.json").read_text())["trials"]
    started = min(datetime.fromisoformat(t["started_at"]) for t in trials)
    ended = max(datetime.fromisoformat(t["ended_at"]) for t in trials)
    return (ended - started).total_seconds()


def _ideal(out: Path) -> tuple[float, int]:
    """The ideal seconds of the run at out, and its requests: each simulation's requests
    are its messages of either model (τ²'s greeting is no request)."""
    simulations = json.loads((out / "tau2_results.json").read_text())["simulations"]
    per_trial = [
        sum(m["role"] in ("user", "assistant") for m in s["messages"]) - 1 for s in simulations
    ]
    total = sum(per_trial)
    return max(total * LATENCY_S / LATENCY_CONCURRENCY, max(per_trial) * LATENCY_S), total


def _latency_rows(tau2: Path, repeats: int) -> list[Row]:
    from tests.support.chat_server import ChatServer
    from tests.support.eval_roles import OracleAgent, ScriptedCustomer

    spans, wholes, ideals = [], [], []
    requests = 0
    for _ in range(repeats):
        agent = ChatServer(_Slow(OracleAgent(tau2 / "tasks.json"), LATENCY_S))
        customer = ChatServer(_Slow(ScriptedCustomer(tau2 / "tasks.json"), LATENCY_S))
        try:
            with tempfile.TemporaryDirectory(prefix="bench-eval-latency-") as scratch:
                out = Path(scratch) / "run"
                wholes.append(
                    _command(
                        "eval",
                        "--like",
                        "tau2",
                        "--tasks",
                        str(tau2),
                        "--task-ids",
                        ",".join(LATENCY_TASKS),
                        "--concurrency",
                        str(LATENCY_CONCURRENCY),
                        "--agent-model",
                        "oracle",
                        "--agent-base-url",
                        agent.url,
                        "--user-model",
                        "customer",
                        "--user-base-url",
                        customer.url,
                        "--out",
                        str(out),
                    )
                )
                spans.append(_trials_span(out))
                ideal, requests = _ideal(out)
                ideals.append(ideal)
        finally:
            agent.close()
            customer.close()
    ideal_ms = timing([ideal * 1000 for ideal in ideals])
    ours = timing([span * 1000 for span in spans])
    measure = (
        f"{len(LATENCY_TASKS)} tasks, {requests} requests × {LATENCY_S:g} s, "
        f"--concurrency {LATENCY_CONCURRENCY}"
    )
    return [
        Row(
            "eval",
            f"like tau2: {measure}: its trials",
            ours,
            "ideal",
            ideal_ms,
            f"≤ {LATENCY_TARGET:g}× ideal",
            ours.median_ms <= LATENCY_TARGET * ideal_ms.median_ms,
        ),
        Row(
            "eval",
            "  the whole command (start-up, db.json import)",
            timing([whole * 1000 for whole in wholes]),
            "ideal",
            ideal_ms,
        ),
    ]


def run(quick: bool) -> list[Row]:
    sys.path.insert(0, str(ROOT))
    from airline_agent.scenarios import datasets
    from tests.support.chat_server import ChatServer
    from tests.support.eval_roles import OracleAgent, ScriptedCustomer

    tau2 = datasets.tau2_dir()
    if not (tau2 / "tasks.json").is_file():
        print(f"eval: skipped (no τ² tasks in {tau2})", file=sys.stderr)
        return []
    rows = _latency_rows(tau2, 1 if quick else 5)
    trials = 1 if quick else 4
    agent = ChatServer(OracleAgent(tau2 / "tasks.json"))
    customer = ChatServer(ScriptedCustomer(tau2 / "tasks.json"))
    try:
        with tempfile.TemporaryDirectory(prefix="bench-eval-") as scratch:
            out = Path(scratch) / "run"
            seconds = _command(
                "eval",
                "--like",
                "tau2",
                "--tasks",
                str(tau2),
                "--trials",
                str(trials),
                "--concurrency",
                "4",
                "--agent-model",
                "oracle",
                "--agent-base-url",
                agent.url,
                "--user-model",
                "customer",
                "--user-base-url",
                customer.url,
                "--out",
                str(out),
            )
            replay_s = _command("replay", str(out / "scenarios"))
            # What the run did, from its results (not what it was asked): every trial ran.
            done = json.loads((out / "results.json").read_text())["trials"]
    finally:
        agent.close()
        customer.close()
    count = len(done)
    tasks = len({trial["task_id"] for trial in done})
    rows.append(
        Row(
            "eval",
            f"{tasks} tasks × {trials} trials, --concurrency 4",
            timing([seconds * 1000]),
            f"replay of its {count} scenarios",
            timing([replay_s * 1000]),
            f"< {TARGET_S:g} s" if trials == 4 else "",
            seconds < TARGET_S and count == 50 * trials if trials == 4 else None,
        )
    )
    rows.append(
        Row(
            "eval",
            "per trial (whole run / trials)",
            timing([seconds * 1000 / count]),
            "replay per scenario",
            timing([replay_s * 1000 / count]),
        )
    )
    return rows
