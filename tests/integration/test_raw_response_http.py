"""What a real server sent, kept as it came: through the `openai` client against the
loopback server, the completion body and every SSE chunk, in order."""

from __future__ import annotations

import json

import pytest
from openai.types.chat import ChatCompletion

from airline_agent.agent.events import AgentEvent, AssistantMessage, UsageReported
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.agent.openai_backends import OpenAIBackend
from tests.support.chat_server import LLAMA_DIR, ChatServer, completion_body, stream_body
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox

LOOKUP = ("get_reservation_details", {"reservation_id": "EHGLP3"})


def sse_chunks(body: bytes) -> list[dict]:
    """Each `data:` line's JSON, in order, as the server wrote them (without `[DONE]`)."""
    lines = [line[6:] for line in body.decode().splitlines() if line.startswith("data: ")]
    return [json.loads(line) for line in lines if line != "[DONE]"]


async def _events(server: ChatServer, *, stream: bool) -> list[AgentEvent]:
    backend = OpenAIBackend(model="gemma-3-270m", base_url=server.url, api_key="test-key")
    try:
        session = AgentSession(backend, FakeToolbox(), LoopOptions(stream=stream, retries=0))
        return await run_turn(session, "Hi, I need to cancel my reservation EHGLP3.")
    finally:
        await backend.aclose()


async def _messages(server: ChatServer, *, stream: bool) -> list[AssistantMessage]:
    return of_type(await _events(server, stream=stream), AssistantMessage)


def _capture(name: str) -> bytes:
    path = LLAMA_DIR / f"{name}.resp.txt"
    if not path.is_file():
        pytest.skip(f"llama-server captures not found in {LLAMA_DIR}")
    return path.read_bytes()


async def test_a_live_stream_keeps_every_chunk_the_server_sent_in_order(chat_server):
    sent = _capture("02-tools-auto-stream")
    chat_server.capture("02-tools-auto-stream")
    chat_server.completion("I found it.")  # the turn's second request
    first = (await _messages(chat_server, stream=True))[0]
    raw = first.raw
    assert raw is not None and (raw.kind, raw.generated) == ("stream", False)
    assert list(raw.chunks) == sse_chunks(sent)  # every chunk, in order, fields and all
    assert len(raw.chunks) == 29  # the capture: 28 deltas and the usage chunk
    assert raw.as_json()["chunks"] == sse_chunks(sent)
    assembled = ChatCompletion.model_validate(raw.assembled)
    assert assembled.id == "chatcmpl-xZT72ccynD9JYbGpsmXIOfX1XtT53VIM"
    assert assembled.choices[0].finish_reason == "length"
    calls = raw.assembled["choices"][0]["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [
        {"reservation_id": "EHGLP3"}
    ] * 2
    assert raw.assembled["usage"]["prompt_tokens_details"]["cached_tokens"] == 452


async def test_a_live_stream_with_reasoning_keeps_its_chunks(chat_server):
    body = stream_body(tool_calls=[LOOKUP], reasoning="Look it up before answering.")
    chat_server.raw(body, content_type="text/event-stream")
    chat_server.stream("It cannot be cancelled.", usage=(400, 12))
    messages = await _messages(chat_server, stream=True)
    first, second = (message.raw for message in messages)
    assert first is not None and list(first.chunks) == sse_chunks(body)
    assert messages[0].reasoning == "Look it up before answering."
    assert second is not None and second.chunks[-1]["usage"]["prompt_tokens"] == 400


async def test_a_live_completion_is_the_body_the_server_sent(chat_server):
    sent = json.loads(_capture("01-tools-auto"))
    chat_server.capture("01-tools-auto")
    chat_server.json(completion_body("I found it."))
    first = (await _messages(chat_server, stream=False))[0]
    raw = first.raw
    assert raw is not None and (raw.kind, raw.generated, raw.chunks) == ("completion", False, ())
    assert raw.completion == sent  # llama.cpp's extra fields (timings, fingerprint) included
    assert raw.as_json() == sent  # a server's body is shown as it is, unwrapped


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
async def test_a_live_reply_is_not_scripted(chat_server, stream):
    (chat_server.stream if stream else chat_server.completion)("Hello.")
    events = await _events(chat_server, stream=stream)
    assert [m.scripted for m in of_type(events, AssistantMessage)] == [False]
    assert [u.scripted for u in of_type(events, UsageReported)] == [False]
