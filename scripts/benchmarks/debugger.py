"""The debugger part: what forks and kept steps cost, beside what the other design would.

A fork's database is a deterministic replay (agent/debugger.py): the database is copied
once before the conversation's first write, and a fork copies that and runs the writes
up to its step again. The other design the issue names, a copy of the database at
each write (SQLite's backup API), is the baseline: its cost per write is one backup.

- fork at the last step of the 200-turn scenario (the TUI part's bench-200: a lookup and
  a reply per turn, 1,200 steps, no write): a copy of the database as it is, opened.
- fork at the last step of a 200-turn scenario with a write per turn (a $10 certificate
  for Emma Kim, guard off): the start copied, 200 writes run again and checked.
- per write: what replaying one write adds to a fork, from those two; beside one backup
  of the sample database (what a copy at each write would cost, each time, on disk too).
- the loop with a debugger attached and no breakpoint, beside the loop without one
  (instant backend, per request, interleaved): what keeping every step costs.

Memory and disk per kept step are printed below the table: the checkpoints (the
timeline), the branch's record of events, and the files.
"""

from __future__ import annotations

import asyncio
import gc
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from benchmarks.common import Row, Timing, timing

PART = "debugger"
TURNS = 200
ROOT = Path(__file__).resolve().parents[2]


def _writes_scenario(turns: int) -> str:
    import yaml

    scenario = {
        "name": "bench-200-writes",
        "description": "Generated: a $10 certificate for Emma Kim, turn after turn.",
        "dataset": "sample",
        "customer": "emma_kim_9957",
        "settings": {"approval": "auto", "guard": False, "model": "gpt-4o-mini"},
        "turns": [
            {
                "customer": f"Turn {turn}: another certificate, please.",
                "responses": [
                    {
                        "tool_calls": [
                            {
                                "name": "send_certificate",
                                "arguments": {"user_id": "emma_kim_9957", "amount": 10},
                            }
                        ],
                    },
                    {"content": "Done: a $10 certificate is on your profile."},
                ],
            }
            for turn in range(1, turns + 1)
        ],
    }
    return yaml.safe_dump(scenario, sort_keys=False)


def _scenario(text: str, folder: Path, name: str) -> Any:
    from airline_agent.scenarios.loader import load_scenario

    path = folder / f"{name}.yaml"
    path.write_text(text)
    return load_scenario(path)


async def _play(scenario: Any, *, debug: bool) -> Any:
    from airline_agent.scenarios import datasets
    from airline_agent.scenarios.runner import play_turns
    from airline_agent.stack import open_existing_database, scenario_stack

    copy, _ = datasets.fresh_copy(scenario.dataset, scenario.name)
    stack = scenario_stack(scenario, open_existing_database(copy), debug=debug)
    async for _ in play_turns(scenario, stack):
        pass
    return stack


def _close(stack: Any) -> None:
    from airline_agent.scenarios import datasets

    copy = stack.database.sqlite_file.path
    stack.close()
    datasets.discard(copy)


def _fork_times(stack: Any, runs: int) -> Timing:
    debugger = stack.debugger
    last = stack.session.conversation.timeline.last
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fork = debugger.fork(last, of=debugger.branch(1))
        samples.append((time.perf_counter() - start) * 1000)
        debugger.databases.discard(fork.toolbox)
        debugger.branches.remove(fork)
    return timing(samples)


def _backups(stack: Any, runs: int) -> tuple[Timing, int]:
    """One backup-API copy of the stack's database, as a copy at each write would take."""
    from airline_agent.domain.sqlite_files import copy_sqlite

    source = stack.database.sqlite_file.path
    samples, size = [], 0
    with tempfile.TemporaryDirectory() as folder:
        for index in range(runs):
            target = Path(folder) / f"copy-{index}.db"
            start = time.perf_counter()
            copy_sqlite(source, target)
            samples.append((time.perf_counter() - start) * 1000)
            size = target.stat().st_size
            target.unlink()
    return timing(samples), size


