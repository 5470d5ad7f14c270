"""Hostile edits of a body held on the Responses wire: each is refused saying why (or
sent), never a crash; a named tool_choice must be one of the tools offered."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from airline_agent.agent import responses_wire
from airline_agent.agent.edits import body_problems
from airline_agent.agent.options import LoopOptions

TOOLS = [{"type": "function", "function": {"name": "get_user_details", "parameters": {}}}]
HISTORY: list[Any] = [
    {"role": "system", "content": "You are an airline agent."},
    {"role": "user", "content": "hi"},
]
HELD = responses_wire.request_body("m", HISTORY, TOOLS, LoopOptions())


def _changed(**changes: Any) -> str:
    return json.dumps({**HELD, **changes})


HOSTILE = {
    "not JSON": ("input: hi", "not valid JSON"),
    "null": ("null", "must be a JSON object, not null"),
    "100k nesting": ("[" * 100_000 + "]" * 100_000, "nested more than"),
    "duplicate keys": ('{"model": "a", ' + json.dumps(HELD)[1:], "given twice"),
    "10,000-digit number": (json.dumps(HELD)[:-1] + ', "seed": ' + "9" * 10_000 + "}", "range"),
    "model 5": (_changed(model=5), '"model"'),
    "input an object": (_changed(input={"role": "user"}), '"input"'),
    "an input item that is text": (_changed(input=["hi"]), "not an object"),
    "content 5": (_changed(input=[{"role": "user", "content": 5}]), "content"),
    "tools an object": (_changed(tools={"type": "function"}), '"tools" must be a list'),
    "temperature hot": (_changed(temperature="hot"), '"temperature"'),
    "an output answering no call": (
        _changed(input=[*HELD["input"], {"type": "function_call_output", "call_id": "x"}]),
        "answers no open call",
    ),
    "tool_choice naming a tool not offered": (
        _changed(tool_choice={"type": "function", "name": "delete_all"}),
        "'delete_all', which \"tools\" does not offer",
    ),
}


@pytest.mark.parametrize(("text", "said"), HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_responses_body_is_refused_saying_why(text: str, said: str) -> None:
    problems = body_problems(text, like=HELD)
    assert any(said in problem for problem in problems), problems
    assert all("\n" not in problem for problem in problems)


def test_a_tool_choice_naming_an_offered_tool_is_taken() -> None:
    chosen = _changed(tool_choice={"type": "function", "name": "get_user_details"})
    assert body_problems(chosen, like=HELD) == []


def _with_input(*items: dict[str, Any]) -> str:
    return _changed(input=[*HELD["input"], *items])


CALL = {"type": "function_call", "call_id": "c1", "name": "get_user_details", "arguments": "{}"}
# Fields of the wrong type that a body's shape check by hand let through: the openai
# package's own Responses types name each, one line, the field and what it must be.
WRONG_TYPES = {
    "reasoning not an object": (_changed(reasoning=5), '"reasoning" must be a JSON object'),
    "text format unknown": (
        _changed(text={"format": {"type": "bogus"}}),
        '"text" format must be {"type": "text"}, {"type": "json_object"} or '
        '{"type": "json_schema", …}',
    ),
    "metadata not text": (_changed(metadata={"a": 1}), '"metadata" a must be text'),
    "top_logprobs text": (_changed(top_logprobs="5"), '"top_logprobs" must be a whole number'),
    "a tool's strict not a boolean": (
        _changed(tools=[{**HELD["tools"][0], "strict": "yes"}]),
        "tools #0: strict must be true or false",
    ),
    "a tool's description a number": (
        _changed(tools=[{**HELD["tools"][0], "description": 5}]),
        "tools #0: description must be text",
    ),
    "a content part's text a number": (
        _with_input({"role": "user", "content": [{"type": "input_text", "text": 5}]}),
        "input #1: user content must be text or a list of parts",
    ),
    "an output that is a list of numbers": (
        _with_input(CALL, {"type": "function_call_output", "call_id": "c1", "output": [5]}),
        "input #2: function_call_output output must be text or a list of parts",
    ),
}


@pytest.mark.parametrize(("text", "said"), WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_a_field_of_the_wrong_type_is_refused_by_the_openai_types(text: str, said: str) -> None:
    assert body_problems(text, like=HELD) == [said]


def test_the_forms_the_responses_api_takes_are_taken() -> None:
    reply = {
        "type": "message",
        "role": "assistant",
        "id": "msg_1",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Hello.", "annotations": []}],
    }
    parts = {"role": "user", "content": [{"type": "input_text", "text": "and?"}]}
    body = {
        **HELD,
        "input": [*HELD["input"], reply, parts],
        "reasoning": {"effort": "low"},
        "text": {"format": {"type": "json_object"}},
        "metadata": {"case": "7"},
        "return_progress": True,  # a server's own field, left alone
    }
    assert body_problems(json.dumps(body), like=HELD) == []


def test_a_role_that_is_no_text_is_said_unknown() -> None:
    # A list or an object as a role was looked up among the roles and raised TypeError
    # (unhashable), which the editor does not catch.
    for role in (["user"], {"user": 1}):
        problems = body_problems(_with_input({"role": role, "content": "hi"}), like=HELD)
        assert problems == [f"input #1: unknown role {role!r}"]
        assert responses_wire.problems([{"role": role, "content": "hi"}]) == [
            f"#0: unknown role {role!r}"
        ]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)
ITEM_FIELDS = ["type", "role", "content", "call_id", "name", "arguments", "output", "id"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from([*sorted(HELD), "reasoning", "text", "top_p"]), JSON),
    st.lists(st.dictionaries(st.sampled_from(ITEM_FIELDS), JSON), max_size=3),
)
def test_no_value_makes_the_responses_check_raise(
    changes: dict[str, Any], items: list[dict[str, Any]]
) -> None:
    assert isinstance(body_problems({**HELD, **changes}, like=HELD), list)
    assert isinstance(body_problems({**HELD, "input": items}, like=HELD), list)
