"""The loop on the Responses API (`--api responses`), through the real `openai` client
(`client.responses.create`) against a loopback server that speaks it, JSON and SSE.

Each test checks the events and that the history stays a valid Responses input: every
body the server received, and the body of the request that would come next.
"""

from __future__ import annotations

import json

import pytest

from airline_agent.agent import responses_wire
from airline_agent.agent.events import (
    AssistantMessage,
    ErrorOccurred,
    ReasoningDelta,
    RequestSent,
    RetryScheduled,
    TextDelta,
    ToolCallDelta,
    ToolFinished,
    TurnFinished,
    Usage,
    UsageReported,
)
from airline_agent.agent.history import problems as history_problems
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox
from tests.support.loopback import loopback_backend
from tests.support.responses_server import ResponsesServer

LOOKUP = ("get_reservation_details", {"reservation_id": "EHGLP3"})
USER = ("get_user_details", {"user_id": "emma_kim_9957"})
ANSWER = "EHGLP3 is a basic economy trip from PHX to JFK."

pytestmark = pytest.mark.usefixtures("closing_loopback_backends")


def make_session(server: ResponsesServer, **options) -> AgentSession:
    backend = loopback_backend(server.url, api_key="test-key", timeout=5.0, api="responses")
    options.setdefault("retry_base_delay", 0.01)
    return AgentSession(backend, FakeToolbox(), LoopOptions(**options))


def answer(server: ResponsesServer, streamed: bool, *args, **kwargs) -> None:
    (server.events if streamed else server.response)(*args, **kwargs)


def assert_history_valid(server: ResponsesServer, session: AgentSession) -> None:
    """Every input sent, and the next one, is a valid Responses input; the loop's own
    history a valid Chat Completions one."""
    for body in server.requests:
        assert responses_wire.problems(body["input"]) == []
    assert responses_wire.problems(session.request_body()["input"]) == []
    assert history_problems(session.history) == []


@pytest.mark.parametrize("streamed", [True, False], ids=["sse", "json"])
async def test_a_conversation_with_a_tool_call(responses_server, streamed):
    answer(responses_server, streamed, tool_calls=[LOOKUP], usage=(300, 20, 100))
    answer(responses_server, streamed, ANSWER, usage=(400, 15))
    session = make_session(responses_server, stream=streamed)
    events = await run_turn(session, "Look up EHGLP3 please")
    assert responses_server.paths == ["/v1/responses", "/v1/responses"]
    assert [(e.name, e.error) for e in of_type(events, ToolFinished)] == [
        ("get_reservation_details", None)
    ]
    first, last = of_type(events, AssistantMessage)
    assert (first.finish_reason, [c.call_id for c in first.tool_calls]) == (
        "tool_calls",
        ["call_1"],
    )
    assert (last.content, last.finish_reason) == (ANSWER, "stop")
    usages = [e.usage for e in of_type(events, UsageReported)]
    assert usages == [Usage(300, 20, 100), Usage(400, 15)]  # input/output tokens, cached
    assert all(e.cost is not None and e.cost > 0 for e in of_type(events, UsageReported))
    assert of_type(events, TurnFinished)[0].reason == "answered"
    opening, second = responses_server.requests
    # The Responses body: instructions, input items, flat function tools (never strict).
    assert opening["model"] == "gpt-4o-mini" and opening["instructions"]
    assert opening["input"] == [
        {"type": "message", "role": "user", "content": "Look up EHGLP3 please"}
    ]
    assert {tool["type"] for tool in opening["tools"]} == {"function"}
    assert all(tool["strict"] is False and "function" not in tool for tool in opening["tools"])
    # The call answered by its call_id: function_call, then function_call_output.
    call, output = second["input"][-2:]
    assert (call["type"], call["call_id"], call["name"]) == (
        "function_call",
        "call_1",
        "get_reservation_details",
    )
    assert (output["type"], output["call_id"]) == ("function_call_output", "call_1")
    assert json.loads(output["output"])["reservation_id"] == "EHGLP3"
    if streamed:
        assert second["stream"] is True and "stream_options" not in second
        assert "".join(e.text for e in of_type(events, TextDelta)) == ANSWER
        deltas = of_type(events, ToolCallDelta)
        assert deltas[0].call_id == "call_1" and deltas[0].name == "get_reservation_details"
        assert "".join(d.arguments for d in deltas) == json.dumps(LOOKUP[1])
    sent = of_type(events, RequestSent)
    assert [s.body for s in sent] == responses_server.requests  # the exact bodies, on events
    assert_history_valid(responses_server, session)


