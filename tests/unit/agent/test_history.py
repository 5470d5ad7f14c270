"""The message history's entries and its check, entry by entry (agent/history.py).

Each `problems` case compares the whole list of findings, so a finding that is dropped,
garbled or stops the check early is seen (the mutation profile, docs/mutation.md, found
these cases read by no test).
"""

from __future__ import annotations

import json

from airline_agent.agent.events import ToolCall
from airline_agent.agent.history import (
    assistant_entry,
    close_open_calls,
    is_valid,
    open_calls,
    parse_arguments,
    problems,
    tool_entry,
)
from airline_agent.tools.untrusted import MAX_DEPTH


def nested(depth: int) -> str:
    """A JSON object nested `depth` levels deep: {"a": {"a": … 1}}."""
    return '{"a": ' * depth + "1" + "}" * depth


def call_entry(*calls: dict) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def call(call_id: str | None, arguments: object = "{}") -> dict:
    found = {"type": "function", "function": {"name": "calculate", "arguments": arguments}}
    return found if call_id is None else {"id": call_id, **found}


def test_parse_arguments_accepts_only_a_json_object_within_the_depth_limit():
    assert parse_arguments("") == {}
    assert parse_arguments(None) == {}
    assert parse_arguments('{"n": 1, "s": "x"}') == {"n": 1, "s": "x"}
    assert parse_arguments("[1, 2]") is None
    assert parse_arguments('"text"') is None
    assert parse_arguments('{"a": ') is None
    assert parse_arguments(nested(MAX_DEPTH)) == json.loads(nested(MAX_DEPTH))
    assert parse_arguments(nested(MAX_DEPTH + 1)) is None


def test_parse_arguments_refuses_numbers_out_of_range_and_lone_surrogates():
    """One reader for JSON from outside (untrusted.parse_json): arguments a strict server
    would refuse to see echoed (`NaN`), or that no tool takes, are not a usable object."""
    assert parse_arguments('{"amount": NaN}') is None
    assert parse_arguments('{"amount": 1e309}') is None
    assert parse_arguments('{"amount": ' + "9" * 30 + "}") is None
    assert parse_arguments('{"name": "Zo\\ud83d"}') is None
    assert parse_arguments('{"name": "Zo\\ud83d\\ude00"}') == {"name": "Zo\U0001f600"}


def test_assistant_entry_with_calls_is_the_chat_completions_shape():
    calls = (
        ToolCall("c1", "get_user_details", '{"user_id": "mia_li_3668"}'),
        ToolCall("c2", "calculate", '{"expression": '),
        ToolCall("c3", "list_all_airports", ""),
    )
    assert assistant_entry(None, calls) == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_user_details", "arguments": '{"user_id": "mia_li_3668"}'},
            },
            {"id": "c2", "type": "function", "function": {"name": "calculate", "arguments": "{}"}},
            {
                "id": "c3",
                "type": "function",
                "function": {"name": "list_all_airports", "arguments": "{}"},
            },
        ],
    }


def test_assistant_entry_without_calls_keeps_its_text_and_never_has_no_content():
    assert assistant_entry("Hello.", ()) == {"role": "assistant", "content": "Hello."}
    assert assistant_entry(None, ()) == {"role": "assistant", "content": ""}


def test_assistant_entry_sends_reasoning_only_when_asked():
    assert assistant_entry("Hi.", (), reasoning="think") == {"role": "assistant", "content": "Hi."}
    sent = assistant_entry("Hi.", (), reasoning="think", send_reasoning=True)
    assert sent == {"role": "assistant", "content": "Hi.", "reasoning_content": "think"}
    assert "reasoning_content" not in assistant_entry("Hi.", (), reasoning="", send_reasoning=True)


def test_problems_names_an_unknown_role_and_goes_on_checking():
    history = [{"role": "robot", "content": "x"}, tool_entry("nobody", "{}")]
    assert problems(history) == [
        "#0: unknown role 'robot'",
        "#1: tool message for 'nobody' answers no open call",
    ]


def test_problems_names_calls_left_open_before_the_next_message():
    history = [call_entry(call("b"), call("a")), {"role": "user", "content": "hello?"}]
    assert problems(history) == ["#1: calls ['a', 'b'] are not answered before it"]


def test_problems_names_an_assistant_message_with_neither_content_nor_calls():
    history = [{"role": "user", "content": "x"}, {"role": "assistant", "content": None}]
    assert problems(history) == ["#1: assistant message with neither content nor calls"]


def test_problems_names_a_call_without_an_id_and_checks_the_next_calls():
    history = [call_entry(call(None), call("a", "[1]")), tool_entry("a", "{}")]
    assert problems(history) == [
        "#0: a tool call without an id",
        "#0: arguments of a are not a JSON object: '[1]'",
    ]


def test_problems_names_a_call_id_used_twice_and_arguments_that_are_not_text():
    history = [call_entry(call("a"), call("a", {"x": 1})), tool_entry("a", "{}")]
    assert problems(history) == [
        "#0: tool call id a used twice",
        "#0: arguments of a are not a JSON object: {'x': 1}",
    ]


def test_problems_names_a_tool_message_whose_content_is_not_text():
    history = [call_entry(call("a")), {"role": "tool", "tool_call_id": "a", "content": None}]
    assert problems(history) == ["#1: tool message content is not text"]


def test_a_valid_history_has_no_problems():
    history = [
        {"role": "system", "content": "policy"},
        {"role": "user", "content": "x"},
        call_entry(call("a"), call("b")),
        tool_entry("b", "{}"),
        tool_entry("a", "{}"),
        {"role": "assistant", "content": "done"},
    ]
    assert problems(history) == []
    assert is_valid(history)
    assert not is_valid(history[:3])


def test_open_calls_are_the_last_replys_calls_no_tool_message_answers_yet():
    reply = call_entry(call("a"), call("b"), call("c"))
    history = [{"role": "user", "content": "x"}, reply, tool_entry("b", "{}")]
    assert open_calls(history) == [call("a"), call("c")]
    assert open_calls([*history, tool_entry("a", "{}"), tool_entry("c", "{}")]) == []


def test_open_calls_look_no_further_than_the_last_message_that_is_not_a_tool_answer():
    left_open = call_entry(call("a"))
    assert open_calls([]) == []
    assert open_calls([left_open, {"role": "user", "content": "hello?"}]) == []
    assert open_calls([left_open, {"role": "assistant", "content": "Hi."}]) == []
    assert open_calls([{"role": "assistant", "content": "Hi.", "tool_calls": None}]) == []


def test_close_open_calls_answers_each_open_call_and_returns_the_answers():
    history = [call_entry(call("a"), call("b")), tool_entry("a", "{}")]
    added = close_open_calls(history, lambda open_call: f"cancelled {open_call['id']}")
    assert added == [tool_entry("b", "cancelled b")]
    assert history[-1] == tool_entry("b", "cancelled b") and len(history) == 3
    assert close_open_calls(history, lambda open_call: "again") == []
    assert problems(history) == []
