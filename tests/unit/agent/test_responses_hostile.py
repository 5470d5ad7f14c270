"""Hostile edits of a body held on the Responses wire: each is refused saying why (or
sent), never a crash; a named tool_choice must be one of the tools offered."""

from __future__ import annotations

import json
from typing import Any

import pytest

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
