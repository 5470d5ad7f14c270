"""The live stack on the Responses wire, over a loopback Responses API server and a copy of
the sample database: the debugger's hold and edit (an edited Responses body is what the
server receives, byte for byte, and the conversation goes on from it), approvals, the
guard and the grounding check, as on Chat Completions."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from airline_agent.agent import edits, responses_wire
from airline_agent.agent.debugger_errors import EditRefused
from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    GroundingWarning,
    RequestHeld,
    RequestSent,
    ToolFinished,
    TurnFinished,
)
from airline_agent.agent.history import problems as history_problems
from airline_agent.config import Settings
from airline_agent.stack import Stack, live_stack, open_existing_database
from tests.support.events import of_type
from tests.support.loopback import loopback_backend
from tests.support.responses_server import ResponsesServer

pytestmark = pytest.mark.usefixtures("closing_loopback_backends")

EMMA = "emma_kim_9957"
DEADLINE = 30.0  # seconds a test waits for a hold before it fails (never a pause)


def responses_stack(
    db: Path, server: ResponsesServer, *, debug: bool = False, **settings: Any
) -> Stack:
    settings.setdefault("stream", False)
    settings.setdefault("approve", "auto")
    chosen = Settings(
        db=str(db), model="gpt-4o-mini", base_url=server.url, api="responses", **settings
    )
    backend = loopback_backend(server.url, api_key="test-key", api="responses")
    stack = live_stack(
        chosen, customer=EMMA, database=open_existing_database(db), backend=backend, debug=debug
    )
    assert stack.session.backend.api == "responses"
    return stack


def assert_valid(server: ResponsesServer, stack: Stack) -> None:
    for body in server.requests:
        assert responses_wire.problems(body["input"]) == []
    assert responses_wire.problems(stack.session.request_body()["input"]) == []
    assert history_problems(stack.session.history) == []


async def play(stack: Stack, text: str, *, approve: bool | None = None) -> list[AgentEvent]:
    events: list[AgentEvent] = []
    async for event in stack.session.run_turn(text):
        events.append(event)
        if isinstance(event, ApprovalRequested):
            event.decide(approve)
    return events


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])
async def test_an_edited_responses_body_is_what_the_server_receives_byte_for_byte(
    db: Path, responses_server: ResponsesServer, streamed: bool
):
    stack = responses_stack(db, responses_server, debug=True, stream=streamed)
    stack.debugger.breakpoints.request = True
    (responses_server.events if streamed else responses_server.response)("EHGLP3 flies to JFK.")
    held_events: asyncio.Queue[RequestHeld] = asyncio.Queue()
    events: list[AgentEvent] = []

    async def turn() -> None:
        async for event in stack.session.run_turn("hi"):
            events.append(event)
            if isinstance(event, RequestHeld):
                await held_events.put(event)

    task = asyncio.ensure_future(turn())
    held = await asyncio.wait_for(held_events.get(), DEADLINE)
    body = json.loads(edits.held_text(held))
    assert body["input"] == [{"type": "message", "role": "user", "content": "hi"}]
    assert "messages" not in body
    # A Chat Completions body is no edit of a Responses request: refused, nothing sent.
    with pytest.raises(EditRefused, match="input"):
        edits.go_on_edited(
            held, '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}'
        )
    unanswered = {
        **body,
        "input": [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}],
    }
    assert any("never answered" in problem for problem in edits.held_problems(held, unanswered))
    assert not held.release.done() and responses_server.requests == []
    body["input"][0]["content"] = "I am emma_kim_9957: where does EHGLP3 go?"
    body["temperature"] = 0.25
    edited = json.dumps(body, indent=1, ensure_ascii=False) + "\n"
    assert edits.held_problems(held, edited) == []
    edits.go_on_edited(held, edited)
    await asyncio.wait_for(task, DEADLINE)
    assert responses_server.raw_requests == [edited.encode("utf-8")]
    [sent] = of_type(events, RequestSent)
    assert sent.edit is not None and sent.body == sent.edit.edited
    assert sent.messages[-1] == {"role": "user", "content": body["input"][0]["content"]}
    # The conversation goes on from the edited input.
    assert stack.session.history[1]["content"] == body["input"][0]["content"]
    assert_valid(responses_server, stack)
    stack.close()


async def test_a_declined_write_is_answered_by_its_call_id(
    db: Path, responses_server: ResponsesServer
):
    stack = responses_stack(db, responses_server, approve="ask")
    cancel = ("cancel_reservation", {"reservation_id": "EHGLP3"})
    responses_server.response(tool_calls=[cancel])
    responses_server.response("I have not cancelled it.")
    events = await play(stack, "cancel EHGLP3", approve=False)
    [asked] = of_type(events, ApprovalRequested)
    assert [call.call_id for call in asked.calls] == ["call_1"]
    [finished] = of_type(events, ToolFinished)
    assert finished.error is not None and finished.changes == ()
    output = responses_server.requests[1]["input"][-1]
    assert output["type"] == "function_call_output" and output["call_id"] == "call_1"
    assert json.loads(output["output"])["error"] == finished.error
    assert_valid(responses_server, stack)
    stack.close()


async def test_the_guard_refuses_a_write_with_its_rule(db: Path, responses_server: ResponsesServer):
    stack = responses_stack(db, responses_server)  # approvals auto: the guard decides
    cancel = ("cancel_reservation", {"reservation_id": "EHGLP3"})
    responses_server.response(tool_calls=[cancel])
    responses_server.response("It cannot be cancelled.")
    events = await play(stack, "cancel EHGLP3")
    [finished] = of_type(events, ToolFinished)
    assert finished.error == "POLICY_VIOLATION" and finished.changes == ()
    output = json.loads(responses_server.requests[1]["input"][-1]["output"])
    assert (output["error"], output["rule"]) == ("POLICY_VIOLATION", "X3")
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert_valid(responses_server, stack)
    stack.close()


async def test_an_unsupported_claim_is_found(db: Path, responses_server: ResponsesServer):
    stack = responses_stack(db, responses_server)
    responses_server.response("Your refund of $812.40 was sent on 2024-05-02.")
    events = await play(stack, "hi, where is my refund?")
    [warning] = of_type(events, GroundingWarning)
    assert "$812.40" in warning.unsupported
    assert_valid(responses_server, stack)
    stack.close()
