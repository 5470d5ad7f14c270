"""A streamed reply assembled chunk by chunk, compared whole: the pieces each chunk gives,
the reply, and the one `chat.completion` the chunks add up to (agent/streaming.py). The
mutation profile (docs/mutation.md) found these parts read by no test of its selection."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from airline_agent.agent.errors import StreamCutOff
from airline_agent.agent.events import ToolCall, Usage
from airline_agent.agent.streaming import (
    PromptProgressPiece,
    ReasoningPiece,
    StreamAssembler,
    TextPiece,
    ToolCallPiece,
)

HEAD = {"id": "chatcmpl-7", "object": "chat.completion.chunk", "created": 1700, "model": "m1"}


def chunk(delta: dict | None = None, finish: str | None = None, **fields: object) -> dict:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {**HEAD, "choices": choices, **fields}


def call_delta(index: int | None, **fields: object) -> dict:
    found = {"function": {k: v for k, v in fields.items() if k != "id"}}
    if "id" in fields:
        found["id"] = fields["id"]
    return found if index is None else {"index": index, **found}


def test_a_stream_with_text_reasoning_and_two_calls_assembles_whole() -> None:
    stream = [
        chunk({"role": "assistant", "content": None}),
        chunk({"reasoning_content": "Look it up."}),
        chunk({"content": "Checking"}),
        chunk({"content": " now."}),
        chunk({"tool_calls": [call_delta(0, id="c1", name="get_user_details", arguments="")]}),
        chunk({"tool_calls": [call_delta(1, id="c2", name="calculate", arguments='{"e')]}),
        chunk({"tool_calls": [call_delta(0, arguments='{"user_id": "x"}')]}),
        chunk({"tool_calls": [call_delta(1, arguments='xpression": "1+1"}')]}),
        chunk({}, finish="tool_calls"),
        chunk(None, usage={"prompt_tokens": 11, "completion_tokens": 7}, model="other"),
    ]
    assembler = StreamAssembler()
    pieces = [assembler.feed(c) for c in stream]
    assert pieces == [
        [],
        [ReasoningPiece("Look it up.")],
        [TextPiece("Checking")],
        [TextPiece(" now.")],
        [ToolCallPiece(0, "c1", "get_user_details", "")],
        [ToolCallPiece(1, "c2", "calculate", '{"e')],
        [ToolCallPiece(0, None, None, '{"user_id": "x"}')],
        [ToolCallPiece(1, None, None, 'xpression": "1+1"}')],
        [],
        [],
    ]
    assert assembler.chunks == len(stream)
    reply = assembler.finish()
    calls = (
        ToolCall("c1", "get_user_details", '{"user_id": "x"}'),
        ToolCall("c2", "calculate", '{"expression": "1+1"}'),
    )
    assert (reply.content, reply.tool_calls, reply.reasoning) == (
        "Checking now.",
        calls,
        "Look it up.",
    )
    assert (reply.finish_reason, reply.model) == ("tool_calls", "m1")
    assert reply.usage == Usage(prompt_tokens=11, completion_tokens=7)
    assert reply.raw is not None and not reply.raw.generated and not reply.scripted
    assert reply.raw.chunks == tuple(stream)
    assert reply.raw.assembled == {
        "id": "chatcmpl-7",
        "object": "chat.completion",
        "created": 1700,
        "model": "m1",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Checking now.",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {
                                "name": "get_user_details",
                                "arguments": '{"user_id": "x"}',
                            },
                        },
                        {
                            "id": "c2",
                            "type": "function",
                            "function": {"name": "calculate", "arguments": '{"expression": "1+1"}'},
                        },
                    ],
                    "reasoning_content": "Look it up.",
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7},
    }


def test_a_generated_stream_is_marked_so() -> None:
    assembler = StreamAssembler(generated=True)
    assembler.feed(chunk({"content": "Hi."}, finish="stop"))
    reply = assembler.finish()
    assert reply.raw is not None and reply.raw.generated and reply.scripted


def test_an_empty_content_field_gives_empty_text_and_none_gives_none() -> None:
    empty = StreamAssembler()
    empty.feed(chunk({"content": ""}))
    empty.feed(chunk({"content": None}, finish="stop"))
    assert empty.finish().content == ""
    absent = StreamAssembler()
    absent.feed(chunk({"role": "assistant"}, finish="stop"))
    reply = absent.finish()
    assert (reply.content, reply.reasoning, reply.usage) == (None, None, None)
    assert reply.raw is not None and reply.raw.assembled["usage"] is None


def test_calls_without_id_index_or_name_are_kept_in_order_without_an_id() -> None:
    # The loop gives them ids of their own (tool_round.own_call_ids), and says so.
    assembler = StreamAssembler()
    assembler.feed(chunk({"tool_calls": [call_delta(None, arguments="{}")]}))
    assembler.feed(chunk({"tool_calls": [call_delta(None, name="calculate", arguments="{}")]}))
    assembler.feed(chunk({}, finish="tool_calls"))
    assert assembler.finish().tool_calls == (
        ToolCall("", "", "{}"),
        ToolCall("", "calculate", "{}"),
    )


def test_a_name_repeated_in_every_delta_is_kept_once_and_pieces_of_a_name_are_joined() -> None:
    assembler = StreamAssembler()
    assembler.feed(chunk({"tool_calls": [call_delta(0, id="a", name="calculate")]}))
    assembler.feed(chunk({"tool_calls": [call_delta(0, name="calculate", arguments="{}")]}))
    assembler.feed(chunk({"tool_calls": [call_delta(1, id="b", name="get_")]}))
    assembler.feed(chunk({"tool_calls": [call_delta(1, name="user_details", arguments="{}")]}))
    assembler.feed(chunk({}, finish="tool_calls"))
    assert [c.name for c in assembler.finish().tool_calls] == ["calculate", "get_user_details"]


def test_half_an_emoji_left_at_the_finish_is_given_as_a_piece_of_its_own() -> None:
    assembler = StreamAssembler()
    assembler.feed(chunk({"content": "Hi \ud83d"}))
    assembler.feed(chunk({"reasoning_content": "hm \ud83d"}))
    assembler.feed(
        chunk({"tool_calls": [call_delta(0, id="a", name="calculate", arguments='{"e": "\ud83d')]})
    )
    finished = assembler.feed(chunk({}, finish="stop"))
    assert finished == [
        TextPiece("\ufffd"),
        ReasoningPiece("\ufffd"),
        ToolCallPiece(0, None, None, "\ufffd"),
    ]
    reply = assembler.finish()
    assert (reply.content, reply.reasoning) == ("Hi \ufffd", "hm \ufffd")
    assert reply.tool_calls[0].arguments == '{"e": "\ufffd'


def test_a_stream_without_a_finish_reason_is_cut_off_with_a_hint() -> None:
    assembler = StreamAssembler()
    assembler.feed(chunk({"content": "Hal"}))
    with pytest.raises(StreamCutOff) as cut:
        assembler.finish()
    assert str(cut.value) == "The model's streamed answer was cut off before it finished."
    assert cut.value.hint == "Try again; if it keeps happening, use --no-stream."


@pytest.mark.parametrize(
    ("progress", "piece"),
    [
        ({"total": 36, "cache": 4, "processed": 20, "time_ms": 57}, PromptProgressPiece(20, 36, 4)),
        ({"total": 36, "processed": 0}, PromptProgressPiece(0, 36, 0)),  # nothing read yet
        ({"total": 36, "cache": "4", "processed": 36}, PromptProgressPiece(36, 36, 0)),
        ({"total": 36, "processed": 20, "cache": None}, PromptProgressPiece(20, 36, 0)),
        ({"total": 0, "processed": 0}, None),  # an empty prompt: nothing to show
        ({"total": 36}, None),
        ({"processed": 20}, None),
        ({"total": 36, "processed": -1}, None),
        ({"total": -36, "processed": 1}, None),
        ({"total": "36", "processed": 20}, None),
        ({"total": 36, "processed": 2.5}, None),
        (None, None),
    ],
    ids=[
        "full",
        "none-read-no-cache",
        "cache-not-a-count",
        "cache-null",
        "total-zero",
        "processed-missing",
        "total-missing",
        "processed-negative",
        "total-negative",
        "total-a-string",
        "processed-a-float",
        "null",
    ],
)
def test_a_chunks_prompt_progress_gives_a_piece_only_when_its_counts_are_usable(
    progress: dict | None, piece: PromptProgressPiece | None
) -> None:
    expected = [] if piece is None else [piece]
    assert StreamAssembler().feed(chunk(None, prompt_progress=progress)) == expected


def test_prompt_progress_is_read_from_an_object_too() -> None:
    # The openai client may hand the unknown field over as an object with attributes.
    progress = SimpleNamespace(total=2874, cache=512, processed=1024)
    assert StreamAssembler().feed(chunk(None, prompt_progress=progress)) == [
        PromptProgressPiece(1024, 2874, 512)
    ]


def test_prompt_progress_comes_before_the_text_of_the_same_chunk() -> None:
    progress = {"total": 10, "cache": 0, "processed": 10}
    pieces = StreamAssembler().feed(chunk({"content": "Hi"}, prompt_progress=progress))
    assert pieces == [PromptProgressPiece(10, 10, 0), TextPiece("Hi")]


def test_usage_fields_a_server_leaves_out_or_sends_as_null_count_zero() -> None:
    """Some servers send `"prompt_tokens": null` or no completion count: a missing count is
    0 tokens, never a made-up 1 (the usage pane and the budgets add these up)."""
    from airline_agent.agent.streaming import parse_usage

    usage = parse_usage({"prompt_tokens": None, "total_tokens": 7})
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens) == (0, 0)
    assert (usage.cached_tokens, usage.reasoning_tokens) == (0, 0)
