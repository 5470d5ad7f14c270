"""Tool calls raced by separate processes against one database file.

Each racer is its own process (forked, so it starts in milliseconds) with its own
`Database` and `Toolbox`, as separate `airline-agent call`s or agents would be. They
open the database first, then wait at one barrier, so the calls themselves start
together; every wait has a generous deadline, never a fixed sleep.
"""

from __future__ import annotations

import multiprocessing
import queue
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Generous: a loaded two-core machine may take seconds to schedule a dozen processes.
DEADLINE_S = 120


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]
    guard: bool = True
    acting_user: str | None = None


@dataclass(frozen=True)
class Result:
    error: str | None
    result: Any


def _racer(path: str, call: Call, index: int, start: Any, results: Any) -> None:
    from airline_agent.domain.db import Database
    from tests.support.toolbox_fixtures import toolbox

    database = Database.open(path)
    try:
        tools = toolbox(database, guard=call.guard, acting_user=call.acting_user)
        start.wait(DEADLINE_S)
        outcome = tools.call(call.tool, call.arguments)
        results.put((index, outcome.error, outcome.result))
    except BaseException as exc:  # reported to the test, which fails with it
        results.put((index, "RACER_CRASHED", repr(exc)))
    finally:
        database.close()


def race(path: Path | str, calls: list[Call]) -> list[Result]:
    """Run every call in its own process, all released at once; results in call order.

    The caller must hold no open connection to `path` (a SQLite connection must not
    cross a fork)."""
    context = multiprocessing.get_context("fork")
    start = context.Barrier(len(calls))
    results = context.Queue()
    racers = [
        context.Process(target=_racer, args=(str(path), call, index, start, results))
        for index, call in enumerate(calls)
    ]
    for racer in racers:
        racer.start()
    found: dict[int, Result] = {}
    try:
        while len(found) < len(calls):
            try:
                index, error, result = results.get(timeout=DEADLINE_S)
            except queue.Empty:
                raise AssertionError(
                    f"only {len(found)} of {len(calls)} racers answered within {DEADLINE_S} s"
                ) from None
            found[index] = Result(error, result)
    finally:
        for racer in racers:
            racer.join(DEADLINE_S)
            if racer.is_alive():
                racer.kill()
    return [found[index] for index in range(len(calls))]
