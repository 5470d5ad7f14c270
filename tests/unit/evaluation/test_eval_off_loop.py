"""A trial's disk work runs off the event loop (`off_loop`): the loop goes on meanwhile, and a
cancellation (Ctrl-C) lets the work end and undoes what it made before going on."""

from __future__ import annotations

import asyncio
import threading

import pytest

from airline_agent.evaluation.trial import off_loop

DEADLINE = 60  # seconds: a generous bound on waiting for a condition, never a pause


async def test_the_loop_goes_on_while_the_work_waits() -> None:
    release = threading.Event()
    work = asyncio.ensure_future(off_loop(lambda: release.wait(DEADLINE) and "made"))
    await asyncio.sleep(0)  # the loop runs other tasks while the work waits in its thread
    assert not work.done()
    release.set()
    assert await asyncio.wait_for(work, DEADLINE) == "made"


async def test_a_cancelled_trial_lets_the_work_end_and_undoes_it() -> None:
    started, release = threading.Event(), threading.Event()
    undone: list[str] = []

    def make() -> str:
        started.set()
        release.wait(DEADLINE)
        return "copy"

    work = asyncio.ensure_future(off_loop(make, undo=undone.append))
    await asyncio.to_thread(started.wait, DEADLINE)
    work.cancel()
    await asyncio.sleep(0)
    assert not work.done() and undone == []  # still waiting for the work to end
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(work, DEADLINE)
    assert undone == ["copy"]