def _retained(scenario: Any, *, debug: bool) -> tuple[int, int, Any]:
    """Bytes the played conversation keeps (traced), the same once the debugger's branch
    dropped its record of events, and the stack (still open)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    stack = asyncio.run(_play(scenario, debug=debug))
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    if stack.debugger is not None:
        stack.debugger.current.events = []
        gc.collect()
    without_record = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return kept, without_record, stack


def _loop_rows(runs: int) -> list[Row]:
    """The loop part's instant-backend conversation, with and without a debugger."""
    from airline_agent.agent.backends import ScriptedBackend
    from airline_agent.agent.debugger import Debugger
    from airline_agent.agent.loop import AgentSession, LoopOptions
    from benchmarks import loop as bare_loop

    sessions = {}
    for debug in (False, True):
        backend = ScriptedBackend(model="gpt-4o-mini")
        session = AgentSession(
            backend,
            bare_loop.StubToolbox(),
            LoopOptions(stream=False),
            system_prompt=bare_loop.INSTRUCTIONS,
        )
        if debug:
            session.use_hooks(Debugger(session, databases=None))  # type: ignore[arg-type]
        sessions[debug] = (session, backend)
    responses = bare_loop._scripted_responses()
    samples: dict[bool, list[float]] = {False: [], True: []}

    async def measure() -> None:
        for index in range(runs + 3):
            for debug, (session, backend) in sessions.items():
                backend.load(responses)
                start = time.perf_counter()
                await bare_loop._ours_once(session)
                elapsed = (time.perf_counter() - start) * 1000 / bare_loop.REQUESTS_PER_RUN
                if index >= 3:
                    samples[debug].append(elapsed)

    asyncio.run(measure())
    with_debugger, without = timing(samples[True]), timing(samples[False])
    # No target: this is the debugger's own bookkeeping (a checkpoint per step, the
    # branch's record), paid only where a front end attached one; without a debugger the
    # loop's path is the one the loop part measures.
    return [
        Row(
            PART,
            "loop per request, debugger attached, no breakpoint",
            with_debugger,
            "no debugger",
            without,
        )
    ]


def run(quick: bool) -> list[Row]:
    sys.path.insert(0, str(ROOT))
    from benchmarks.tui import _scenario_text

    runs = 5 if quick else 15
    rows: list[Row] = []
    folder = Path(tempfile.mkdtemp(prefix="bench-debugger-"))
    try:
        reads = _scenario(_scenario_text(TURNS), folder, "bench-200")
        writes = _scenario(_writes_scenario(TURNS), folder, "bench-200-writes")

        stack = asyncio.run(_play(reads, debug=True))
        steps = stack.session.conversation.timeline.last
        backup, size = _backups(stack, runs)
        fork_reads = _fork_times(stack, runs)
        _close(stack)
        rows.append(
            Row(
                PART,
                f"fork at the last step, {TURNS} turns, no write ({steps} steps)",
                fork_reads,
                "one backup of the database",
                backup,
            )
        )

        stack = asyncio.run(_play(writes, debug=True))
        written = len(stack.session.conversation.timeline.writes)
        fork_writes = _fork_times(stack, runs)
        start_file = stack.debugger.start_database
        start_size = start_file.stat().st_size if start_file else 0
        _close(stack)
        rows.append(
            Row(
                PART,
                f"fork at the last step, {TURNS} turns, {written} writes",
                fork_writes,
                "one backup of the database",
                backup,
            )
        )
        per_write = (fork_writes.median_ms - fork_reads.median_ms) / max(written, 1)
        rows.append(
            Row(
                PART,
                "per write kept: replayed in a fork (ours) / copy",
                Timing(per_write, per_write, per_write, 1),
                "a backup at each write",
                backup,
            )
        )
        rows.extend(_loop_rows(runs=100 if quick else 600))

        # Memory per kept step: the same 200 turns played with and without a debugger.
        plain_bytes, _, plain = _retained(reads, debug=False)
        _close(plain)
        debug_bytes, without_record, debugged = _retained(reads, debug=True)
        steps = debugged.session.conversation.timeline.last
        _close(debugged)
        extra, record = debug_bytes - plain_bytes, debug_bytes - without_record
        print(f"memory per kept step ({TURNS} turns, {steps} steps, traced by tracemalloc):")
        print(
            f"  with the debugger, beyond the same conversation without it: {extra / steps:,.0f} B"
        )
        print(f"    of which the branch's record of events: {record / steps:,.0f} B")
        print(f"    and the checkpoints (the timeline): {(extra - record) / steps:,.0f} B")
        print("disk per kept step: 0 B (writes are replayed, not copied);")
        print(
            f"  once per conversation that writes: one copy of the database "
            f"({start_size / 1e6:.1f} MB at the sample scale), and one per fork;"
        )
        print(f"  a copy at each write would keep {size / 1e6:.1f} MB per write")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows
