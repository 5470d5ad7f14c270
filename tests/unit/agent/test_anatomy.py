"""The articles' table for one request: STEP A (the request as it is built, the developer's
parts first) and STEP B (what came back), each part with who produced it."""

from __future__ import annotations

from airline_agent.agent.anatomy import Part, request_anatomy
from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
from airline_agent.agent.events import (
    AgentEvent,
    AssistantMessage,
    RequestSent,
    Usage,
    UsageReported,
)
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.agent.raw_response import RawResponse
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox

LOOKUP = ScriptedToolCall("get_reservation_details", {"reservation_id": "EHGLP3"}, "call_1")
THOUGHT = "Look the reservation up before deciding anything."
TOOL_ROUND = ScriptedResponse(
    content="",
    tool_calls=(LOOKUP,),
    reasoning=THOUGHT,
    usage=Usage(2874, 121, cached_tokens=2560, reasoning_tokens=100),
)
ANSWER = ScriptedResponse(content="EHGLP3 cannot be cancelled.", usage=Usage(3211, 118, 2816))
CUSTOMER = "Hi, I need to cancel my reservation EHGLP3."


async def _round(*responses: ScriptedResponse, **options) -> list[AgentEvent]:
    backend = ScriptedBackend(responses, model="qwen3.6-plus")
    session = AgentSession(backend, FakeToolbox(), LoopOptions(temperature=0, **options))
    return await run_turn(session, CUSTOMER)


def _anatomy(events: list[AgentEvent], request: int) -> list[Part]:
    sent = of_type(events, RequestSent)
    answers = {m.request: m for m in of_type(events, AssistantMessage)}
    usages = {u.request: u for u in of_type(events, UsageReported)}
    later = next((s for s in sent if s.request == request + 1), None)
    this = next(s for s in sent if s.request == request)
    return request_anatomy(this, answers.get(request), usages.get(request), next_request=later)


def _rows(parts: list[Part], step: str) -> list[tuple[str, str]]:
    return [(p.producer, p.name) for p in parts if p.step == step]


async def test_step_a_lists_the_developers_parts_before_the_customers_message():
    parts = _anatomy(await _round(TOOL_ROUND, ANSWER), 1)
    assert _rows(parts, "A") == [
        ("developer", "system prompt"),
        ("developer", "tools"),
        ("developer", "model"),
        ("developer", "tool_choice"),
        ("developer", "temperature"),
        ("developer", "stream"),
        ("developer", "stream_options"),
        ("customer", "customer message"),
    ]
    by_name = {p.name: p for p in parts if p.step == "A"}
    assert by_name["system prompt"].path == "messages[0]"
    assert by_name["tools"].summary.startswith("4 tool schemas: get_user_details")
    assert by_name["tool_choice"].summary == '"auto"'
    assert (by_name["customer message"].path, by_name["customer message"].summary) == (
        "messages[1]",
        CUSTOMER,
    )
    # STEP B only after all of STEP A.
    steps = [p.step for p in parts]
    assert steps == sorted(steps)


async def test_step_b_of_the_tool_round_is_the_models_and_the_apis():
    parts = _anatomy(await _round(TOOL_ROUND, ANSWER), 1)
    assert _rows(parts, "B") == [
        ("model", "reasoning_content"),
        ("model", "content"),
        ("model", "tool call"),
        ("api", "id"),
        ("api", "model"),
        ("api", "finish_reason"),
        ("api", "usage"),
    ]
    b = {p.name: p for p in parts if p.step == "B"}
    assert b["reasoning_content"].summary == THOUGHT
    assert "not sent back: request #2's messages leave it out" in b["reasoning_content"].note
    assert b["content"].summary == "empty: the model only calls tools"
    call = b["tool call"]
    assert call.call_id == "call_1"
    assert call.summary == 'get_reservation_details({"reservation_id": "EHGLP3"})'
    assert call.path == "choices[0].message.tool_calls[0]"
    assert b["id"].summary == "chatcmpl-scripted-1"
    assert b["finish_reason"].summary == "tool_calls"
    assert b["usage"].summary == (
        "2,874 prompt (2,560 cached) · 121 completion (100 reasoning) · 2,995 total"
    )
    assert all("scripted" in p.note for p in parts if p.step == "B")  # offline, said so
    assert not any("scripted" in p.note for p in parts if p.step == "A")


async def test_the_next_request_links_the_call_and_its_result_by_tool_call_id():
    parts = _anatomy(await _round(TOOL_ROUND, ANSWER), 2)
    assert _rows(parts, "A")[-3:] == [
        ("customer", "customer message"),
        ("model", "tool call"),
        ("framework", "tool result"),
    ]
    call, result = [p for p in parts if p.step == "A"][-2:]
    assert call.call_id == result.call_id == "call_1"
    assert (call.path, result.path) == ("messages[2].tool_calls[0]", "messages[3]")
    assert result.summary.startswith('{"reservation_id": "EHGLP3"')
    # Not sent back: no reasoning among the parts of the request.
    assert "reasoning_content" not in [p.name for p in parts if p.step == "A"]
    final = {p.name: p for p in parts if p.step == "B"}
    assert final["finish_reason"].summary == "stop"
    assert "content" in final and "tool call" not in final


async def test_reasoning_sent_back_is_shown_as_sent_back():
    events = await _round(TOOL_ROUND, ANSWER, send_reasoning=True)
    first = {p.name: p for p in _anatomy(events, 1) if p.step == "B"}
    assert first["reasoning_content"].note.startswith("shown, and sent back in request #2")
    echoed = [p for p in _anatomy(events, 2) if p.step == "A" and p.producer == "model"]
    assert [p.name for p in echoed] == ["reasoning_content", "tool call"]


async def test_limit_and_error_results_are_the_frameworks():
    over = ScriptedResponse(
        tool_calls=(
            LOOKUP,
            ScriptedToolCall("get_reservation_details", {"reservation_id": "NOPE00"}, "call_2"),
            ScriptedToolCall("get_reservation_details", {"reservation_id": "EHGLP3"}, "call_3"),
        )
    )
    events = await _round(over, ANSWER, max_tool_calls=2)
    results = [p for p in _anatomy(events, 2) if p.step == "A" and p.producer == "framework"]
    assert [(p.name, p.call_id) for p in results] == [
        ("tool result", "call_1"),
        ("error result · NOT_FOUND", "call_2"),
        ("limit result", "call_3"),
    ]
    assert "limit" in results[2].note


def test_a_live_answer_without_usage_says_so_and_is_not_marked_scripted():
    sent = RequestSent(1, 1, "gemma-3-270m", [{"role": "user", "content": "Hi"}], [], {})
    body = {"id": "chatcmpl-live", "object": "chat.completion", "model": "gemma-3-270m"}
    raw = RawResponse.of_completion(body)
    answer = AssistantMessage(1, "Hello.", (), None, "length", 12.0, raw)
    parts = request_anatomy(sent, answer, None)
    assert _rows(parts, "A") == [("developer", "model"), ("customer", "customer message")]
    b = {p.name: p for p in parts if p.step == "B"}
    assert b["id"].summary == "chatcmpl-live"
    assert b["finish_reason"].note == "cut off by max_tokens"
    assert b["usage"].summary == "not reported by the server"
    assert not any(p.note.endswith("(scripted)") or p.note == "scripted" for p in parts)
