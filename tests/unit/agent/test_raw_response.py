"""What came back, in the server's exact shape: offline, generated from the script and
marked so; every generated object is one the `openai` SDK reads as a server's."""

from __future__ import annotations

import json

import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from airline_agent.agent.backends import (
    SCRIPTED_CREATED,
    ScriptedBackend,
    ScriptedResponse,
    ScriptedToolCall,
)
from airline_agent.agent.events import (
    AssistantMessage,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    Usage,
    UsageReported,
)
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.agent.raw_response import GENERATED_BY, RawResponse
from airline_agent.agent.streaming import ModelReply, StreamAssembler
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox

LOOKUP = ScriptedToolCall("get_reservation_details", {"reservation_id": "EHGLP3"}, "call_ehglp3_1")
THOUGHT = "The customer wants to cancel EHGLP3; look the reservation up first."
# The articles' tool-call round: empty content, one call, reasoning, usage with details.
TOOL_ROUND = ScriptedResponse(
    content="",
    tool_calls=(LOOKUP,),
    reasoning=THOUGHT,
    usage=Usage(prompt_tokens=2874, completion_tokens=61, cached_tokens=2560, reasoning_tokens=40),
)
ANSWER = ScriptedResponse(content="EHGLP3 cannot be cancelled.", usage=Usage(3211, 118, 2816, 0))


async def _reply(response: ScriptedResponse, body: dict) -> tuple[list, ModelReply]:
    backend = ScriptedBackend([response], model="qwen3.6-plus")
    items = [item async for item in backend.reply(body)]
    reply = items[-1]
    assert isinstance(reply, ModelReply)
    return items[:-1], reply


async def test_a_scripted_completion_is_a_chat_completion_a_server_would_send():
    pieces, reply = await _reply(TOOL_ROUND, {"messages": []})
    assert pieces == []
    raw = reply.raw
    assert isinstance(raw, RawResponse)
    assert (raw.kind, raw.generated, raw.chunks) == ("completion", True, ())
    body = raw.completion
    assert body is not None and raw.assembled is body
    completion = ChatCompletion.model_validate(body)  # the SDK reads it as a server's
    assert completion.id == "chatcmpl-scripted-1"
    assert completion.object == "chat.completion"
    assert completion.created == SCRIPTED_CREATED
    assert completion.model == "qwen3.6-plus"
    choice = completion.choices[0]
    assert (choice.index, choice.finish_reason) == (0, "tool_calls")
    assert choice.message.role == "assistant" and choice.message.content == ""
    call = body["choices"][0]["message"]["tool_calls"][0]
    assert call["id"] == "call_ehglp3_1" and call["type"] == "function"
    assert call["function"]["arguments"] == '{"reservation_id": "EHGLP3"}'  # JSON text
    assert body["choices"][0]["message"]["reasoning_content"] == THOUGHT
    assert completion.usage is not None
    assert completion.usage.prompt_tokens_details.cached_tokens == 2560
    assert completion.usage.completion_tokens_details.reasoning_tokens == 40
    assert completion.usage.total_tokens == 2874 + 61
    # Read back through the same parser as a server's body.
    assert reply.content == "" and reply.reasoning == THOUGHT
    assert reply.usage == TOOL_ROUND.usage
    assert reply.scripted


async def test_a_generated_completion_is_shown_marked_as_generated():
    _, reply = await _reply(ANSWER, {"messages": []})
    assert reply.raw is not None
    shown = reply.raw.as_json()
    assert shown == {"generated_by": GENERATED_BY, "completion": reply.raw.completion}
    assert shown["completion"]["choices"][0]["finish_reason"] == "stop"
    assert "tool_calls" not in shown["completion"]["choices"][0]["message"]


async def test_a_scripted_stream_is_chunks_a_server_would_send_and_their_assembly():
    body = {"messages": [], "stream": True, "stream_options": {"include_usage": True}}
    pieces, reply = await _reply(TOOL_ROUND, body)
    raw = reply.raw
    assert raw is not None and (raw.kind, raw.generated, raw.completion) == ("stream", True, None)
    chunks = [ChatCompletionChunk.model_validate(chunk) for chunk in raw.chunks]
    assert len(chunks) == 5  # role, reasoning, the call, the finish reason, usage
    assert {c.id for c in chunks} == {"chatcmpl-scripted-1"}
    assert {c.object for c in chunks} == {"chat.completion.chunk"}
    assert raw.chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert raw.chunks[1]["choices"][0]["delta"] == {"reasoning_content": THOUGHT}
    call = chunks[2].choices[0].delta.tool_calls[0]
    assert (call.index, call.id, call.function.name) == (0, "call_ehglp3_1", LOOKUP.name)
    assert call.function.arguments == '{"reservation_id": "EHGLP3"}'
    assert chunks[3].choices[0].finish_reason == "tool_calls"
    assert chunks[4].choices == [] and chunks[4].usage.completion_tokens_details.reasoning_tokens
    assembled = ChatCompletion.model_validate(raw.assembled)
    assert assembled.choices[0].message.content == ""  # as the chunks said: "", not null
    assert assembled.choices[0].finish_reason == "tool_calls"
    assert raw.assembled["choices"][0]["message"]["reasoning_content"] == THOUGHT
    assert raw.as_json() == {
        "generated_by": GENERATED_BY,
        "chunks": list(raw.chunks),
        "assembled": raw.assembled,
    }
    # One piece per part, as before: the playback's pace does not change.
    assert [type(p).__name__ for p in pieces] == ["ReasoningPiece", "ToolCallPiece"]
    assert reply.usage == TOOL_ROUND.usage