@pytest.mark.parametrize("streamed", [True, False], ids=["sse", "json"])
async def test_parallel_calls_are_answered_by_call_id_in_order(responses_server, streamed):
    answer(responses_server, streamed, tool_calls=[LOOKUP, USER])
    answer(responses_server, streamed, ANSWER)
    session = make_session(responses_server, stream=streamed, parallel_tool_calls=True)
    events = await run_turn(session, "EHGLP3, user emma_kim_9957")
    assert [e.name for e in of_type(events, ToolFinished)] == [
        "get_reservation_details",
        "get_user_details",
    ]
    assert responses_server.requests[0]["parallel_tool_calls"] is True
    items = responses_server.requests[1]["input"]
    kinds = [(item.get("type", "message"), item.get("call_id")) for item in items[1:]]
    assert kinds == [
        ("function_call", "call_1"),
        ("function_call", "call_2"),
        ("function_call_output", "call_1"),
        ("function_call_output", "call_2"),
    ]
    assert_history_valid(responses_server, session)


@pytest.mark.parametrize("streamed", [True, False], ids=["sse", "json"])
async def test_a_reasoning_item_goes_back_before_the_call_it_led_to(responses_server, streamed):
    thought = "The customer gave a reservation id: look it up before saying anything."
    answer(
        responses_server,
        streamed,
        tool_calls=[LOOKUP],
        reasoning=thought,
        encrypted="gAAAAB-opaque-state",
        usage=(300, 60, 0, 40),
    )
    answer(responses_server, streamed, ANSWER)
    session = make_session(responses_server, stream=streamed)
    events = await run_turn(session, "Look up EHGLP3")
    message = of_type(events, AssistantMessage)[0]
    assert message.reasoning == thought
    assert of_type(events, UsageReported)[0].usage == Usage(300, 60, 0, 40)
    if streamed:
        assert "".join(e.text for e in of_type(events, ReasoningDelta)) == thought
    items = responses_server.requests[1]["input"]
    reasoning = items[1]
    assert reasoning == {
        "type": "reasoning",
        "id": "rs_test_1",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": thought}],
        "encrypted_content": "gAAAAB-opaque-state",  # the model's state, as it came
    }
    assert items[2]["type"] == "function_call" and items[2]["call_id"] == "call_1"
    # The trace's part: the request says which reasoning went back.
    assert responses_wire.reasoning_sent_back(responses_server.requests[1]) == [(1, "rs_test_1")]
    assert_history_valid(responses_server, session)


async def test_a_reasoning_item_without_an_id_is_dropped(responses_server):
    body_with_no_id = {
        "id": "resp_x",
        "object": "response",
        "status": "completed",
        "model": "test-model",
        "output": [
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Look it up."}]},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_a",
                "name": "get_reservation_details",
                "arguments": '{"reservation_id": "EHGLP3"}',
            },
        ],
    }
    responses_server.json(body_with_no_id)
    responses_server.response(ANSWER)
    session = make_session(responses_server, stream=False)
    events = await run_turn(session, "EHGLP3?")
    assert of_type(events, AssistantMessage)[0].reasoning == "Look it up."  # shown
    items = responses_server.requests[1]["input"]
    assert [item.get("type", "message") for item in items] == [
        "message",
        "function_call",
        "function_call_output",
    ]  # not sent back: the API takes no reasoning item without its id
    assert_history_valid(responses_server, session)


@pytest.mark.parametrize("streamed", [True, False], ids=["sse", "json"])
async def test_an_incomplete_response_is_cut_at_max_tokens(responses_server, streamed):
    answer(
        responses_server,
        streamed,
        tool_calls=[("get_reservation_details", '{"reservation_id": "EHG')],
        status="incomplete",
    )
    answer(responses_server, streamed, "Which reservation do you mean?")
    session = make_session(responses_server, stream=streamed, max_tokens=16)
    events = await run_turn(session, "cancel it")
    assert responses_server.requests[0]["max_output_tokens"] == 16
    cut = of_type(events, AssistantMessage)[0]
    assert cut.finish_reason == "length"  # as Chat Completions says it
    assert of_type(events, ToolFinished)[0].error == "INVALID_ARGUMENTS"
    call, output = responses_server.requests[1]["input"][-2:]
    assert call["arguments"] == "{}"  # never the cut arguments again
    assert json.loads(output["output"])["error"] == "INVALID_ARGUMENTS"
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert_history_valid(responses_server, session)


async def test_an_incomplete_text_reply_ends_the_turn_as_a_cut_reply(responses_server):
    responses_server.events("EHGLP3 is a basic", status="incomplete")
    session = make_session(responses_server, max_tokens=5)
    events = await run_turn(session, "EHGLP3?")
    message = of_type(events, AssistantMessage)[0]
    assert (message.content, message.finish_reason) == ("EHGLP3 is a basic", "length")
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert_history_valid(responses_server, session)


