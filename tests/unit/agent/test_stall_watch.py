"""The watch for silences while a request waits (agent/stall_watch.py)."""

from __future__ import annotations

import asyncio

import pytest

from airline_agent.agent.stall_watch import Silence, watched


async def test_items_pass_in_order_and_a_silence_is_said_while_it_lasts():
    resume = asyncio.Event()

    async def source():
        yield "a"
        await resume.wait()  # silent until the test has seen the silence
        yield "b"

    seen = []
    async for item in watched(source(), 0.01):
        seen.append(item)
        if isinstance(item, Silence):
            resume.set()
    assert seen[0] == "a" and seen[-1] == "b"
    silences = [item for item in seen if isinstance(item, Silence)]
    assert silences and silences[0].seconds == 0.01
    assert [s.seconds for s in silences] == sorted(s.seconds for s in silences)


async def test_the_sources_error_comes_after_its_items():
    async def source():
        yield 1
        raise ValueError("broken")

    seen = []
    with pytest.raises(ValueError, match="broken"):
        async for item in watched(source(), 5):
            seen.append(item)
    assert seen == [1]


async def test_leaving_the_watch_closes_the_source_in_its_own_task():
    closed = asyncio.Event()
    forever = asyncio.Event()

    async def source():
        try:
            yield 1
            await forever.wait()
            yield 2
        finally:
            closed.set()

    watch = watched(source(), 5)
    assert await anext(watch) == 1
    await watch.aclose()
    await asyncio.wait_for(closed.wait(), 10)


async def test_without_a_notice_nothing_is_watched():
    async def source():
        yield "x"

    assert [item async for item in watched(source(), None)] == ["x"]


async def test_a_scripted_reply_is_not_watched_and_a_server_is(monkeypatch):
    """The scripted backend makes its replies at once: it cannot go silent, so no watch
    (a task and a queue on every request) is started for it; one that may is watched."""
    from airline_agent.agent import requests
    from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse
    from airline_agent.agent.loop import AgentSession, LoopOptions
    from tests.support.fake_toolbox import FakeToolbox

    notices: list[float | None] = []
    original = requests.watched

    def noted(source, notice_s):
        notices.append(notice_s)
        return original(source, notice_s)

    monkeypatch.setattr(requests, "watched", noted)

    class Server(ScriptedBackend):
        can_stall = True  # as a server: its replies may keep the loop waiting

    for backend in (ScriptedBackend([ScriptedResponse("Ok.")]), Server([ScriptedResponse("Ok.")])):
        session = AgentSession(backend, FakeToolbox(), LoopOptions(stall_notice=7.0))
        async for _ in session.run_turn("Hi."):
            pass
    assert notices == [None, 7.0]