async def test_a_scripted_stream_sends_usage_only_when_the_request_asks_for_it():
    _, reply = await _reply(ANSWER, {"messages": [], "stream": True})
    assert reply.raw is not None
    assert all(chunk["choices"] for chunk in reply.raw.chunks)
    assert reply.usage is None  # a server asked without include_usage reports none
    texts = [c["choices"][0]["delta"].get("content") for c in reply.raw.chunks]
    assert texts == ["", "EHGLP3 cannot be cancelled.", None]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
async def test_scripted_replies_say_they_have_no_network_time(stream):
    backend = ScriptedBackend([TOOL_ROUND, ANSWER], model="qwen3.6-plus")
    session = AgentSession(backend, FakeToolbox(), LoopOptions(stream=stream))
    events = await run_turn(session, "Cancel EHGLP3, please.")
    reported = of_type(events, UsageReported)
    assert [u.scripted for u in reported] == [True, True]
    assert all(u.first_token_ms is None and u.tokens_per_second is None for u in reported)
    messages = of_type(events, AssistantMessage)
    assert [m.scripted for m in messages] == [True, True]
    assert all(m.raw is not None and m.raw.generated for m in messages)
    if stream:
        assert of_type(events, ReasoningDelta) and of_type(events, ToolCallDelta)
        assert "".join(d.text for d in of_type(events, TextDelta)) == ANSWER.content


async def test_generated_ids_follow_the_responses_served():
    backend = ScriptedBackend([TOOL_ROUND, ANSWER], model="m", created=1_700_000_000)
    session = AgentSession(backend, FakeToolbox(), LoopOptions(stream=False))
    events = await run_turn(session, "Cancel EHGLP3, please.")
    bodies = [m.raw.completion for m in of_type(events, AssistantMessage) if m.raw]
    assert [(b["id"], b["created"]) for b in bodies] == [
        ("chatcmpl-scripted-1", 1_700_000_000),
        ("chatcmpl-scripted-2", 1_700_000_000),
    ]


def test_a_long_stream_keeps_every_chunk_in_order_once():
    assembler = StreamAssembler()
    fed = [
        {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": {"content": f"w{i} "}, "finish_reason": None}]}
        for i in range(5000)
    ]  # fmt: skip
    fed.append({**fed[0], "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    for chunk in fed:
        assembler.feed(chunk)
    raw = assembler.finish().raw
    assert raw is not None and not raw.generated
    assert len(raw.chunks) == len(fed)
    assert all(kept is sent for kept, sent in zip(raw.chunks, fed, strict=True))  # not copied
    assert raw.assembled["choices"][0]["message"]["content"].startswith("w0 w1 w2 ")
    assert json.loads(json.dumps(raw.as_json()))["chunks"] == fed


class _Completion:
    """A server's completion object (as the `openai` SDK gives one), counting conversions."""

    def __init__(self, body: dict) -> None:
        self.body, self.converted = body, 0
        self.choices = [type("Choice", (), {"message": body["choices"][0]["message"]})()]
        self.choices[0].finish_reason = "stop"
        self.model, self.usage = body["model"], None

    def to_dict(self) -> dict:
        self.converted += 1
        return json.loads(json.dumps(self.body))


def test_a_raw_response_is_made_json_when_first_looked_at_and_cleaned_then():
    """The loop does not convert what came back on every request: only the inspector and
    the request log look. When they do, it is the cleaned JSON, made once."""
    from airline_agent.agent.streaming import reply_from_completion

    body = {
        "id": "c\ud83d",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi."}}],
    }
    completion = _Completion(body)
    reply = reply_from_completion(completion)
    assert reply.content == "Hi." and completion.converted == 0
    assert reply.raw is not None and reply.raw.completion is not None
    assert reply.raw.completion["id"] == "c\ufffd"  # the lone half replaced
    assert reply.raw.as_json()["id"] == "c\ufffd" and completion.converted == 1

    assembler = StreamAssembler()
    choice = {"index": 0, "delta": {"content": "Hi."}, "finish_reason": "stop"}
    chunk = {"id": "x\udc80", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    assembler.feed(chunk)
    raw = assembler.finish().raw
    assert raw is not None and raw.chunks[0]["id"] == "x\ufffd"
    assert raw == RawResponse.of_stream(
        [{**chunk, "id": "x\ufffd"}], raw.assembled, generated=False
    )


def test_a_scripted_reply_is_what_the_parser_makes_of_its_generated_body():
    """The scripted backend no longer reads back the body it generates on every request:
    what it gives must be exactly what reading it back gives, raw response included."""
    from airline_agent.agent.events import ToolCall
    from airline_agent.agent.raw_response import Envelope, ScriptedMessage, scripted_completion
    from airline_agent.agent.streaming import reply_from_completion, reply_from_script

    calls = (
        ToolCall("call_1", "get_reservation_details", '{"reservation_id": "EHGLP3"}'),
        ToolCall("", "cancel\ud83d", '{"reservation_id": "EH'),  # blank id, cut-off arguments
        ToolCall("c\udc80", "calculate", '{"expression": "\\ud83d"}'),  # escaped lone half
    )
    messages = [
        ScriptedMessage("Hello.", (), None, "stop", None),
        ScriptedMessage("", (), "", "stop", Usage(10, 2)),
        ScriptedMessage(None, calls, "Thinking\udc80.", "tool_calls", Usage(500, 20, 100, 7)),
        ScriptedMessage("Bad half \ud83d.", calls[:1], None, "len\udc80gth", Usage()),
    ]
    for envelope in (Envelope("chatcmpl-1", 1, "m"), Envelope("id", 2, "mod\ud83del")):
        for message in messages:
            read_back = reply_from_completion(
                scripted_completion(envelope, message), generated=True
            )
            assert reply_from_script(envelope, message) == read_back, message
