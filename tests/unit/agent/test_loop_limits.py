"""Tool-call limit, request limit, budgets, malformed arguments, unknown tools."""

from __future__ import annotations

import json

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
from airline_agent.agent.events import (
    LimitReached,
    RequestSent,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    Usage,
)
from airline_agent.agent.history import problems
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox


def lookup(call_id: str) -> ScriptedToolCall:
    return ScriptedToolCall("get_reservation_details", {"reservation_id": "EHGLP3"}, call_id)


def session(*responses: ScriptedResponse, **options) -> AgentSession:
    return AgentSession(ScriptedBackend(responses), FakeToolbox(), LoopOptions(**options))


async def test_calls_past_the_limit_get_limit_exceeded_and_the_model_answers():
    calls = tuple(lookup(f"c{i}") for i in range(4))
    s = session(
        ScriptedResponse(tool_calls=calls),
        ScriptedResponse("Here is what I found."),
        max_tool_calls=3,
    )
    events = await run_turn(s, "look it up four times")
    finished = of_type(events, ToolFinished)
    assert [e.error for e in finished] == [None, None, None, "TOOL_CALL_LIMIT_EXCEEDED"]
    assert len(of_type(events, ToolStarted)) == 3  # the fourth never ran
    assert "Answer the customer now" in finished[3].result["message"]
    limits = of_type(events, LimitReached)
    assert [(e.kind, e.limit) for e in limits] == [("tool_calls", 3)]
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert problems(s.history) == []
    # The model saw the error result for the fourth call in the next request.
    second = of_type(events, RequestSent)[1].messages
    assert json.loads(second[-1]["content"])["error"] == "TOOL_CALL_LIMIT_EXCEEDED"


async def test_a_model_that_keeps_calling_past_the_limit_ends_the_turn_with_a_message():
    s = session(
        ScriptedResponse(tool_calls=(lookup("a"), lookup("b"))),
        ScriptedResponse(tool_calls=(lookup("c"),)),
        max_tool_calls=1,
    )
    events = await run_turn(s, "again and again")
    finished = of_type(events, ToolFinished)
    assert [(e.call_id, e.error) for e in finished] == [
        ("a", None),
        ("b", "TOOL_CALL_LIMIT_EXCEEDED"),
        ("c", "TOOL_CALL_LIMIT_EXCEEDED"),
    ]
    last = of_type(events, LimitReached)[-1]
    assert "could not finish" in last.message
    assert of_type(events, TurnFinished)[0].reason == "tool_call_limit"
    assert s.backend.remaining == 0
    assert problems(s.history) == []


async def test_the_limit_is_per_turn():
    s = session(
        ScriptedResponse(tool_calls=(lookup("a"),)),
        ScriptedResponse("one"),
        ScriptedResponse(tool_calls=(lookup("b"),)),
        ScriptedResponse("two"),
        max_tool_calls=1,
    )
    await run_turn(s, "first")
    events = await run_turn(s, "second")
    assert [e.error for e in of_type(events, ToolFinished)] == [None]


async def test_the_request_limit_ends_the_turn_with_a_valid_history():
    s = session(
        *(ScriptedResponse(tool_calls=(lookup(f"c{i}"),)) for i in range(5)), max_requests=2
    )
    events = await run_turn(s, "loop")
    assert len(of_type(events, RequestSent)) == 2
    assert [e.kind for e in of_type(events, LimitReached)] == ["requests"]
    assert of_type(events, TurnFinished)[0].reason == "request_limit"
    assert problems(s.history) == []


async def test_a_token_budget_stops_the_conversation_before_the_next_request():
    usage = Usage(prompt_tokens=900, completion_tokens=200)
    s = session(ScriptedResponse("hi", usage=usage), ScriptedResponse("again"), token_budget=1000)
    await run_turn(s, "hello")
    events = await run_turn(s, "more")
    assert not of_type(events, RequestSent)
    assert [e.kind for e in of_type(events, LimitReached)] == ["tokens"]
    assert of_type(events, TurnFinished)[0].reason == "budget"


async def test_a_cost_budget_stops_the_conversation():
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=0)
    backend = ScriptedBackend([ScriptedResponse("hi", usage=usage)], model="gpt-4o")
    s = AgentSession(backend, FakeToolbox(), LoopOptions(cost_budget=1.0))
    await run_turn(s, "hello")
    events = await run_turn(s, "more")
    assert [e.kind for e in of_type(events, LimitReached)] == ["cost"]


async def test_malformed_arguments_get_an_error_result_and_are_never_sent_back():
    broken = ScriptedToolCall("get_reservation_details", '{"reservation_id": "12345', "bad")
    s = session(
        ScriptedResponse(tool_calls=(broken,), finish_reason="length"),
        ScriptedResponse("Which reservation?"),
    )
    events = await run_turn(s, "cancel")
    finished = of_type(events, ToolFinished)[0]
    assert finished.error == "INVALID_ARGUMENTS"
    assert finished.arguments is None
    assert not of_type(events, ToolStarted)  # nothing ran
    sent = s.backend.requests[1]["messages"]
    assert sent[2]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert problems(sent) == []


async def test_length_with_complete_calls_still_runs_them():
    s = session(
        ScriptedResponse(tool_calls=(lookup("a"), lookup("b")), finish_reason="length"),
        ScriptedResponse("done"),
    )
    events = await run_turn(s, "look")
    assert [e.error for e in of_type(events, ToolFinished)] == [None, None]


async def test_an_unknown_tool_gets_an_error_result_the_model_can_recover_from():
    s = session(
        ScriptedResponse(tool_calls=(ScriptedToolCall("fly_me_to_the_moon", {}, "x"),)),
        ScriptedResponse("I cannot do that."),
    )
    events = await run_turn(s, "moon")
    assert of_type(events, ToolFinished)[0].error == "UNKNOWN_TOOL"
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert problems(s.history) == []
