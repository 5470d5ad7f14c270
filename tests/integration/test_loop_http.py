"""The loop through the real `openai` client against a Chat Completions server on loopback.

Each test checks the events and that the history sent in the next request is valid.
"""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from airline_agent.agent.events import (
    ApprovalRequested,
    AssistantMessage,
    ErrorOccurred,
    LimitReached,
    ReasoningDelta,
    RetryScheduled,
    TextDelta,
    ToolCallDelta,
    ToolFinished,
    TurnFinished,
    Usage,
    UsageReported,
)
from airline_agent.agent.history import problems
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.chat_server import LLAMA_DIR, ChatServer
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox
from tests.support.loopback import loopback_backend

LOOKUP = ("get_reservation_details", {"reservation_id": "EHGLP3"})
ANSWER = "EHGLP3 is a basic economy trip from PHX to JFK."


pytestmark = pytest.mark.usefixtures("closing_loopback_backends")


def make_session(
    server: ChatServer, *, timeout: float = 5.0, model: str = "gpt-4o-mini", **options
) -> AgentSession:
    backend = loopback_backend(server.url, model=model, timeout=timeout, api_key="test-key")
    options.setdefault("retry_base_delay", 0.01)
    return AgentSession(backend, FakeToolbox(), LoopOptions(**options))


def reply(server: ChatServer, streamed: bool, *args, **kwargs) -> None:
    (server.stream if streamed else server.completion)(*args, **kwargs)


def assert_every_request_valid(server: ChatServer) -> None:
    for body in server.requests:
        assert problems(body["messages"]) == []


def needs_captures() -> None:
    if not (LLAMA_DIR / "01-tools-auto.resp.txt").is_file():
        pytest.skip(f"llama-server captures not found in {LLAMA_DIR}")


@pytest.mark.parametrize("streamed", [True, False], ids=["stream", "json"])
async def test_one_tool_call_then_an_answer(chat_server, streamed):
    reply(chat_server, streamed, tool_calls=[LOOKUP], usage=(300, 20, 100))
    reply(chat_server, streamed, ANSWER, usage=(400, 15))
    s = make_session(chat_server, stream=streamed)
    events = await run_turn(s, "Look up EHGLP3 please")
    assert [(e.name, e.error) for e in of_type(events, ToolFinished)] == [
        ("get_reservation_details", None)
    ]
    assert of_type(events, AssistantMessage)[-1].content == ANSWER
    usages = [e.usage for e in of_type(events, UsageReported)]
    assert usages == [Usage(300, 20, 100), Usage(400, 15)]  # never zero when streamed
    assert all(e.cost is not None and e.cost > 0 for e in of_type(events, UsageReported))
    assert of_type(events, TurnFinished)[0].reason == "answered"
    second = chat_server.requests[1]
    assert second["messages"][-1]["role"] == "tool"
    assert second["messages"][-1]["tool_call_id"] == "call_1"
    assert second["model"] == "gpt-4o-mini"
    if streamed:
        assert second["stream"] is True
        assert second["stream_options"] == {"include_usage": True}
        assert "".join(e.text for e in of_type(events, TextDelta)) == ANSWER
        assert of_type(events, ToolCallDelta)
    assert_every_request_valid(chat_server)


async def test_parallel_calls(chat_server):
    chat_server.stream(
        tool_calls=[LOOKUP, ("get_user_details", {"user_id": "emma_kim_9957"})],
    )
    chat_server.stream(ANSWER)
    s = make_session(chat_server, parallel_tool_calls=True)
    events = await run_turn(s, "EHGLP3, user emma_kim_9957")
    assert [e.name for e in of_type(events, ToolFinished)] == [
        "get_reservation_details",
        "get_user_details",
    ]
    assert chat_server.requests[0]["parallel_tool_calls"] is True
    tool_ids = [
        m["tool_call_id"] for m in chat_server.requests[1]["messages"] if m["role"] == "tool"
    ]
    assert tool_ids == ["call_1", "call_2"]
    assert_every_request_valid(chat_server)


