"""Replay part: the shipped library and the 50 τ² reference runs, against the same tool
calls made directly through `Toolbox.call` (no loop, no runner) in the same run."""

from __future__ import annotations

import json
import time

from benchmarks.common import Row, measure, timing

TARGET_MS = 5000.0


def _library_once() -> None:
    from airline_agent.scenarios.library import library_dir
    from airline_agent.scenarios.loader import load_library
    from airline_agent.scenarios.runner import replay_scenario

    for scenario in load_library(library_dir()):
        replay_scenario(scenario)  # type: ignore[arg-type]


def _direct_calls(dataset: str, calls_by_run: list[list[tuple[str, object]]], guard: bool) -> None:
    """Baseline: each run's calls straight through Toolbox.call on a fresh copy."""
    from airline_agent.domain.clock import Clock
    from airline_agent.domain.db import Database
    from airline_agent.scenarios import datasets
    from airline_agent.tools.conversation import ToolConversation
    from airline_agent.tools.toolbox import Toolbox

    for calls in calls_by_run:
        copy, _ = datasets.fresh_copy(dataset, "baseline")  # type: ignore[arg-type]
        database = Database.open(copy)
        toolbox = Toolbox(database, clock=Clock.at(), guard=guard)
        conversation = ToolConversation()
        for name, arguments in calls:
            toolbox.call(name, arguments, conversation)  # type: ignore[arg-type]
        database.close()
        datasets.discard(copy)


def run(quick: bool) -> list[Row]:
    from airline_agent.scenarios import datasets
    from airline_agent.scenarios.library import library_dir
    from airline_agent.scenarios.loader import load_library
    from airline_agent.scenarios.runner import replay_tau2

    runs = 3 if quick else 7
    rows: list[Row] = []
    # The first replay in a process builds the sample: measured on its own, cold.
    started = time.perf_counter()
    _library_once()
    cold = timing([(time.perf_counter() - started) * 1000])
    library = [s for s in load_library(library_dir()) if hasattr(s, "turns")]
    calls = [
        [(c.name, c.arguments) for t in s.turns for r in t.responses for c in r.tool_calls]
        for s in library
    ]
    warm = measure(_library_once, runs=runs, warmup=1)
    base = measure(lambda: _direct_calls("sample", calls, True), runs=runs, warmup=1)
    rows.append(
        Row(
            "replay",
            f"library ({len(library)} scenarios), incl. build",
            cold,
            target="< 5 s",
            met=cold.median_ms < TARGET_MS,
        )
    )
    rows.append(
        Row(
            "replay",
            f"library ({len(library)} scenarios), warm",
            warm,
            "Toolbox.call direct",
            base,
            "< 5 s",
            warm.median_ms < TARGET_MS,
        )
    )
    tau2 = datasets.tau2_dir()
    if (tau2 / "tasks.json").is_file():
        tasks = json.loads((tau2 / "tasks.json").read_text())
        actions = [
            [
                (a["name"], a.get("arguments") or {})
                for a in (t["evaluation_criteria"]["actions"] or [])
            ]
            for t in tasks
        ]
        started = time.perf_counter()
        replay_tau2(tau2)
        cold = timing([(time.perf_counter() - started) * 1000])
        ours = measure(lambda: replay_tau2(tau2), runs=runs, warmup=0)
        base = measure(lambda: _direct_calls("tau2", actions, False), runs=runs, warmup=0)
        rows.append(
            Row(
                "replay",
                "τ² 50 reference runs, incl. import",
                cold,
                target="< 5 s",
                met=cold.median_ms < TARGET_MS,
            )
        )
        rows.append(
            Row(
                "replay",
                "τ² 50 reference runs, warm",
                ours,
                "Toolbox.call direct",
                base,
                "< 5 s",
                ours.median_ms < TARGET_MS,
            )
        )
    return rows
