"""Failures and cancellation leave a valid history, and the turn can be sent again."""

from __future__ import annotations

import asyncio

import pytest

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
from airline_agent.agent.events import ApprovalRequested, ErrorOccurred, ToolFinished, TurnFinished
from airline_agent.agent.history import problems
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox

CANCEL = ScriptedToolCall("cancel_reservation", {"reservation_id": "EHGLP3"}, "w1")
READ = ScriptedToolCall("get_reservation_details", {"reservation_id": "EHGLP3"}, "r1")


async def test_a_request_past_the_end_of_the_script_is_a_clear_error():
    s = AgentSession(ScriptedBackend([]), FakeToolbox())
    events = await run_turn(s, "hi")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "script_exhausted"
    assert of_type(events, TurnFinished)[0].reason == "error"
    # Nothing came back: the customer's message is taken back, the turn can be resent.
    assert [m["role"] for m in s.history] == ["system"]
    s.backend.load([ScriptedResponse("Hello!")])
    events = await run_turn(s, "hi")
    assert of_type(events, TurnFinished)[0].reason == "answered"


async def test_an_error_after_tools_ran_keeps_their_results():
    s = AgentSession(ScriptedBackend([ScriptedResponse(tool_calls=(READ,))]), FakeToolbox())
    events = await run_turn(s, "look")
    assert of_type(events, ErrorOccurred)
    assert [m["role"] for m in s.history] == ["system", "user", "assistant", "tool"]
    assert problems(s.history) == []


class SlowBackend(ScriptedBackend):
    """A model that never answers; `waiting` is set once a request waits for it."""

    can_stall = True  # unlike the scripted replies it stands in for, it waits

    def __init__(self) -> None:
        super().__init__([])
        self.waiting = asyncio.Event()

    async def reply(self, body):
        self.requests.append(body)
        self.waiting.set()
        await asyncio.sleep(30)
        yield  # pragma: no cover


async def test_cancelling_while_waiting_for_the_model_leaves_a_valid_history():
    s = AgentSession(SlowBackend(), FakeToolbox())

    async def consume():
        async for _ in s.run_turn("hi"):
            pass

    task = asyncio.create_task(consume())
    await asyncio.wait_for(s.backend.waiting.wait(), 10)  # the request is out
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    [request] = s.backend.requests
    assert request["messages"][-1] == {"role": "user", "content": "hi"}  # it was sent…
    assert problems(s.history) == []
    assert [m["role"] for m in s.history] == ["system"]  # …and is taken back


async def test_cancelling_while_waiting_for_approval_answers_every_call():
    backend = ScriptedBackend([ScriptedResponse(tool_calls=(READ, CANCEL))])
    s = AgentSession(backend, FakeToolbox(), LoopOptions(approval="ask"))
    asked = asyncio.Event()

    async def consume():
        async for event in s.run_turn("cancel EHGLP3"):
            if isinstance(event, ApprovalRequested):
                asked.set()  # and never decide

    task = asyncio.create_task(consume())
    await asyncio.wait_for(asked.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert problems(s.history) == []
    assert s.toolbox.writes == []
    answered = [m["tool_call_id"] for m in s.history if m["role"] == "tool"]
    assert answered == ["r1", "w1"]


async def test_stopping_iteration_midway_leaves_a_valid_history():
    backend = ScriptedBackend(
        [
            ScriptedResponse(
                tool_calls=(READ, READ.__class__("calculate", {"expression": "1+1"}, "r2"))
            )
        ]
    )
    s = AgentSession(backend, FakeToolbox())
    turn = s.run_turn("look")
    async for event in turn:
        if isinstance(event, ToolFinished):
            break  # the consumer walks away after the first result
    await turn.aclose()
    assert problems(s.history) == []
    assert [m.get("tool_call_id") for m in s.history[3:]] == ["r1", "r2"]
