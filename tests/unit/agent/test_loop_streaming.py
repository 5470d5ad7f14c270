"""Stream assembly and completion parsing on the llama-server captures; history checks."""

from __future__ import annotations

import json

import pytest

from airline_agent.agent.errors import NotACompletion, StreamCutOff
from airline_agent.agent.events import ToolCall, Usage
from airline_agent.agent.history import assistant_entry, close_open_calls, problems, tool_entry
from airline_agent.agent.streaming import (
    StreamAssembler,
    TextPiece,
    ToolCallPiece,
    reply_from_completion,
)
from tests.conftest import LLAMA_DIR


def capture(name: str) -> str:
    path = LLAMA_DIR / f"{name}.resp.txt"
    if not path.is_file():
        pytest.skip(f"llama-server captures not found in {LLAMA_DIR}")
    return path.read_text()


def chunks(text: str) -> list[dict]:
    lines = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
    return [json.loads(line) for line in lines if line != "[DONE]"]


def test_capture_01_length_with_two_complete_calls():
    reply = reply_from_completion(json.loads(capture("01-tools-auto")))
    assert reply.finish_reason == "length"
    assert [c.call_id for c in reply.tool_calls] == [
        "x7BTQ99PaYqNXOmlswz04cBB1zckVoDA",
        "ap3s4csn8LC5ai4ndaNcSM66bW5G55he",
    ]
    assert all(json.loads(c.arguments) == {"reservation_id": "EHGLP3"} for c in reply.tool_calls)
    assert reply.usage == Usage(prompt_tokens=457, completion_tokens=64, cached_tokens=0)
    assert reply.raw is not None
    assert reply.raw.completion["timings"]["prompt_n"] == 457  # extra fields kept for the inspector


def test_capture_02_stream_assembles_calls_by_index_with_usage_from_the_last_chunk():
    assembler = StreamAssembler()
    pieces = [p for chunk in chunks(capture("02-tools-auto-stream")) for p in assembler.feed(chunk)]
    reply = assembler.finish()
    assert not any(isinstance(p, TextPiece) for p in pieces)  # first content is null
    assert {p.index for p in pieces if isinstance(p, ToolCallPiece)} == {0, 1}
    assert [json.loads(c.arguments) for c in reply.tool_calls] == [{"reservation_id": "EHGLP3"}] * 2
    assert reply.tool_calls[0].call_id == "ktff9aol2PZR9cwMA6RwykPh2fBwvHEh"
    assert reply.finish_reason == "length"
    assert reply.usage == Usage(prompt_tokens=457, completion_tokens=64, cached_tokens=452)
    assert reply.content is None


def test_capture_04_stream_without_usage_reports_none_not_zero():
    assembler = StreamAssembler()
    for chunk in chunks(capture("04-plain-stream-no-usage")):
        assembler.feed(chunk)
    reply = assembler.finish()
    assert reply.usage is None
    assert reply.content.startswith("You are an airline customer-service agent.")


def test_a_stream_that_ends_before_a_finish_reason_is_cut_off():
    assembler = StreamAssembler()
    for chunk in chunks(capture("02-tools-auto-stream"))[:5]:
        assembler.feed(chunk)
    with pytest.raises(StreamCutOff):
        assembler.finish()


def test_reasoning_content_in_deltas_and_messages():
    assembler = StreamAssembler()
    assembler.feed({"choices": [{"index": 0, "delta": {"reasoning_content": "Think."}}]})
    assembler.feed({"choices": [{"index": 0, "delta": {"reasoning": " More."}}]})
    assembler.feed({"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]})
    assert assembler.finish().reasoning == "Think. More."
    message = {"role": "assistant", "content": "x", "reasoning_content": "Because."}
    completion = {"choices": [{"message": message, "finish_reason": "stop"}]}
    assert reply_from_completion(completion).reasoning == "Because."


@pytest.mark.parametrize("body", ["<html>Not found</html>", {"object": "list", "data": []}, {}])
def test_a_body_that_is_not_a_completion_is_refused(body):
    with pytest.raises(NotACompletion):
        reply_from_completion(body)


def test_capture_05_history_never_echoes_invalid_arguments():
    capture("05-invalid-args-echo")  # skips when the captures are absent
    broken = ToolCall("call_1", "get_reservation_details", '{"reservation_id": "12345')
    history = [
        {"role": "user", "content": "cancel"},
        assistant_entry(None, (broken,)),
        tool_entry("call_1", '{"error": "INVALID_ARGUMENTS"}'),
    ]
    assert history[1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert problems(history) == []
    # The captured request that made llama-server fail is flagged by the check.
    captured = json.loads((LLAMA_DIR / "05-invalid-args-echo.req.json").read_text())
    assert any("not a JSON object" in p for p in problems(captured["messages"]))


def test_history_problems_are_found_and_open_calls_closed():
    call = ToolCall("a", "calculate", '{"expression": "1+1"}')
    history = [{"role": "user", "content": "x"}, assistant_entry(None, (call,))]
    assert problems(history) == ["end: calls ['a'] are never answered"]
    close_open_calls(history, lambda c: '{"error": "INTERNAL_ERROR"}')
    assert problems(history) == []
    history.append(tool_entry("a", "again"))
    assert problems(history)  # answered twice