async def test_malformed_arguments(chat_server):
    chat_server.completion(
        tool_calls=[("get_reservation_details", '{"reservation_id": "12345')],
        finish_reason="length",
    )
    chat_server.completion("Which reservation do you mean?")
    s = make_session(chat_server, stream=False)
    events = await run_turn(s, "cancel it")
    assert of_type(events, ToolFinished)[0].error == "INVALID_ARGUMENTS"
    sent = chat_server.requests[1]["messages"]
    assert sent[2]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert json.loads(sent[3]["content"])["error"] == "INVALID_ARGUMENTS"
    assert s.toolbox.calls == []
    assert_every_request_valid(chat_server)


async def test_unknown_tool(chat_server):
    chat_server.stream(tool_calls=[("book_a_spaceship", {})])
    chat_server.stream("I cannot do that.")
    s = make_session(chat_server)
    events = await run_turn(s, "a spaceship please")
    assert of_type(events, ToolFinished)[0].error == "UNKNOWN_TOOL"
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert_every_request_valid(chat_server)


async def test_the_tool_call_limit(chat_server):
    chat_server.stream(tool_calls=[LOOKUP, LOOKUP, LOOKUP])
    chat_server.stream(tool_calls=[LOOKUP])
    s = make_session(chat_server, max_tool_calls=2)
    events = await run_turn(s, "again and again")
    assert [e.error for e in of_type(events, ToolFinished)] == [
        None,
        None,
        "TOOL_CALL_LIMIT_EXCEEDED",
        "TOOL_CALL_LIMIT_EXCEEDED",
    ]
    assert [e.kind for e in of_type(events, LimitReached)] == ["tool_calls", "tool_calls"]
    assert of_type(events, TurnFinished)[0].reason == "tool_call_limit"
    last = chat_server.requests[1]["messages"][-1]
    assert json.loads(last["content"])["error"] == "TOOL_CALL_LIMIT_EXCEEDED"
    assert problems(s.history) == []
    assert_every_request_valid(chat_server)


async def test_finish_reason_length_with_complete_calls_runs_them(chat_server):
    needs_captures()
    chat_server.capture("01-tools-auto")
    chat_server.completion(ANSWER)
    s = make_session(chat_server, stream=False, model="gemma-3-270m")
    events = await run_turn(s, "Hi, I need to cancel my reservation EHGLP3.")
    assert of_type(events, AssistantMessage)[0].finish_reason == "length"
    finished = of_type(events, ToolFinished)
    assert [(e.call_id, e.error) for e in finished] == [
        ("x7BTQ99PaYqNXOmlswz04cBB1zckVoDA", None),
        ("ap3s4csn8LC5ai4ndaNcSM66bW5G55he", None),
    ]
    first = of_type(events, UsageReported)[0]
    assert first.usage == Usage(457, 64, 0) and first.cost is None  # unknown model
    assert_every_request_valid(chat_server)


async def test_429_then_success(chat_server):
    chat_server.error(429, "Rate limit reached", type="requests", headers={"retry-after": "0.05"})
    chat_server.stream(ANSWER)
    s = make_session(chat_server)
    events = await run_turn(s, "hello")
    [retry] = of_type(events, RetryScheduled)
    assert retry.attempt == 1 and retry.delay_s == 0.05
    assert "429" in retry.reason
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert chat_server.requests[0] == chat_server.requests[1]  # the same request again
    assert_every_request_valid(chat_server)


async def test_500_is_retried_then_reported(chat_server):
    for _ in range(2):
        chat_server.error(500, "boom", type="server_error")
    s = make_session(chat_server, retries=1)
    events = await run_turn(s, "hello")
    assert len(of_type(events, RetryScheduled)) == 1
    [error] = of_type(events, ErrorOccurred)
    assert (error.kind, error.status) == ("server", 500)
    assert "boom" in error.message and error.hint
    assert of_type(events, TurnFinished)[0].reason == "error"
    # The turn can be sent again as is.
    assert [m["role"] for m in s.history] == ["system"]
    chat_server.stream(ANSWER)
    events = await run_turn(s, "hello")
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert chat_server.requests[-1]["messages"] == chat_server.requests[0]["messages"]


