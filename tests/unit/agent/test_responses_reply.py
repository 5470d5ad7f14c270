"""A Responses API response read into the loop's reply (agent/responses_reply.py), and the
responses and events the scripted backend generates in a server's shape
(agent/raw_response.py): the openai package's own types take them, and they read back to
the reply they were made from."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter, ValidationError

from airline_agent.agent.errors import NotACompletion, StreamCutOff
from airline_agent.agent.events import ToolCall, Usage
from airline_agent.agent.raw_response import (
    GENERATED_BY,
    Envelope,
    ScriptedMessage,
    responses_usage,
    scripted_response,
    scripted_response_events,
)
from airline_agent.agent.responses_reply import (
    ResponseFailed,
    ResponsesStreamReader,
    StreamError,
    parse_usage,
    read_events,
    reply_from_response,
    reply_from_script,
    reply_from_whole_body,
)
from airline_agent.agent.streaming import (
    PromptProgressPiece,
    ReasoningPiece,
    TextPiece,
    ToolCallPiece,
)

ENVELOPE = Envelope("resp_scripted_1", 1715785200, "gpt-4o-mini")
REQUEST = {"model": "gpt-4o-mini", "instructions": "Be kind.", "input": [], "tools": []}
CALL = ToolCall("call_1", "get_reservation_details", '{"reservation_id": "EHGLP3"}')
USAGE = Usage(300, 60, 100, 40)


def scripted(**parts: Any) -> ScriptedMessage:
    values: dict[str, Any] = {
        "content": None,
        "tool_calls": (),
        "reasoning": None,
        "finish_reason": "stop",
        "usage": USAGE,
    }
    return ScriptedMessage(**(values | parts))


MESSAGES = {
    "text": scripted(content="EHGLP3 flies PHX to JFK."),
    "call": scripted(content="", tool_calls=(CALL,), finish_reason="tool_calls"),
    "reasoned call": scripted(
        tool_calls=(CALL,), reasoning="Look it up first.", finish_reason="tool_calls"
    ),
    "cut": scripted(content="EHGLP3 is", finish_reason="length"),
    "filtered": scripted(content="", finish_reason="content_filter"),
    "no usage": scripted(content="Hi", usage=None),
}


def as_the_sdk_takes_it(body: dict[str, Any]) -> dict[str, Any]:
    """The body with the one field this SDK's usage type requires and no script records
    (`cache_write_tokens`, a newer server's), so that its strict validation can run."""
    body = copy.deepcopy(body)
    for holder in (body, body.get("response") or {}):
        details = (holder.get("usage") or {}).get("input_tokens_details")
        if details is not None:
            details.setdefault("cache_write_tokens", 0)
    return body


@pytest.mark.parametrize("name", MESSAGES)
def test_a_generated_response_is_one_the_openai_types_take(name: str) -> None:
    body = scripted_response(ENVELOPE, MESSAGES[name], REQUEST)
    Response.model_validate(as_the_sdk_takes_it(body))
    adapter = TypeAdapter(ResponseStreamEvent)
    events = scripted_response_events(ENVELOPE, MESSAGES[name], REQUEST)
    for event in events:
        adapter.validate_python(as_the_sdk_takes_it(event))
    assert [e["sequence_number"] for e in events] == list(range(len(events)))


def test_without_cache_write_tokens_only_that_field_is_missing() -> None:
    """What the generated usage leaves out, said rather than made up."""
    body = scripted_response(ENVELOPE, MESSAGES["text"], REQUEST)
    with pytest.raises(ValidationError) as raised:
        Response.model_validate(body)
    assert [error["loc"][-1] for error in raised.value.errors()] == ["cache_write_tokens"]


@pytest.mark.parametrize("name", MESSAGES)
def test_the_response_and_its_events_read_back_to_the_same_reply(name: str) -> None:
    message = MESSAGES[name]
    whole = reply_from_response(scripted_response(ENVELOPE, message, REQUEST))
    streamed = read_events(scripted_response_events(ENVELOPE, message, REQUEST))
    typed = reply_from_response(
        Response.model_validate(as_the_sdk_takes_it(scripted_response(ENVELOPE, message, REQUEST)))
    )
    # A tool round's empty text is no message item on this wire: it reads back as none.
    content = None if message.tool_calls and not message.content else message.content
    for reply in (whole, streamed, typed):
        assert reply.content == content
        assert reply.tool_calls == message.tool_calls
        assert reply.reasoning == message.reasoning
        assert reply.finish_reason == message.finish_reason
        assert reply.usage == message.usage
        assert reply.model == "gpt-4o-mini"


def test_read_from_the_sdks_typed_events_as_from_their_json() -> None:
    message = MESSAGES["reasoned call"]
    events = scripted_response_events(ENVELOPE, message, REQUEST)
    adapter = TypeAdapter(ResponseStreamEvent)
    typed = [adapter.validate_python(as_the_sdk_takes_it(event)) for event in events]
    from_json, from_objects = ResponsesStreamReader(), ResponsesStreamReader()
    pieces_json = [piece for event in events for piece in from_json.feed(event)]
    pieces_typed = [piece for event in typed for piece in from_objects.feed(event)]
    assert (
        pieces_json
        == pieces_typed
        == [
            ReasoningPiece("Look it up first."),
            ToolCallPiece(0, "call_1", "get_reservation_details", ""),
            ToolCallPiece(0, None, None, '{"reservation_id": "EHGLP3"}'),
        ]
    )
    assert from_json.finish().tool_calls == from_objects.finish().tool_calls == (CALL,)


def test_a_reasoning_item_goes_back_only_with_an_id_and_what_it_led_to() -> None:
    reply = reply_from_script(ENVELOPE, MESSAGES["reasoned call"], REQUEST)
    assert reply.reasoning_items == (
        {
            "type": "reasoning",
            "id": "rs_scripted_1",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": "Look it up first."}],
        },
    )
    body = scripted_response(ENVELOPE, MESSAGES["reasoned call"], REQUEST)
    del body["output"][0]["id"]
    assert reply_from_response(body).reasoning_items == ()  # no id: the API takes none
    body = scripted_response(ENVELOPE, scripted(reasoning="Hm.", content=None), REQUEST)
    assert [item["type"] for item in body["output"]] == ["reasoning"]
    cut = reply_from_response(body | {"status": "incomplete"})
    assert (cut.reasoning, cut.reasoning_items) == ("Hm.", ())  # nothing it led to


def test_usage_is_mapped_both_ways() -> None:
    reported = responses_usage(USAGE)
    assert reported == {
        "input_tokens": 300,
        "input_tokens_details": {"cached_tokens": 100},
        "output_tokens": 60,
        "output_tokens_details": {"reasoning_tokens": 40},
        "total_tokens": 360,
    }
    assert parse_usage(reported) == USAGE
    assert parse_usage(None) is None
    assert parse_usage({"input_tokens": 5, "output_tokens": 2}) == Usage(5, 2)


def test_a_summary_is_the_reasoning_when_there_is_no_reasoning_text() -> None:
    body = scripted_response(ENVELOPE, MESSAGES["reasoned call"], REQUEST)
    body["output"][0] = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [
            {"type": "summary_text", "text": "First."},
            {"type": "summary_text", "text": "Then."},
        ],
        "encrypted_content": "gAAAA",
    }
    reply = reply_from_response(body)
    assert reply.reasoning == "First.\n\nThen."
    assert reply.reasoning_items[0]["encrypted_content"] == "gAAAA"


