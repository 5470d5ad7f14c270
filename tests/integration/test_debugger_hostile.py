"""Hostile edits at the debugger, through the real `openai` client to a loopback server: a
held request body, or a held tool call's arguments, edited into anything at all (not
JSON, nested 100,000 deep, numbers of 10,000 digits, lone surrogates, duplicate keys,
values of the wrong type, a named tool the request does not offer, a tool message that
answers no call, 3 MB of text, NUL and escape sequences). Each edit is either refused
with one clear line, nothing sent, or sent byte for byte: never a crash, never a hang."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from airline_agent.agent import edits
from airline_agent.agent.debugger_errors import EditRefused
from airline_agent.agent.events import RequestHeld, RequestSent, ToolCallHeld, ToolFinished
from tests.integration.test_debugger_wire import Turn, debugged
from tests.support.chat_server import ChatServer
from tests.support.events import of_type

pytestmark = pytest.mark.usefixtures("closing_loopback_backends")


def _changed(body: dict[str, Any], **changes: Any) -> str:
    return json.dumps({**body, **changes})


def _with_messages(body: dict[str, Any], *extra: dict[str, Any]) -> str:
    return _changed(body, messages=[*body["messages"], *extra])


def _hostile_bodies(body: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Each hostile body (as the text you would type) and a part of the one line that
    refuses it."""
    text = json.dumps(body)
    user = {"role": "user", "content": "hi"}
    call = {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}}
    return {
        "not JSON": ("model: gpt", "not valid JSON"),
        "empty": ("", "not valid JSON"),
        "null": ("null", "must be a JSON object, not null"),
        "a list": (f"[{text}]", "must be a JSON object, not a list"),
        "100k nesting": ("[" * 100_000 + "]" * 100_000, "nested more than"),
        "100k nested objects": ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested more than"),
        "model 5": (_changed(body, model=5), '"model" must be the name of a model'),
        "temperature hot": (_changed(body, temperature="hot"), '"temperature" must be a number'),
        "tools an object": (_changed(body, tools={"type": "function"}), '"tools" must be a list'),
        "content 5": (_changed(body, messages=[{"role": "user", "content": 5}]), "user content"),
        "10,000-digit integer": (text[:-1] + ', "seed": ' + "9" * 10_000 + "}", "out of range"),
        "10,000-digit fraction": (
            text[:-1] + ', "temperature": 0.' + "1" * 10_000 + "}",
            "out of range",
        ),
        "lone surrogate escaped": (
            _with_messages(body, {"role": "user", "content": "x"}).replace('"x"', '"\\ud83d"'),
            "lone surrogate",
        ),
        "lone surrogate as a character": (
            _with_messages(body, {"role": "user", "content": "x"}).replace('"x"', '"\ud83d"'),
            "lone UTF-16 surrogate",
        ),
        "tool_choice naming a tool not offered": (
            _changed(body, tool_choice={"type": "function", "function": {"name": "delete_all"}}),
            "'delete_all', which \"tools\" does not offer",
        ),
        "a tool message answering no call": (
            _with_messages(body, {"role": "tool", "tool_call_id": "nobody", "content": "{}"}),
            "answers no open call",
        ),
        "duplicate keys": ('{"model": "a", ' + text[1:], "given twice"),
        "tool_calls an object": (
            _with_messages(body, {"role": "assistant", "content": None, "tool_calls": call}),
            "tool_calls must be a list",
        ),
        "a tool call that is text": (
            _with_messages(body, {"role": "assistant", "content": None, "tool_calls": ["c1"]}),
            "tool_calls #0 must be",
        ),
        "a tool_call_id that is a list": (
            _with_messages(
                body,
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": ["c1"], "content": "{}"},
                user,
            ),
            "tool_call_id must be text",
        ),
        "a text part without its text": (
            _with_messages(body, {"role": "user", "content": [{"type": "text"}]}),
            "user content",
        ),
        "seed as text": (_changed(body, seed="lucky"), '"seed" must be a whole number'),
        "a message that is text": (_changed(body, messages=["hi"]), "must be a JSON object"),
    }


async def test_each_hostile_body_is_refused_with_one_line_and_nothing_is_sent(
    db: Path, chat_server: ChatServer
):
    stack = debugged(db, chat_server)
    stack.debugger.breakpoints.request = True
    chat_server.completion("Hello.")
    turn = Turn(stack.session.run_turn("hi"))
    held = await turn.hold()
    assert isinstance(held, RequestHeld)
    body = json.loads(edits.held_text(held))
    said: dict[str, list[str]] = {}
    for name, (text, line) in _hostile_bodies(body).items():
        problems = edits.held_problems(held, text)
        said[name] = problems
        assert len(problems) == 1 and line in problems[0] and "\n" not in problems[0], name
        with pytest.raises(EditRefused) as refused:
            edits.go_on_edited(held, text)
        assert refused.value.problems == tuple(problems), name
        assert not held.release.done() and chat_server.raw_requests == [], name
    held.go()
    await turn.end()
    assert len(chat_server.raw_requests) == 1  # the body as assembled, after all of them
    stack.close()


