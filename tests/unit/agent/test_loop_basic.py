"""The loop's main path with the scripted backend: tools, answers, history, usage."""

from __future__ import annotations

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
from airline_agent.agent.events import (
    AssistantMessage,
    GroundingWarning,
    ReasoningDelta,
    RequestSent,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    Usage,
    UsageReported,
)
from airline_agent.agent.history import problems
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox

LOOKUP = ScriptedToolCall("get_reservation_details", {"reservation_id": "EHGLP3"}, "c1")
ANSWER = ScriptedResponse(content="EHGLP3 flies PHX to JFK on 2024-05-17 via HAT156 and HAT021.")


def session(*responses: ScriptedResponse, **options) -> AgentSession:
    backend = ScriptedBackend(responses, model="gpt-4o-mini")
    return AgentSession(backend, FakeToolbox(), LoopOptions(**options))


async def test_one_tool_call_then_an_answer_gives_the_seed_history():
    s = session(ScriptedResponse(tool_calls=(LOOKUP,)), ANSWER)
    events = await run_turn(s, "Please look up EHGLP3.")
    roles = [m["role"] for m in s.history]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert s.history[2]["tool_calls"][0]["id"] == "c1"
    assert s.history[3]["tool_call_id"] == "c1"
    assert '"PHX"' in s.history[3]["content"]
    finished = of_type(events, ToolFinished)
    assert [(e.name, e.error) for e in finished] == [("get_reservation_details", None)]
    assert of_type(events, TurnFinished)[-1].reason == "answered"
    assert not of_type(events, GroundingWarning)
    assert problems(s.history) == []


async def test_each_request_sends_the_history_so_far_and_the_tools():
    s = session(ScriptedResponse(tool_calls=(LOOKUP,)), ANSWER, stream=False, temperature=0)
    events = await run_turn(s, "Look up EHGLP3")
    sent = of_type(events, RequestSent)
    assert [len(r.messages) for r in sent] == [2, 4]
    assert sent[1].messages[-1]["role"] == "tool"
    assert {t["function"]["name"] for t in sent[0].tools} >= {"get_reservation_details"}
    assert sent[0].params["tool_choice"] == "auto"
    assert sent[0].params["temperature"] == 0
    assert "stream" not in sent[0].params
    body = s.backend.requests[0]
    assert body["messages"] == sent[0].messages


async def test_streaming_asks_for_usage_and_yields_deltas():
    reply = ScriptedResponse(content="Hello there.", reasoning="The customer greets me.")
    s = session(reply)
    events = await run_turn(s, "hi")
    sent = of_type(events, RequestSent)[0]
    assert sent.params["stream"] is True
    assert sent.params["stream_options"] == {"include_usage": True}
    assert [e.text for e in of_type(events, TextDelta)] == ["Hello there."]
    assert [e.text for e in of_type(events, ReasoningDelta)] == ["The customer greets me."]


async def test_reasoning_is_shown_but_not_sent_back_by_default():
    reply = ScriptedResponse(tool_calls=(LOOKUP,), reasoning="I should look it up.")
    s = session(reply, ANSWER)
    events = await run_turn(s, "EHGLP3 please")
    assert of_type(events, AssistantMessage)[0].reasoning == "I should look it up."
    second = s.backend.requests[1]["messages"]
    assert all("reasoning_content" not in m for m in second)


async def test_reasoning_is_sent_back_when_asked():
    reply = ScriptedResponse(tool_calls=(LOOKUP,), reasoning="I should look it up.")
    s = session(reply, ANSWER, send_reasoning=True)
    await run_turn(s, "EHGLP3 please")
    second = s.backend.requests[1]["messages"]
    assert second[2]["reasoning_content"] == "I should look it up."


async def test_parallel_calls_are_all_run_and_answered_in_order():
    calls = (
        ScriptedToolCall("get_reservation_details", {"reservation_id": "EHGLP3"}, "a"),
        ScriptedToolCall("get_user_details", {"user_id": "emma_kim_9957"}, "b"),
    )
    s = session(ScriptedResponse(tool_calls=calls), ANSWER)
    events = await run_turn(s, "EHGLP3, I am emma_kim_9957")
    assert [e.call_id for e in of_type(events, ToolStarted)] == ["a", "b"]
    assert [e.call_id for e in of_type(events, ToolFinished)] == ["a", "b"]
    assert [m.get("tool_call_id") for m in s.history[3:5]] == ["a", "b"]
    assert problems(s.history) == []


async def test_usage_and_cost_per_request_turn_and_conversation():
    usage = Usage(prompt_tokens=1000, completion_tokens=100, cached_tokens=200)
    s = session(
        ScriptedResponse(tool_calls=(LOOKUP,), usage=usage), ScriptedResponse("ok", usage=usage)
    )
    events = await run_turn(s, "EHGLP3")
    reported = of_type(events, UsageReported)
    assert [r.usage for r in reported] == [usage, usage]
    # gpt-4o-mini: 800 fresh × 0.15 + 200 cached × 0.075 + 100 × 0.60, per 1M tokens
    one = (800 * 0.15 + 200 * 0.075 + 100 * 0.60) / 1e6
    assert reported[0].cost == one
    finished = of_type(events, TurnFinished)[0]
    assert finished.usage == usage + usage
    assert abs(finished.cost - 2 * one) < 1e-12
    assert s.spend.usage == usage + usage
    assert reported[0].context_window == 128000


async def test_unknown_usage_is_none_never_zero():
    s = session(ScriptedResponse("hello"))
    events = await run_turn(s, "hi")
    reported = of_type(events, UsageReported)[0]
    assert reported.usage is None
    assert reported.cost is None
    assert s.spend.complete is False
    assert s.spend.cost is None


async def test_unknown_model_has_unknown_cost():
    usage = Usage(prompt_tokens=10, completion_tokens=5)
    backend = ScriptedBackend([ScriptedResponse("hi", usage=usage)], model="gemma-3-270m")
    s = AgentSession(backend, FakeToolbox())
    events = await run_turn(s, "hi")
    assert of_type(events, UsageReported)[0].cost is None
    assert of_type(events, TurnFinished)[0].cost is None


async def test_an_invented_reservation_id_raises_a_grounding_warning():
    s = session(ScriptedResponse("Your reservation ZZ9Q8X is confirmed for $412."))
    events = await run_turn(s, "hi")
    warnings = of_type(events, GroundingWarning)
    assert warnings and warnings[0].unsupported == ("ZZ9Q8X", "$412")


async def test_a_second_turn_continues_the_same_history():
    s = session(ScriptedResponse("Hello."), ScriptedResponse("Goodbye."))
    await run_turn(s, "hi")
    await run_turn(s, "bye")
    assert [m["role"] for m in s.history] == ["system", "user", "assistant", "user", "assistant"]
    s.new_conversation()
    assert [m["role"] for m in s.history] == ["system"]


async def test_a_named_tool_choice_is_sent_as_a_function():
    s = session(ANSWER, tool_choice="get_reservation_details")
    events = await run_turn(s, "hi")
    choice = of_type(events, RequestSent)[0].params["tool_choice"]
    assert choice == {"type": "function", "function": {"name": "get_reservation_details"}}
