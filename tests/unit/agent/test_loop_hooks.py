"""The loop's hooks (agent/hooks.py): called at their points, in the loop's order, with what
the loop is about to do; what a hook yields reaches the consumer in place; a replaced body
is what the backend gets, replaced arguments are what the call runs with (an edited write
asked about again, and a "no" final); without hooks the loop is what it is; and the loop
imports nothing of the debugger, even indirectly."""

from __future__ import annotations

import ast
import json
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
from airline_agent.agent.conversation import Conversation
from airline_agent.agent.edits import checked_body
from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessage,
    RequestSent,
    ToolFinished,
    TurnFinished,
    TurnStarted,
)
from airline_agent.agent.history import problems
from airline_agent.agent.hooks import NO_HOOKS, OutgoingCall, OutgoingRequest
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox

READ = ScriptedToolCall("get_reservation_details", {"reservation_id": "EHGLP3"}, "r1")
CANCEL = ScriptedToolCall("cancel_reservation", {"reservation_id": "EHGLP3"}, "w1")
ANSWER = ScriptedResponse("Done.")


@dataclass(frozen=True)
class Marker:
    """An event of the hooks' own, to see where it reaches the consumer."""

    where: str


class RecordingHooks:
    """Says what the loop called, in order, and yields a marker event at each point."""

    def __init__(self, *, keep_steps: bool = False) -> None:
        self.keep_steps = keep_steps  # as the debugger does: a timeline, to fork
        self.calls: list[tuple[Any, ...]] = []
        self.body: tuple[dict[str, Any], bytes] | None = None  # to send instead
        self.arguments: dict[str, str] = {}  # call id -> arguments to run it with

    def conversation_started(self, conversation: Conversation) -> None:
        self.calls.append(("conversation_started", len(conversation.history)))
        if self.keep_steps:
            conversation.keep_timeline()

    async def watch_turn(
        self, events: AsyncGenerator[AgentEvent, None]
    ) -> AsyncGenerator[AgentEvent, None]:
        self.calls.append(("watch_turn",))
        async for event in events:
            self.calls.append(("event", type(event).__name__))
            yield event
        self.calls.append(("turn_watched",))

    async def before_request(self, request: OutgoingRequest) -> AsyncIterator[AgentEvent]:
        conversation = request.conversation
        self.calls.append(
            ("before_request", conversation.requests + 1, len(request.body["messages"]))
        )
        yield Marker(f"before request {conversation.requests + 1}")
        if self.body is not None:
            request.replace_body(*self.body)
            self.body = None

    async def before_call(self, call: OutgoingCall) -> AsyncIterator[AgentEvent]:
        plan = call.plan
        self.calls.append(("before_call", plan.call.call_id, call.write, plan.will_run))
        yield Marker(f"before {plan.call.call_id}")
        if plan.call.call_id in self.arguments:
            call.replace_arguments(self.arguments.pop(plan.call.call_id))

    async def before_turn_ends(self, conversation: Conversation) -> AsyncIterator[AgentEvent]:
        self.calls.append(("before_turn_ends", conversation.turns))
        yield Marker(f"before turn {conversation.turns} ends")


def hooked(
    *responses: ScriptedResponse, approval: str = "auto", keep_steps: bool = False
) -> tuple[AgentSession, RecordingHooks]:
    backend = ScriptedBackend(responses)
    session = AgentSession(backend, FakeToolbox(), LoopOptions(approval=approval))
    hooks = RecordingHooks(keep_steps=keep_steps)
    session.use_hooks(hooks)
    return session, hooks


async def test_the_loop_calls_its_hooks_at_their_points_in_order():
    session, hooks = hooked(ScriptedResponse(tool_calls=(READ, CANCEL)), ANSWER)
    assert hooks.calls == [("conversation_started", 1)]  # a new conversation, seen from its start
    hooks.calls.clear()
    events = await run_turn(session, "Cancel EHGLP3, please.")
    points = [call for call in hooks.calls if call[0] not in ("event",)]
    assert points == [
        ("watch_turn",),
        ("before_request", 1, 2),  # system and the customer's message
        ("before_call", "r1", False, True),
        ("before_call", "w1", True, True),
        ("before_request", 2, 5),  # with the reply and its two results
        ("before_turn_ends", 1),
        ("turn_watched",),
    ]
    # What the hooks yield reaches the consumer where they yield it, and passes the watch.
    shown = (Marker, TurnStarted, RequestSent, AssistantMessage, ToolFinished, TurnFinished)
    kinds = [
        e.where if isinstance(e, Marker) else type(e).__name__
        for e in events
        if isinstance(e, shown)
    ]
    assert kinds == [
        "TurnStarted",
        "before request 1",
        "RequestSent",
        "AssistantMessage",
        "before r1",
        "ToolFinished",
        "before w1",
        "ToolFinished",
        "before request 2",
        "RequestSent",
        "AssistantMessage",
        "before turn 1 ends",
        "TurnFinished",
    ]
    watched = [name for kind, *name in hooks.calls if kind == "event"]
    assert [n for [n] in watched] == [type(e).__name__ for e in events]
    assert session.new_conversation() is session.conversation
    assert hooks.calls[-1] == ("conversation_started", 1)