@pytest.mark.parametrize(
    "content",
    ["x" * 3_000_000, "NUL \u0000, escape \u001b[31mred\u001b[0m, bell \u0007, DEL \u007f"],
    ids=["3 MB of text", "NUL and escape sequences"],
)
async def test_a_hostile_but_valid_body_is_sent_byte_for_byte(
    db: Path, chat_server: ChatServer, content: str
):
    stack = debugged(db, chat_server)
    stack.debugger.breakpoints.request = True
    chat_server.completion("Hello.")
    turn = Turn(stack.session.run_turn("hi"))
    held = await turn.hold()
    assert isinstance(held, RequestHeld)
    body = json.loads(edits.held_text(held))
    body["messages"][-1]["content"] = content
    edited = json.dumps(body, ensure_ascii=False)
    assert edits.held_problems(held, edited) == []
    edits.go_on_edited(held, edited)
    events = await turn.end()
    assert chat_server.raw_requests == [edited.encode("utf-8")]
    [sent] = of_type(events, RequestSent)
    assert sent.edit is not None and sent.messages[-1]["content"] == content
    stack.close()


HOSTILE_ARGUMENTS = {
    "not JSON": ("reservation EHGLP3", "not valid JSON"),
    "empty": ("", "one JSON object"),
    "null": ("null", "one JSON object, such as"),
    "a list": ('["HAT156"]', "not a list"),
    "100k nesting": ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested more than"),
    "10,000-digit number": ('{"flight_number": ' + "7" * 10_000 + "}", "out of range"),
    "lone surrogate": ('{"flight_number": "\\udc00"}', "lone surrogate"),
    "duplicate keys": ('{"flight_number": "HAT156", "flight_number": "HAT001"}', "given twice"),
}


async def test_hostile_arguments_are_refused_with_one_line_or_run_as_given(
    db: Path, chat_server: ChatServer
):
    stack = debugged(db, chat_server)
    stack.debugger.breakpoints.step = True
    model_says = {"flight_number": "HAT156", "date": "2024-05-16"}
    chat_server.completion(tool_calls=[("get_flight_status", model_says, "call_status")])
    chat_server.completion("Done.")
    turn = Turn(stack.session.run_turn("Is HAT156 flying?"))
    first = await turn.hold()
    assert isinstance(first, RequestHeld)
    first.go()
    held = await turn.hold()
    assert isinstance(held, ToolCallHeld)
    for name, (text, line) in HOSTILE_ARGUMENTS.items():
        problems = edits.held_problems(held, text)
        assert len(problems) == 1 and line in problems[0] and "\n" not in problems[0], name
        with pytest.raises(EditRefused):
            edits.go_on_edited(held, text)
        assert not held.release.done(), name
    # 3 MB of text with NUL and escapes is a JSON object: the tool runs with it, and
    # answers with its own error, not a crash.
    huge = json.dumps({"flight_number": "\u0000\u001b[2J" + "H" * 3_000_000, "date": "x"})
    assert edits.held_problems(held, huge) == []
    edits.go_on_edited(held, huge)
    second = await turn.hold()
    assert isinstance(second, RequestHeld)
    second.go()
    events = await turn.end()
    [finished] = of_type(events, ToolFinished)
    assert finished.error is not None and finished.edit is not None
    assert finished.edit.edited == huge
    stack.close()


async def test_a_tool_message_holding_json_nested_100k_deep_is_sent_and_the_turn_goes_on(
    db: Path, chat_server: ChatServer
):
    """Its text is anything you like, and the loop reads it as JSON to tell an error result
    (the grounding check, the anatomy): json's recursive reader raised RecursionError there,
    after the body was sent."""
    stack = debugged(db, chat_server)
    stack.debugger.breakpoints.request = True
    chat_server.completion("Hello.")
    turn = Turn(stack.session.run_turn("hi"))
    held = await turn.hold()
    assert isinstance(held, RequestHeld)
    body = json.loads(edits.held_text(held))
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    deep = '{"error": ' * 100_000 + "1" + "}" * 100_000
    body["messages"] += [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": deep},
        {"role": "user", "content": "and now?"},
    ]
    edited = json.dumps(body)
    assert edits.held_problems(held, edited) == []
    edits.go_on_edited(held, edited)
    events = await turn.end()
    assert chat_server.raw_requests == [edited.encode("utf-8")]
    [sent] = of_type(events, RequestSent)
    assert sent.edit is not None and sent.edit.changed_messages() == (2, 3, 4)
    assert events[-1].reason == "answered"
    stack.close()
