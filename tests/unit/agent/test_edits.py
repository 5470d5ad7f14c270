"""Edits at the debugger are checked before anything goes on the wire: a request body must
be a Chat Completions body the loop can go on from, a call's arguments a JSON object; and
no input, however hostile, makes the check raise."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from airline_agent.agent.debugger_errors import EditRefused
from airline_agent.agent.edits import (
    arguments_problems,
    body_problems,
    body_text,
    checked_arguments,
    checked_body,
    wire_form,
)

BODY: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "messages": [
        {"role": "system", "content": "You are an airline agent."},
        {"role": "user", "content": "what is EHGLP3?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_reservation_details", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "{}"},
    ],
    "tools": [{"type": "function", "function": {"name": "get_reservation_details"}}],
    "tool_choice": "auto",
    "stream": True,
    "stream_options": {"include_usage": True},
}


def with_(**changes: Any) -> dict[str, Any]:
    return {**BODY, **changes}


def test_a_body_as_the_framework_assembles_it_is_accepted_and_sent_as_written() -> None:
    text = json.dumps(BODY, indent=3)
    assert body_problems(text) == []
    body, wire = checked_body(text)
    assert body == BODY and wire == text.encode()
    body, wire = checked_body(BODY)  # a dict: as the client encodes one
    assert wire == json.dumps(BODY, separators=(",", ":"), ensure_ascii=False).encode()


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (with_(model=""), '"model"'),
        (with_(messages=[]), '"messages"'),
        (with_(messages=BODY["messages"][:3]), "never answered"),
        (with_(messages=[*BODY["messages"], {"role": "robot", "content": "x"}]), "unknown role"),
        (with_(messages=[{"role": "user", "content": 5}]), "user content"),
        (with_(tools=[{"type": "retrieval"}]), "tools #0"),
        (with_(tool_choice="sometimes"), '"tool_choice"'),
        ({**{k: v for k, v in BODY.items() if k != "tools"}, "tool_choice": "required"}, "needs"),
        (with_(temperature=3), '"temperature"'),
        (with_(max_tokens=0), '"max_tokens"'),
        (with_(stream="yes"), '"stream"'),
        (with_(stop=[1]), '"stop"'),
    ],
)
def test_a_body_that_is_no_chat_completions_body_is_refused_saying_why(body, said) -> None:
    problems = body_problems(body)
    assert any(said in problem for problem in problems), problems
    with pytest.raises(EditRefused):
        checked_body(json.dumps(body))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "not valid JSON"),
        ("[1, 2]", "JSON object, not a list"),
        ('{"model": "m", "temperature": NaN, "messages": []}', "NaN is not JSON"),
        ('{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}', "surrogate"),
        ("[" * 5000 + "]" * 5000, "nested"),
    ],
)
def test_text_that_cannot_be_sent_is_refused(text: str, said: str) -> None:
    assert any(said in problem for problem in body_problems(text)), body_problems(text)


def test_extra_body_is_shown_where_the_client_sends_it() -> None:
    body = {"model": "m", "messages": [], "extra_body": {"return_progress": True}}
    assert wire_form(body) == {"model": "m", "messages": [], "return_progress": True}
    assert '"return_progress": true' in body_text(body)


def test_arguments_must_be_one_json_object() -> None:
    assert arguments_problems('{"reservation_id": "EHGLP3"}') == []
    assert checked_arguments({"reservation_id": "EHGLP3"}) == '{"reservation_id":"EHGLP3"}'
    for bad in ("", "[1]", '{"reservation_id": "EH', "null", "\ud800"):
        assert arguments_problems(bad), bad
        with pytest.raises(EditRefused):
            checked_arguments(bad)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), JSON.map(lambda v: json.dumps(v, allow_nan=True))))
def test_no_text_makes_the_check_raise(text: str) -> None:
    assert isinstance(body_problems(text), list)
    assert isinstance(arguments_problems(text), list)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from([*sorted(BODY), "n", "temperature", "stop"]), JSON))
def test_no_value_makes_the_check_raise(changes: dict[str, Any]) -> None:
    assert isinstance(body_problems({**BODY, **changes}), list)


def test_the_diff_of_arguments_nested_100k_deep_shows_them_as_the_text_they_were() -> None:
    # Such arguments are unusable, so their call may be edited; json's recursive reader
    # raised RecursionError when the trace drew the edit's diff.
    from airline_agent.agent.events import ArgumentsEdit

    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    diff = ArgumentsEdit(1, "c1", "f", deep, '{"a": 1}').diff()
    assert "f arguments (edited: you)" in diff and '+  "a": 1' in diff
