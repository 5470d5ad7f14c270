"""Eval part: `airline-agent eval` on the τ² tasks with instant scripted models (the
oracle agent and the scripted customer of tests/support/eval_roles.py, on loopback
servers), beside the same conversations through `replay` (its scenario files) in the
same run. Both are the real commands in a child process, start-up included.

Target: 50 tasks × 4 trials at --concurrency 4 in under 30 s."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Row, timing

ROOT = Path(__file__).resolve().parents[2]
TARGET_S = 30.0


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


def run(quick: bool) -> list[Row]:
    sys.path.insert(0, str(ROOT))
    from airline_agent.scenarios import datasets
    from tests.support.chat_server import ChatServer
    from tests.support.eval_roles import OracleAgent, ScriptedCustomer

    tau2 = datasets.tau2_dir()
    if not (tau2 / "tasks.json").is_file():
        print(f"eval: skipped (no τ² tasks in {tau2})", file=sys.stderr)
        return []
    trials = 1 if quick else 4
    agent = ChatServer(OracleAgent(tau2 / "tasks.json"))
    customer = ChatServer(ScriptedCustomer(tau2 / "tasks.json"))
    rows: list[Row] = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-eval-") as scratch:
            out = Path(scratch) / "run"
            seconds = _command(
                "eval",
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
    finally:
        agent.close()
        customer.close()
    count = 50 * trials
    rows.append(
        Row(
            "eval",
            f"50 tasks × {trials} trials, --concurrency 4",
            timing([seconds * 1000]),
            f"replay of its {count} scenarios",
            timing([replay_s * 1000]),
            f"< {TARGET_S:g} s" if trials == 4 else "",
            seconds < TARGET_S if trials == 4 else None,
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