@pytest.mark.parametrize("streamed", [True, False], ids=["sse", "json"])
async def test_a_server_without_v1_responses_is_said_so(responses_server, streamed):
    responses_server.missing()
    session = make_session(responses_server, stream=streamed)
    before = session.request_body
    events = await run_turn(session, "hello")
    [error] = of_type(events, ErrorOccurred)
    assert (error.kind, error.status) == ("not_found", 404)
    assert "does not serve the Responses API" in error.message
    assert "/responses answered 404 (File Not Found)" in error.message
    assert "--api chat" in (error.hint or "")
    assert of_type(events, TurnFinished)[0].reason == "error"
    assert not of_type(events, RetryScheduled)  # a missing endpoint is not retried
    # The customer's message is taken back: the same request can be sent again as it was.
    assert session.history == [session.history[0]]
    assert before() == session.request_body()
    assert_history_valid(responses_server, session)


async def test_a_fastapi_servers_404_is_said_with_its_detail(responses_server):
    responses_server.json({"detail": "Not Found"}, status=404)
    session = make_session(responses_server, stream=False)
    events = await run_turn(session, "hello")
    [error] = of_type(events, ErrorOccurred)
    assert "does not serve the Responses API" in error.message
    assert "answered 404 (Not Found)" in error.message


async def test_a_404_about_the_model_says_the_model(responses_server):
    responses_server.error(
        404,
        "The model `gpt-9` does not exist or you do not have access to it.",
        code="model_not_found",
    )
    session = make_session(responses_server, stream=False)
    events = await run_turn(session, "hello")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "not_found" and "does not know model" in error.message


@pytest.mark.parametrize("streamed", [True, False], ids=["sse", "json"])
async def test_a_failed_response_is_a_server_failure_retried(responses_server, streamed):
    responses_server.failed("server_error", "The model crashed.", streamed=streamed)
    answer(responses_server, streamed, ANSWER)
    session = make_session(responses_server, stream=streamed)
    events = await run_turn(session, "hello")
    [retry] = of_type(events, RetryScheduled)
    assert (
        retry.reason
        == "The model server failed (response failed: server_error): The model crashed."
    )
    assert of_type(events, AssistantMessage)[0].content == ANSWER
    assert_history_valid(responses_server, session)


async def test_a_failed_response_of_a_bad_request_is_not_retried(responses_server):
    responses_server.failed("invalid_prompt", "The prompt was flagged.")
    session = make_session(responses_server, stream=False)
    events = await run_turn(session, "hello")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "bad_request"
    assert error.message == (
        "The model server rejected the request (response failed: invalid_prompt): "
        "The prompt was flagged."
    )
    assert not of_type(events, RetryScheduled)
    assert_history_valid(responses_server, session)


async def test_an_error_event_mid_stream_is_said_as_chat_says_it(responses_server):
    responses_server.events(ANSWER, error_after=5)
    session = make_session(responses_server, retries=0)
    events = await run_turn(session, "hello")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "api"
    assert error.message == (
        "The model server reported an error: The server had an error while processing your request."
    )
    assert of_type(events, TextDelta)  # what came before it was shown
    assert of_type(events, TurnFinished)[0].reason == "error"
    assert_history_valid(responses_server, session)


async def test_a_stream_that_stops_before_its_last_event_is_cut_off_and_retried(
    responses_server,
):
    responses_server.events(ANSWER, end=False)
    responses_server.events(ANSWER)
    session = make_session(responses_server)
    events = await run_turn(session, "hello")
    [retry] = of_type(events, RetryScheduled)
    assert retry.reason == "The model's streamed answer was cut off before it finished."
    assert of_type(events, AssistantMessage)[0].content == ANSWER
    assert_history_valid(responses_server, session)


async def test_a_chat_completions_server_answer_is_not_taken_for_a_response(responses_server):
    responses_server.json(
        {"object": "chat.completion", "choices": [{"message": {"content": "hi"}}]}
    )
    session = make_session(responses_server, stream=False)
    events = await run_turn(session, "hello")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "bad_response"
    assert error.message.startswith("The server's answer was not a Responses API response")
    assert_history_valid(responses_server, session)


async def test_a_streamed_request_answered_with_one_json_response(responses_server):
    """A server that ignores `stream: true` and sends the response whole."""
    responses_server.response(ANSWER)
    session = make_session(responses_server)
    events = await run_turn(session, "hello")
    assert of_type(events, AssistantMessage)[0].content == ANSWER
    assert_history_valid(responses_server, session)