async def test_a_resumed_turn_is_watched_and_ends_through_the_hooks_too():
    session, hooks = hooked(ScriptedResponse(tool_calls=(READ,)), ANSWER, ANSWER, keep_steps=True)
    await run_turn(session, "EHGLP3?")
    hooks.calls.clear()
    fork = session.conversation.restored(3)  # the reply asked for r1; it is not answered yet
    session.conversation = fork
    events = [event async for event in session.resume_turn()]
    points = [call[:2] for call in hooks.calls if call[0] != "event"]
    assert points == [
        ("watch_turn",),
        ("before_call", "r1"),
        ("before_request", 2),
        ("before_turn_ends", 1),
        ("turn_watched",),
    ]
    assert of_type(events, TurnFinished)[-1].reason == "answered"


async def test_a_body_a_hook_replaces_is_what_the_backend_gets_and_the_history_from_then_on():
    session, hooks = hooked(ANSWER)
    body = session.request_body()  # the system message alone, so far
    body["messages"].append({"role": "user", "content": "Say hello."})
    hooks.body = checked_body(json.dumps(body), like=body)
    events = await run_turn(session, "Say goodbye.")
    assert session.backend.requests[0]["messages"][-1]["content"] == "Say hello."
    [sent] = of_type(events, RequestSent)
    assert sent.edit is not None and sent.edit.request == 1
    assert [m.get("content") for m in session.history[1:]] == ["Say hello.", "Done."]
    assert problems(session.history) == []


async def test_arguments_a_hook_replaces_run_and_an_edited_write_is_asked_about_again():
    session, hooks = hooked(ScriptedResponse(tool_calls=(CANCEL,)), ANSWER, approval="ask")
    hooks.arguments["w1"] = json.dumps({"reservation_id": "ZFA04Y"})
    asked: list[ApprovalRequested] = []

    def answer(event: ApprovalRequested) -> bool:
        asked.append(event)
        return len(asked) == 1  # yes to the model's arguments, no to the edited ones

    events = await run_turn(session, "Cancel EHGLP3.", approve=answer)
    assert [[c.arguments for c in a.calls] for a in asked] == [
        [{"reservation_id": "EHGLP3"}],
        [{"reservation_id": "ZFA04Y"}],
    ]
    [finished] = of_type(events, ToolFinished)
    assert finished.error == "PERMISSION_DENIED"  # the "no" is final: nothing ran
    assert finished.arguments == {"reservation_id": "ZFA04Y"} and finished.edit is not None
    assert session.toolbox.writes == []
    # The model's call stays in the history as it sent it.
    assert json.loads(session.history[2]["tool_calls"][0]["function"]["arguments"]) == {
        "reservation_id": "EHGLP3"
    }
    assert problems(session.history) == []


async def test_without_hooks_the_loop_calls_none_and_keeps_no_timeline():
    session = AgentSession(ScriptedBackend([ANSWER]), FakeToolbox(), LoopOptions())
    assert session.hooks is NO_HOOKS
    events = await run_turn(session, "Hello.")
    assert of_type(events, TurnFinished)[-1].reason == "answered"
    assert session.conversation.timeline is None
    assert not of_type(events, Marker)


AGENT = Path(__file__).resolve().parents[3] / "airline_agent" / "agent"


def _imports_of(module: str) -> set[str]:
    """The agent modules `module` imports, wherever the import is written."""
    found = set()
    for node in ast.walk(ast.parse((AGENT / f"{module}.py").read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "airline_agent.agent":
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "airline_agent.agent."
        ):
            found.add(node.module.removeprefix("airline_agent.agent."))  # type: ignore[union-attr]
        elif isinstance(node, ast.Import):
            found.update(
                alias.name.removeprefix("airline_agent.agent.")
                for alias in node.names
                if alias.name.startswith("airline_agent.agent.")
            )
    return {name for name in found if (AGENT / f"{name}.py").exists()}


def test_the_loop_knows_nothing_of_the_debugger():
    reached, todo = set(), ["loop"]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(_imports_of(module))
    assert {"hooks", "requests", "tool_round", "conversation", "steps", "turn"} <= reached
    assert not reached & {"debugger", "breakpoints"}