@pytest.mark.parametrize(
    ("code", "kind", "retried"),
    [
        ("server_error", "server", True),
        ("rate_limit_exceeded", "rate_limit", True),
        ("invalid_prompt", "bad_request", False),
    ],
)
def test_a_failed_response_is_a_failure_of_its_kind(code: str, kind: str, retried: bool) -> None:
    body = scripted_response(ENVELOPE, MESSAGES["text"], REQUEST)
    body |= {"status": "failed", "output": [], "error": {"code": code, "message": "No."}}
    with pytest.raises(ResponseFailed) as raised:
        reply_from_response(body)
    assert (raised.value.kind, raised.value.retryable) == (kind, retried)
    assert raised.value.message.endswith(f"(response failed: {code}): No.")
    events = scripted_response_events(ENVELOPE, MESSAGES["text"], REQUEST)
    failed = {"type": "response.failed", "sequence_number": 9, "response": body}
    with pytest.raises(ResponseFailed):
        read_events([*events[:3], failed])


def test_an_error_event_and_a_cut_stream_and_no_stream() -> None:
    events = scripted_response_events(ENVELOPE, MESSAGES["text"], REQUEST)
    error = {"type": "error", "code": "server_error", "message": "Boom.", "sequence_number": 3}
    with pytest.raises(StreamError, match=r"The model server reported an error: Boom\."):
        read_events([*events[:3], error])
    with pytest.raises(StreamCutOff, match="cut off before it finished"):
        read_events(events[:-1])
    with pytest.raises(NotACompletion, match="ended with no event"):
        read_events([])


