"""A non-streamed response read whole (agent/streaming.py `reply_from_completion`): every
field of the reply, calls without an id kept without one (the loop gives them theirs),
arguments sent as an object, escaped lone
surrogates in arguments, and the exact words for a body that is not a completion. The
mutation profile (docs/mutation.md) found these read by no test of its selection."""

from __future__ import annotations

import pytest

from airline_agent.agent.errors import NotACompletion
from airline_agent.agent.events import ToolCall, Usage
from airline_agent.agent.raw_response import RawResponse
from airline_agent.agent.streaming import ModelReply, clean_arguments, reply_from_completion

HINT = (
    "Check that the base URL points at an OpenAI-compatible endpoint (usually ending in /v1). "
    "The body began: "
)


def completion(message: dict, **fields: object) -> dict:
    return {
        "id": "chatcmpl-9",
        "object": "chat.completion",
        "model": "m2",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        **fields,
    }


def test_a_completion_gives_every_field_of_the_reply() -> None:
    message = {
        "role": "assistant",
        "content": "Looking.",
        "reasoning_content": "Two lookups.",
        "tool_calls": [
            {"id": "c1", "function": {"name": "get_user_details", "arguments": '{"user_id": "u"}'}},
            {"function": {"name": "calculate", "arguments": {"expression": "1+1"}}},
            {"id": "", "function": {"arguments": None}},
        ],
    }
    usage = {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}
    reply = reply_from_completion(completion(message, usage=usage))
    assert reply == ModelReply(
        content="Looking.",
        tool_calls=(
            ToolCall("c1", "get_user_details", '{"user_id": "u"}'),
            ToolCall("", "calculate", '{"expression": "1+1"}'),  # the loop gives it an id
            ToolCall("", "", ""),
        ),
        reasoning="Two lookups.",
        finish_reason="tool_calls",
        usage=Usage(prompt_tokens=40, completion_tokens=9),
        model="m2",
        raw=reply.raw,
    )
    assert reply.raw is not None and reply.raw.generated is False
    assert reply.raw == RawResponse.of_completion(completion(message, usage=usage))


def test_a_completion_made_from_a_script_is_marked_generated() -> None:
    reply = reply_from_completion(completion({"content": "Hi."}), generated=True)
    assert reply.raw is not None and reply.raw.generated is True
    assert reply.model == "m2" and reply.usage is None


@pytest.mark.parametrize(
    ("body", "began"),
    [
        ("Bad gateway", "Bad gateway"),
        ({"object": "list", "data": []}, "{'object': 'list', 'data': []}"),
        ({"choices": [{"index": 0}]}, "{'choices': [{'index': 0}]}"),
        ("x" * 300, "x" * 119 + "…"),
    ],
    ids=["text", "a-list", "a-choice-without-message", "long"],
)
def test_a_body_that_is_not_a_completion_is_refused_with_its_beginning(
    body: object, began: str
) -> None:
    with pytest.raises(NotACompletion) as refused:
        reply_from_completion(body)
    assert refused.value.message == "The server's answer was not a chat completion."
    assert refused.value.hint == HINT + repr(began)


def test_a_completion_without_choices_says_so() -> None:
    """Issue 19 item 13: `choices: []` is a completion that holds no reply, said as such."""
    with pytest.raises(NotACompletion) as refused:
        reply_from_completion({"id": "x", "choices": []})
    assert refused.value.message == (
        "The server answered a completion with no choices (`choices: []`), so there is no "
        """reply: '{"id": "x", "choices": []}'."""
    )


def test_arguments_with_an_escaped_lone_surrogate_are_rewritten_without_it() -> None:
    assert clean_arguments('{"name": "Zo\\ud83d"}') == '{"name": "Zo\ufffd"}'
    # An escaped pair is a whole character: the text stays as it was sent.
    assert clean_arguments('{"name": "\\ud83d\\ude00"}') == '{"name": "\\ud83d\\ude00"}'
    assert clean_arguments('{"name": "\\ud83d') == '{"name": "\\ud83d'  # not JSON: left
    assert clean_arguments('{"name": "Zoe"}') == '{"name": "Zoe"}'


class _WithToDict:
    def to_dict(self) -> dict:
        return {"object": "error", "via": "to_dict"}


class _WithModelDump:
    def model_dump(self) -> dict:
        return {"object": "error", "via": "model_dump"}


class _Plain:
    def __str__(self) -> str:
        return "plain object"


@pytest.mark.parametrize(
    ("body", "began"),
    [
        (_WithToDict(), "{'object': 'error', 'via': 'to_dict'}"),
        (_WithModelDump(), "{'object': 'error', 'via': 'model_dump'}"),
        (_Plain(), "'plain object'"),
    ],
    ids=["to_dict", "model_dump", "neither"],
)
def test_a_refused_object_is_shown_as_the_client_library_would_dump_it(
    body: object, began: str
) -> None:
    # The openai client hands over objects: their dict is what the server sent.
    with pytest.raises(NotACompletion) as refused:
        reply_from_completion(body)
    assert refused.value.hint == HINT + repr(began)