async def test_a_timeout(chat_server):
    chat_server.completion(ANSWER, delay=3)
    s = make_session(chat_server, timeout=0.3, retries=0)
    events = await run_turn(s, "hello")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "timeout"
    assert "did not answer in time" in error.message
    assert problems(s.history) == []


async def test_a_stream_cut_off_midway_is_retried(chat_server):
    chat_server.stream(ANSWER, cut_after=300)
    chat_server.stream(ANSWER)
    s = make_session(chat_server)
    events = await run_turn(s, "hello")
    [retry] = of_type(events, RetryScheduled)
    assert "cut off" in retry.reason
    assert of_type(events, AssistantMessage)[-1].content == ANSWER
    assert_every_request_valid(chat_server)


async def test_a_stream_cut_off_without_retries_is_an_error(chat_server):
    chat_server.stream(tool_calls=[LOOKUP], cut_after=400)
    s = make_session(chat_server, retries=0)
    events = await run_turn(s, "hello")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "stream_cut"
    assert not of_type(events, ToolFinished)  # nothing of a half reply runs
    assert problems(s.history) == []


async def test_a_stream_that_ends_without_finishing_is_cut_off(chat_server):
    body = b'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n'
    chat_server.raw(body, content_type="text/event-stream")
    s = make_session(chat_server, retries=0)
    events = await run_turn(s, "hello")
    assert of_type(events, ErrorOccurred)[0].kind == "stream_cut"


@pytest.mark.parametrize("accept", [True, False], ids=["accepted", "declined"])
async def test_approval(chat_server, accept):
    chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
    chat_server.stream("Done." if accept else "Nothing was changed.")
    s = make_session(chat_server, approval="ask")
    events = await run_turn(s, "cancel EHGLP3", approve=lambda event: accept)
    [asked] = of_type(events, ApprovalRequested)
    assert asked.calls[0].name == "cancel_reservation"
    finished = of_type(events, ToolFinished)[0]
    if accept:
        assert finished.error is None and len(s.toolbox.writes) == 1
    else:
        assert finished.error == "PERMISSION_DENIED" and s.toolbox.writes == []
        assert (
            "declined" in json.loads(chat_server.requests[1]["messages"][-1]["content"])["message"]
        )
    assert_every_request_valid(chat_server)


# -- the llama-server captures, served byte for byte ---------------------------------------


async def test_capture_02_streamed_calls_and_usage(chat_server):
    needs_captures()
    chat_server.capture("02-tools-auto-stream")
    chat_server.stream(ANSWER)
    s = make_session(chat_server, model="gemma-3-270m")
    events = await run_turn(s, "Hi, I need to cancel my reservation EHGLP3.")
    assert len(of_type(events, ToolFinished)) == 2
    assert of_type(events, UsageReported)[0].usage == Usage(457, 64, 452)
    assert of_type(events, UsageReported)[0].cost is None
    assert_every_request_valid(chat_server)


async def test_capture_03_the_turn_after_a_tool_result(chat_server):
    needs_captures()
    chat_server.completion(tool_calls=[LOOKUP])
    chat_server.capture("03-tool-result-turn")
    s = make_session(chat_server, stream=False, model="gemma-3-270m")
    events = await run_turn(s, "Hi, I need to cancel my reservation EHGLP3.")
    final = of_type(events, AssistantMessage)[-1]
    assert final.finish_reason == "length" and final.content.startswith("It is 14:05")
    assert of_type(events, UsageReported)[-1].usage == Usage(548, 64, 452)
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert_every_request_valid(chat_server)


async def test_capture_04_a_stream_without_usage_says_unknown(chat_server):
    needs_captures()
    chat_server.capture("04-plain-stream-no-usage")
    s = make_session(chat_server, model="gemma-3-270m")
    events = await run_turn(s, "Hi")
    [usage] = of_type(events, UsageReported)
    assert usage.usage is None and usage.cost is None
    assert of_type(events, TurnFinished)[0].reason == "answered"


