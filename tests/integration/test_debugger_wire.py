"""The debugger on the wire, through the real `openai` client to a loopback server: a
request held before it is sent (the server receives nothing until it goes on), an edited
body that is what the server receives byte for byte, an edited tool call's arguments
that the call runs with while the history keeps the model's call, breakpoints on errors
and findings, stepping in the articles' order — and, without breakpoints, the same bytes
on the wire as without a debugger."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openai
import pytest

from airline_agent.agent import edits
from airline_agent.agent.debugger_errors import EditRefused
from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessage,
    Held,
    RequestHeld,
    RequestSent,
    ToolCallHeld,
    ToolFinished,
    ToolStarted,
    TurnEndHeld,
    TurnFinished,
    TurnStarted,
)
from airline_agent.agent.history import problems
from airline_agent.config import Settings
from airline_agent.stack import Stack, live_stack, open_existing_database
from tests.support.chat_server import ChatServer
from tests.support.events import of_type
from tests.support.loopback import loopback_backend

pytestmark = pytest.mark.usefixtures("closing_loopback_backends")

EMMA = "emma_kim_9957"
DEADLINE = 30.0  # seconds a test waits for a condition before it fails (never a pause)


def debugged(db: Path, server: ChatServer, *, debug: bool = True, **settings: Any) -> Stack:
    """The live stack over the loopback server and a copy of the sample, with a debugger."""
    settings.setdefault("stream", False)
    settings.setdefault("approve", "auto")
    chosen = Settings(db=str(db), model="gpt-4o-mini", base_url=server.url, **settings)
    backend = loopback_backend(server.url, api_key="test-key")
    return live_stack(
        chosen,
        customer=EMMA,
        database=open_existing_database(db),
        backend=backend,
        debug=debug,
    )


class Turn:
    """A turn played in a task of its own; the test waits for each hold it reaches."""

    def __init__(self, events: AsyncIterator[AgentEvent], *, approve: bool = True) -> None:
        self.events: list[AgentEvent] = []
        self._holds: asyncio.Queue[Held | ApprovalRequested] = asyncio.Queue()
        self._approve = approve
        self.task = asyncio.ensure_future(self._play(events))

    async def _play(self, events: AsyncIterator[AgentEvent]) -> None:
        async for event in events:
            self.events.append(event)
            if isinstance(event, RequestHeld | ToolCallHeld | TurnEndHeld | ApprovalRequested):
                await self._holds.put(event)

    async def hold(self) -> Held | ApprovalRequested:
        waiting = asyncio.ensure_future(self._holds.get())
        done, _ = await asyncio.wait(
            {waiting, self.task}, timeout=DEADLINE, return_when="FIRST_COMPLETED"
        )
        if waiting not in done:
            waiting.cancel()
            raise AssertionError(f"no hold came; the turn ended: {self.task.done()}")
        return waiting.result()

    async def end(self) -> list[AgentEvent]:
        await asyncio.wait_for(self.task, DEADLINE)
        return self.events


async def test_a_break_before_a_request_holds_it_until_it_goes_on(
    db: Path, chat_server: ChatServer
):
    stack = debugged(db, chat_server)
    stack.debugger.breakpoints.request = True
    chat_server.completion("marker")  # answers the probe below, sent while the loop is held
    chat_server.completion("Hello Emma, how can I help?")
    turn = Turn(stack.session.run_turn("hi"))
    held = await turn.hold()
    assert isinstance(held, RequestHeld)
    assert (held.request, held.reasons, held.next) == (1, ("request",), "send request #1")
    # While it is held, another client's request makes a whole round trip through the
    # same event loop and server: the server has received that one, and only that one.
    probe = openai.AsyncOpenAI(api_key="k", base_url=chat_server.url, max_retries=0)
    await probe.chat.completions.create(model="probe", messages=[{"role": "user", "content": "?"}])
    await probe.close()
    assert [body["model"] for body in chat_server.requests] == ["probe"]
    assert not turn.task.done()
    held.go()
    events = await turn.end()
    assert [body["model"] for body in chat_server.requests] == ["probe", "gpt-4o-mini"]
    kinds = [type(event) for event in events]
    assert kinds.index(RequestHeld) < kinds.index(RequestSent) < kinds.index(AssistantMessage)
    assert of_type(events, TurnFinished)[0].reason == "answered"
    stack.close()


@pytest.mark.parametrize("streamed", [False, True])
async def test_an_edited_body_is_what_the_server_receives_byte_for_byte(
    db: Path, chat_server: ChatServer, streamed: bool
):
    stack = debugged(db, chat_server, stream=streamed)
    stack.debugger.breakpoints.request = True
    (chat_server.stream if streamed else chat_server.completion)("EHGLP3 flies PHX to JFK.")
    turn = Turn(stack.session.run_turn("hi"))
    held = await turn.hold()
    assert isinstance(held, RequestHeld)
    body = json.loads(edits.held_text(held))
    assert body["messages"][-1] == {"role": "user", "content": "hi"}
    with pytest.raises(EditRefused, match="messages"):
        edits.go_on_edited(
            held, '{"model": "gpt-4o-mini", "messages": []}'
        )  # refused: nothing is sent
    assert edits.held_problems(held, "not json") and not held.release.done()
    body["messages"][-1]["content"] = "I am emma_kim_9957: where does EHGLP3 go?"
    body["temperature"] = 0.25
    edited = json.dumps(body, indent=1, ensure_ascii=False) + "\n"  # not how a client writes
    assert edits.held_problems(held, edited) == []
    edits.go_on_edited(held, edited)
    events = await turn.end()
    assert chat_server.raw_requests == [edited.encode("utf-8")]
    [sent] = of_type(events, RequestSent)
    assert sent.edit is not None and sent.edit.by == "you"
    assert sent.edit.wire == edited.encode("utf-8")
    assert sent.edit.original["messages"][-1]["content"] == "hi"  # the original is kept
    assert sent.edit.changed_messages() == (1,)
    diff = sent.edit.diff().splitlines()
    assert '-      "content": "hi"' in diff
    assert '+      "content": "I am emma_kim_9957: where does EHGLP3 go?"' in diff
    assert sent.params["temperature"] == 0.25
    conversation = stack.session.conversation
    assert conversation.edits == [sent.edit]
    assert conversation.history[1]["content"] == "I am emma_kim_9957: where does EHGLP3 go?"
    assert conversation.history[-1]["content"] == "EHGLP3 flies PHX to JFK."
    assert problems(conversation.history) == []
    stack.close()


async def test_an_edited_tool_argument_runs_with_the_edit_and_the_history_keeps_the_models(
    db: Path, chat_server: ChatServer
):
    stack = debugged(db, chat_server)
    stack.debugger.breakpoints.step = True
    model_says = {"flight_number": "HAT156", "date": "2024-05-16"}
    chat_server.completion(tool_calls=[("get_flight_status", model_says, "call_status")])
    chat_server.completion("HAT156 is available on 2024-05-17.")
    turn = Turn(stack.session.run_turn("Is HAT156 flying on the 17th of May?"))
    first = await turn.hold()
    assert isinstance(first, RequestHeld)
    first.go()
    held = await turn.hold()
    assert isinstance(held, ToolCallHeld)
    assert (held.next, held.write, held.editable) == (
        "run get_flight_status (call_status)",
        False,
        True,
    )
    assert json.loads(edits.held_text(held)) == model_says
    with pytest.raises(EditRefused, match="JSON object"):
        edits.go_on_edited(held, '["HAT156"]')
    edited = '{"flight_number": "HAT156", "date": "2024-05-17"}'
    edits.go_on_edited(held, edited)
    second = await turn.hold()
    assert isinstance(second, RequestHeld) and second.request == 2
    second.go()
    events = await turn.end()

    [started], [finished] = of_type(events, ToolStarted), of_type(events, ToolFinished)
    assert started.raw_arguments == edited and started.edit is finished.edit
    assert finished.arguments == {"flight_number": "HAT156", "date": "2024-05-17"}
    assert finished.edit is not None and finished.edit.by == "you"
    assert json.loads(finished.edit.original) == model_says
    expected = stack.toolbox.call("get_flight_status", edited, stack.session.conversation)
    assert finished.result == expected.result
    # What the server was sent next: the model's call as it made it, answered by the run
    # with your arguments.
    assistant, answer = chat_server.requests[1]["messages"][-2:]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == model_says
    assert answer == {"role": "tool", "tool_call_id": "call_status", "content": expected.content()}
    assert stack.session.conversation.edits == [finished.edit]
    stack.close()


async def test_an_edited_write_is_asked_about_again_and_a_no_is_final(
    db: Path, chat_server: ChatServer
):
    stack = debugged(db, chat_server, approve="ask")
    stack.debugger.breakpoints.write = True
    model_says = {"reservation_id": "EHGLP3", "reason": "change_of_plan"}
    chat_server.completion(tool_calls=[("cancel_reservation", model_says, "call_cancel")])
    chat_server.completion("I have not cancelled it.")
    turn = Turn(stack.session.run_turn("I am emma_kim_9957, cancel EHGLP3 please."))
    asked = await turn.hold()
    assert isinstance(asked, ApprovalRequested)
    asked.decide(True)  # yes to the model's call…
    held = await turn.hold()
    assert isinstance(held, ToolCallHeld) and held.write and held.reasons == ("write",)
    edits.go_on_edited(held, {"reservation_id": "EHGLP3", "reason": "airline_cancelled_flight"})
    again = await turn.hold()  # …which is not the call that would run: asked again
    assert isinstance(again, ApprovalRequested)
    assert again.calls[0].arguments == {
        "reservation_id": "EHGLP3",
        "reason": "airline_cancelled_flight",
    }
    again.decide(False)
    events = await turn.end()
    [finished] = of_type(events, ToolFinished)
    assert finished.error == "PERMISSION_DENIED" and finished.changes == ()
    assert "declined" in finished.result["message"]
    stack.close()


async def test_breakpoints_on_an_error_result_and_on_a_finding(db: Path, chat_server: ChatServer):
    stack = debugged(db, chat_server)
    stops = stack.debugger.breakpoints
    stops.error = stops.finding = True
    chat_server.completion(
        tool_calls=[("get_reservation_details", '{"reservation_id": "EHG', "c1")]
    )
    chat_server.completion("Your refund of $999 is on its way.")  # no tool said $999
    turn = Turn(stack.session.run_turn("where is my refund?"))
    held = await turn.hold()
    assert isinstance(held, RequestHeld)
    assert (held.request, held.reasons) == (2, ("error",))  # after the INVALID_ARGUMENTS result
    held.go()
    end = await turn.hold()
    assert isinstance(end, TurnEndHeld)
    assert (end.reasons, end.next) == (("finding",), "end turn 1")
    assert not of_type(turn.events, TurnFinished)  # the turn waits to end
    end.go()
    events = await turn.end()
    assert of_type(events, TurnFinished)[0].reason == "answered"
    stack.close()


async def test_stepping_holds_before_each_request_and_call_in_the_articles_order(
    db: Path, chat_server: ChatServer
):
    stack = debugged(db, chat_server)
    stack.debugger.breakpoints.step = True
    lookup = ("get_reservation_details", {"reservation_id": "EHGLP3"}, "call_r")
    chat_server.completion(tool_calls=[lookup])
    chat_server.completion(tool_calls=[("get_user_details", {"user_id": EMMA}, "call_u")])
    chat_server.completion("EHGLP3 goes from PHX to JFK.")
    turn = Turn(stack.session.run_turn("I am emma_kim_9957; what is EHGLP3?"))
    seen = []
    for _ in range(3):
        held = await turn.hold()
        seen.append(held.next)
        if held.next == "send request #2":
            stack.debugger.run_to_turn_end()  # shift+space: no more stepping in this turn
        held.go()
    events = await turn.end()
    assert seen == ["send request #1", "run get_reservation_details (call_r)", "send request #2"]
    assert len(of_type(events, RequestHeld) + of_type(events, ToolCallHeld)) == 3
    steps = [
        (type(e).__name__, e.step)
        for e in events
        if isinstance(e, TurnStarted | RequestSent | AssistantMessage | ToolFinished)
    ]
    assert steps == [
        ("TurnStarted", 1),
        ("RequestSent", 2),
        ("AssistantMessage", 3),
        ("ToolFinished", 4),
        ("RequestSent", 5),
        ("AssistantMessage", 6),
        ("ToolFinished", 7),
        ("RequestSent", 8),
        ("AssistantMessage", 9),
    ]
    timeline = stack.session.conversation.timeline
    assert [s.describe() for s in timeline.steps][:4] == [
        "customer message (turn 1)",
        "request #1 sent",
        "response #1 received",
        "get_reservation_details (call_r) answered",
    ]
    stack.close()


async def test_without_breakpoints_the_wire_is_the_same_as_without_a_debugger(
    db: Path, sample_template: Path, tmp_path: Path, chat_server: ChatServer
):
    import shutil

    sent: list[list[bytes]] = []
    for debug in (False, True):
        copy = tmp_path / f"run-{debug}.db"
        shutil.copy(sample_template, copy)
        stack = debugged(copy, chat_server, debug=debug)
        first = len(chat_server.raw_requests)
        chat_server.completion(
            tool_calls=[("get_reservation_details", {"reservation_id": "EHGLP3"}, "c")]
        )
        chat_server.completion("EHGLP3 goes from PHX to JFK.")
        events = [event async for event in stack.session.run_turn("what is EHGLP3?")]
        assert not [e for e in events if isinstance(e, RequestHeld | ToolCallHeld | TurnEndHeld)]
        sent.append(chat_server.raw_requests[first:])
        stack.close()
    assert sent[0] == sent[1] and len(sent[0]) == 2
