"""The Responses API's request (agent/responses_wire.py): the loop's history as input items
and back, the body of a request, and what a valid input and an editable body are."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openai.types.responses import ResponseInputItemParam
from pydantic import TypeAdapter

from airline_agent.agent import responses_wire
from airline_agent.agent.edits import responses_body_problems
from airline_agent.agent.events import ToolCall
from airline_agent.agent.history import REASONING_ITEMS, assistant_entry, tool_entry
from airline_agent.agent.options import LoopOptions

SYSTEM = {"role": "system", "content": "You are the airline's agent."}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_reservation_details",
            "description": "The details of a reservation.",
            "parameters": {
                "type": "object",
                "properties": {"reservation_id": {"type": "string"}},
                "required": ["reservation_id"],
            },
        },
    }
]
REASONING = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "Look it up."}],
    "encrypted_content": "gAAAA",
}


def a_round() -> list[dict]:
    """A history with every kind of entry: the customer, a reply with reasoning items and
    two calls, their results, a reply in words."""
    calls = (
        ToolCall("call_1", "get_reservation_details", '{"reservation_id": "EHGLP3"}'),
        ToolCall("call_2", "get_user_details", '{"user_id": "emma_kim_9957"}'),
    )
    return [
        SYSTEM,
        {"role": "user", "content": "Cancel EHGLP3"},
        assistant_entry("Let me look.", calls, reasoning_items=(REASONING,)),
        tool_entry("call_1", '{"status": "active"}'),
        tool_entry("call_2", '{"name": "Emma"}'),
        assistant_entry("It cannot be cancelled.", ()),
    ]


def test_the_history_becomes_instructions_and_input_items() -> None:
    body = responses_wire.request_body("gpt-4o-mini", a_round(), TOOLS, LoopOptions(stream=False))
    assert body["instructions"] == SYSTEM["content"]
    assert body["input"] == [
        {"type": "message", "role": "user", "content": "Cancel EHGLP3"},
        REASONING,  # the reasoning item first, as it came, before what it led to
        {"type": "message", "role": "assistant", "content": "Let me look."},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "get_reservation_details",
            "arguments": '{"reservation_id": "EHGLP3"}',
        },
        {
            "type": "function_call",
            "call_id": "call_2",
            "name": "get_user_details",
            "arguments": '{"user_id": "emma_kim_9957"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": '{"status": "active"}'},
        {"type": "function_call_output", "call_id": "call_2", "output": '{"name": "Emma"}'},
        {"type": "message", "role": "assistant", "content": "It cannot be cancelled."},
    ]
    # Each item is one the openai package's input types take.
    adapter = TypeAdapter(ResponseInputItemParam)
    for item in body["input"]:
        adapter.validate_python(item)
    assert responses_wire.problems(body["input"]) == []


def test_the_tools_are_flat_and_never_strict_unless_said() -> None:
    [tool] = responses_wire.request_body("m", [SYSTEM], TOOLS, LoopOptions())["tools"]
    function = TOOLS[0]["function"]
    assert tool == {
        "type": "function",
        "name": function["name"],
        "parameters": function["parameters"],
        "strict": False,  # the Responses API takes a tool without it as strict
        "description": function["description"],
    }
    assert responses_wire.chat_tool(tool) == TOOLS[0]


@pytest.mark.parametrize(
    ("chosen", "sent"),
    [
        ("auto", "auto"),
        ("required", "required"),
        ("get_reservation_details", {"type": "function", "name": "get_reservation_details"}),
        (
            {"type": "function", "function": {"name": "calculate"}},
            {"type": "function", "name": "calculate"},
        ),
    ],
)
def test_tool_choice_is_named_as_the_responses_api_names_it(chosen, sent) -> None:
    body = responses_wire.request_body("m", [SYSTEM], TOOLS, LoopOptions(tool_choice=chosen))
    assert body["tool_choice"] == sent


def test_the_parameters_on_the_responses_wire() -> None:
    options = LoopOptions(
        temperature=0.2,
        max_tokens=300,
        parallel_tool_calls=False,
        stream=True,
        stop=["\n\n"],
        extra_body={"return_progress": True},
    )
    body = responses_wire.request_body("m", [SYSTEM], TOOLS, options)
    assert responses_wire.body_params(body) == {
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "temperature": 0.2,
        "max_output_tokens": 300,  # Chat's max_tokens
        "stream": True,  # no stream_options: usage comes with response.completed
        "extra_body": {"return_progress": True},
    }  # `stop` has no counterpart here: not sent


def test_the_input_goes_back_to_the_same_history() -> None:
    history = a_round()
    body = responses_wire.request_body("m", history, TOOLS, LoopOptions())
    assert responses_wire.history_of(body) == history


@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=20),  # the customer's words
            st.lists(st.sampled_from(["lookup", "user", "bad"]), max_size=3),  # calls
            st.booleans(),  # with reasoning
            st.one_of(st.none(), st.text(max_size=20)),  # the reply's text
        ),
        max_size=4,
    )
)
def test_any_history_the_loop_keeps_round_trips_and_is_valid(turns) -> None:
    history = [SYSTEM]
    for number, (words, calls, reasoned, text) in enumerate(turns):
        history.append({"role": "user", "content": words})
        made = tuple(
            ToolCall(f"call_{number}_{i}", name, "{" if name == "bad" else "{}")
            for i, name in enumerate(calls)
        )
        items = ({**REASONING, "id": f"rs_{number}"},) if reasoned and (made or text) else ()
        history.append(assistant_entry(text, made, reasoning_items=items))
        history += [tool_entry(call.call_id, "{}") for call in made]
    body = responses_wire.request_body("m", history, [], LoopOptions())
    assert responses_wire.problems(body["input"]) == []
    # Back to the same history, but for a tool round's empty text: no message item says it.
    unsaid = [
        {**entry, "content": None} if entry.get("tool_calls") and entry["content"] == "" else entry
        for entry in history
    ]
    assert responses_wire.history_of(body) == unsaid
    again = responses_wire.request_body("m", responses_wire.history_of(body), [], LoopOptions())
    assert again == body


def test_an_edited_body_with_developer_messages_and_parts_becomes_a_history() -> None:
    body = {
        "model": "m",
        "input": [
            {"role": "developer", "content": "Be brief."},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hello"}],
            },
        ],
    }
    assert responses_wire.history_of(body) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
    ]
    assert responses_wire.history_of({"model": "m", "input": "Hi"}) == [
        {"role": "user", "content": "Hi"}
    ]


@pytest.mark.parametrize(
    ("items", "problem"),
    [
        (
            [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}],
            "never answered",
        ),
        (
            [{"type": "function_call_output", "call_id": "c9", "output": "{}"}],
            "answers no open call",
        ),
        (
            [
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                {"role": "user", "content": "hm?"},
            ],
            "not answered before it",
        ),
        (
            [{"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a": '}],
            "not a JSON object",
        ),
        ([{"type": "function_call", "call_id": "", "name": "f", "arguments": "{}"}], "call_id"),
        ([{"type": "reasoning", "summary": []}, {"role": "assistant", "content": "x"}], "id"),
        ([{"type": "reasoning", "id": "rs", "summary": []}], "not followed"),
        ([{"role": "robot", "content": "x"}], "unknown role"),
    ],
)
def test_an_invalid_input_is_said_why(items, problem) -> None:
    found = responses_wire.problems(items)
    assert any(problem in line for line in found), found


def test_an_edited_body_is_checked_as_a_responses_body() -> None:
    body = responses_wire.request_body("m", a_round(), TOOLS, LoopOptions(stream=True))
    assert responses_body_problems(body) == []
    broken = json.loads(json.dumps(body))
    broken["input"] = broken["input"][:-3]  # the outputs and the reply cut: calls open
    broken["tools"][0] = {"type": "function", "function": {"name": "f"}}  # Chat's shape
    broken["tool_choice"] = {"type": "function", "function": {"name": "f"}}
    broken["max_output_tokens"] = 0
    found = responses_body_problems(broken)
    assert any("never answered" in line for line in found)
    assert any("tools #0" in line for line in found)
    assert any('"tool_choice"' in line for line in found)
    assert any('"max_output_tokens"' in line for line in found)
    assert responses_body_problems({"input": []})[:2] == [
        '"model" must be the name of a model (text)',
        '"input" must be text or a list of at least one item',
    ]


def test_what_the_trace_says_of_the_reasoning_of_a_request() -> None:
    body = responses_wire.request_body("m", a_round(), TOOLS, LoopOptions())
    assert responses_wire.reasoning_sent_back(body) == [(1, "rs_1")]
    assert responses_wire.reasoning_fate(body, {1: ("rs_1",), 2: ("rs_x",), 3: ()}) == [
        "reasoning item rs_1 of response #1 sent back (input[1])",
        "reasoning of response #2 not sent back: no reasoning item of it could go (one needs "
        "an id, and the message or call it led to)",
        "reasoning of response #3 not sent back: no reasoning item of it could go (one needs "
        "an id, and the message or call it led to)",
    ]
    assert responses_wire.input_parts(body) == "instructions + 8 input items"


def test_each_entry_of_the_history_is_placed_for_the_side_by_side_view() -> None:
    placed = [(p.position, p.part) for p in responses_wire.placed_items(a_round())]
    assert placed == [
        (1, "content"),
        (2, "reasoning[0]"),
        (2, "content"),
        (2, "tool_calls[0]"),
        (2, "tool_calls[1]"),
        (3, "content"),
        (4, "content"),
        (5, "content"),
    ]


def test_a_history_entry_without_reasoning_items_has_no_such_key() -> None:
    assert REASONING_ITEMS not in assistant_entry("hi", ())