async def test_capture_05_a_500_about_invalid_arguments(chat_server):
    needs_captures()
    chat_server.completion(tool_calls=[("get_reservation_details", '{"reservation_id": "12345')])
    chat_server.capture("05-invalid-args-echo")
    s = make_session(chat_server, stream=False, retries=0)
    events = await run_turn(s, "cancel")
    [error] = of_type(events, ErrorOccurred)
    assert error.status == 500 and "Failed to parse tool call arguments" in error.message
    # What we sent was valid: the broken arguments were replaced before being sent.
    assert_every_request_valid(chat_server)
    assert problems(s.history) == []


async def test_capture_06_a_400_for_a_bad_body(chat_server):
    needs_captures()
    chat_server.capture("06-unknown-model-and-bad-body")
    s = make_session(chat_server)
    events = await run_turn(s, "hi")
    [error] = of_type(events, ErrorOccurred)
    assert (error.kind, error.status) == ("bad_request", 400)
    assert "Expected 'messages' to be an array" in error.message
    assert not of_type(events, RetryScheduled)


# -- other API failures --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "message", "code", "kind"),
    [
        (401, "Incorrect API key provided", "invalid_api_key", "auth"),
        (404, "The model `gpt-9` does not exist", "model_not_found", "not_found"),
        (
            400,
            "This model's maximum context length is 128000 tokens",
            "context_length_exceeded",
            "context_length",
        ),
    ],
)
async def test_client_errors_are_explained_and_not_retried(
    chat_server, status, message, code, kind
):
    chat_server.error(status, message, code=code)
    s = make_session(chat_server)
    events = await run_turn(s, "hi")
    [error] = of_type(events, ErrorOccurred)
    assert (error.kind, error.status) == (kind, status)
    assert error.hint
    assert not of_type(events, RetryScheduled)
    assert problems(s.history) == []


async def test_a_body_that_is_not_a_completion(chat_server):
    chat_server.raw("<html><body>It works!</body></html>", content_type="text/html")
    s = make_session(chat_server, stream=False)
    events = await run_turn(s, "hi")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "bad_response"
    assert "/v1" in error.hint


async def test_connection_refused():
    # A port bound and never listened on refuses connections, and stays ours for the
    # whole test: no other test or process can start listening on it meanwhile.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        url = f"http://127.0.0.1:{port}/v1"
        backend = loopback_backend(url, model="m", timeout=2, api_key=None)
        s = AgentSession(backend, FakeToolbox(), LoopOptions(retries=1, retry_base_delay=0.01))
        events = await run_turn(s, "hi")
    assert len(of_type(events, RetryScheduled)) == 1
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "connection" and "OPENAI_BASE_URL" in error.hint
    assert [m["role"] for m in s.history] == ["system"]


async def test_a_local_server_needs_no_real_key(chat_server):
    chat_server.completion("hi")
    backend = loopback_backend(chat_server.url, model="llama3", api_key=None)
    s = AgentSession(backend, FakeToolbox(), LoopOptions(stream=False))
    events = await run_turn(s, "hi")
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert chat_server.headers[0]["authorization"].startswith("Bearer ")


async def test_streamed_reasoning_is_shown_and_not_sent_back(chat_server):
    chat_server.stream(tool_calls=[LOOKUP], reasoning="The customer wants EHGLP3 looked up.")
    chat_server.stream(ANSWER)
    s = make_session(chat_server)
    events = await run_turn(s, "EHGLP3?")
    deltas = "".join(e.text for e in of_type(events, ReasoningDelta))
    assert deltas == "The customer wants EHGLP3 looked up."
    assert of_type(events, AssistantMessage)[0].reasoning == deltas
    assert all("reasoning_content" not in m for m in chat_server.requests[1]["messages"])


async def test_cancelling_a_turn_waiting_on_the_server_then_sending_it_again(chat_server):
    chat_server.completion(ANSWER, delay=10)
    s = make_session(chat_server, stream=False)

    async def consume():
        async for _ in s.run_turn("hello"):
            pass

    task = asyncio.create_task(consume())
    while not chat_server.requests:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert problems(s.history) == [] and [m["role"] for m in s.history] == ["system"]
    chat_server.completion(ANSWER)
    events = await run_turn(s, "hello")
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert chat_server.requests[1]["messages"] == chat_server.requests[0]["messages"]