def test_a_server_that_sends_the_items_only_as_events() -> None:
    events = scripted_response_events(ENVELOPE, MESSAGES["call"], REQUEST)
    events[-1] = {**events[-1], "response": {**events[-1]["response"], "output": []}}
    reply = read_events(events)
    assert reply.tool_calls == (CALL,)
    assert reply.raw is not None and reply.raw.assembled["output"][0]["call_id"] == "call_1"


def test_arguments_without_deltas_come_whole_with_their_done_event() -> None:
    events = [
        e
        for e in scripted_response_events(ENVELOPE, MESSAGES["call"], REQUEST)
        if e["type"] != "response.function_call_arguments.delta"
    ]
    reader = ResponsesStreamReader()
    pieces = [piece for event in events for piece in reader.feed(event)]
    assert [p for p in pieces if isinstance(p, ToolCallPiece) and p.arguments] == [
        ToolCallPiece(0, None, None, CALL.arguments)
    ]


def test_an_emoji_split_over_two_deltas_is_joined() -> None:
    events = scripted_response_events(ENVELOPE, scripted(content="ok 🙂"), REQUEST)
    delta = next(e for e in events if e["type"] == "response.output_text.delta")
    at = events.index(delta)
    first, second = "ok \ud83d", "\ude42"
    split = [{**delta, "delta": first}, {**delta, "delta": second}]
    reader = ResponsesStreamReader()
    pieces = [p for e in [*events[:at], *split, *events[at + 1 :]] for p in reader.feed(e)]
    assert "".join(p.text for p in pieces if isinstance(p, TextPiece)) == "ok 🙂"


def test_the_raw_response_says_it_was_generated() -> None:
    whole = reply_from_script(ENVELOPE, MESSAGES["text"], REQUEST)
    assert whole.raw is not None and whole.raw.api == "responses"
    shown = whole.raw.as_json()
    assert shown["generated_by"] == GENERATED_BY and shown["response"]["object"] == "response"
    reader = ResponsesStreamReader(generated=True)
    for event in scripted_response_events(ENVELOPE, MESSAGES["text"], REQUEST):
        reader.feed(event)
    streamed = reader.finish().raw
    assert streamed is not None
    assert set(streamed.as_json()) == {"generated_by", "events", "assembled"}
    assert streamed.chunks[0]["type"] == "response.created"
    assert streamed.assembled["status"] == "completed"


def test_a_body_read_whole_for_a_streamed_request() -> None:
    body = scripted_response(ENVELOPE, MESSAGES["text"], REQUEST)
    assert reply_from_whole_body(json.dumps(body).encode(), "application/json").content == (
        "EHGLP3 flies PHX to JFK."
    )
    sse = "".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n"
        for e in scripted_response_events(ENVELOPE, MESSAGES["text"], REQUEST)
    )
    assert reply_from_whole_body(sse.encode(), "text/plain").content == "EHGLP3 flies PHX to JFK."
    with pytest.raises(NotACompletion, match="HTML page"):
        reply_from_whole_body(b"<html><body>Bad gateway</body></html>", "text/html")


def llama_server_shaped(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events as llama.cpp's server streams them: items named only by their ids (no
    `output_index`, `content_index` or `sequence_number`; its server-task.cpp)."""
    dropped = ("output_index", "content_index", "sequence_number")
    return [{k: v for k, v in event.items() if k not in dropped} for event in events]


def test_a_stream_that_names_items_only_by_id_reads_the_same() -> None:
    two_calls = scripted(
        tool_calls=(CALL, ToolCall("call_2", "get_user_details", '{"user_id": "emma_kim_9957"}')),
        reasoning="Both.",
        finish_reason="tool_calls",
    )
    events = scripted_response_events(ENVELOPE, two_calls, REQUEST)
    by_index, by_id = ResponsesStreamReader(), ResponsesStreamReader()
    pieces = [p for e in events for p in by_index.feed(e)]
    assert [p for e in llama_server_shaped(events) for p in by_id.feed(e)] == pieces
    assert by_id.finish().tool_calls == by_index.finish().tool_calls == two_calls.tool_calls


def test_llama_servers_prompt_progress_is_passed_on() -> None:
    events = llama_server_shaped(scripted_response_events(ENVELOPE, MESSAGES["text"], REQUEST))
    events[1] = {**events[1], "prompt_progress": {"total": 2300, "cache": 2000, "processed": 2100}}
    reader = ResponsesStreamReader()
    pieces = [p for e in events for p in reader.feed(e)]
    assert PromptProgressPiece(2100, 2300, 2000) in pieces
