"""What you may put on the wire at the debugger: an edited request body, or an edited tool
call's arguments, checked before anything is sent or run.

An edited body must be a Chat Completions body that a server can take and that the loop
can go on from: a JSON object (no `NaN`, no lone UTF-16 surrogate, at most `BODY_DEPTH`
levels deep) with a `model`, `messages` that are a valid history (agent/history.py: every
tool call answered once, by its id, arguments a JSON object), `tools` that are function
tools, and the common parameters of their types. Fields this module does not know are
left alone: a server may take its own (llama-server's `return_progress`).

Text goes on the wire exactly as written, byte for byte (UTF-8); a body given as a dict
goes as the openai client encodes one (compact JSON, UTF-8, `extra_body` merged in).
Edited arguments must be a JSON object; the tool then validates them as it validates
the model's (a wrong type is an `INVALID_ARGUMENTS` result, not a refusal here).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from airline_agent.tools.untrusted import UnusableJson, depth_beyond, parse_json

# Levels of lists and objects an edited body may have: a body with tool schemas needs
# about ten; well below where recursive code breaks.
BODY_DEPTH = 64
TOOL_CHOICES = ("auto", "none", "required")
ROLES = ("system", "user", "assistant", "tool")  # as agent/history.py reads a history


class EditRefused(ValueError):
    """An edit that cannot go on the wire; `problems` says why, one sentence each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems))


# -- request bodies ----------------------------------------------------------------------


def wire_form(body: dict[str, Any]) -> dict[str, Any]:
    """A body as the client sends it: the fields of `extra_body` merged in at the top."""
    if "extra_body" not in body:
        return dict(body)
    merged = {key: value for key, value in body.items() if key != "extra_body"}
    merged.update(body.get("extra_body") or {})
    return merged


def body_text(body: dict[str, Any]) -> str:
    """The body as an editor shows it: indented JSON of its wire form."""
    return json.dumps(wire_form(body), indent=2, ensure_ascii=False)


def encoded(body: dict[str, Any]) -> bytes:
    """A body as the openai client encodes it (compact JSON, UTF-8)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def checked_body(edited: str | dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """The edited body and the bytes to send; raises EditRefused saying why not."""
    body, wire, problems = _read_body(edited)
    if problems or body is None or wire is None:
        raise EditRefused(problems)
    return body, wire


def body_problems(edited: str | dict[str, Any]) -> list[str]:
    """Why `edited` would be refused as a request body ([]: it would be sent)."""
    return _read_body(edited)[2]


def _read_body(
    edited: str | dict[str, Any],
) -> tuple[dict[str, Any] | None, bytes | None, list[str]]:
    if isinstance(edited, str):
        try:
            wire = edited.encode("utf-8")
        except UnicodeEncodeError:
            return None, None, ["the text holds a lone UTF-16 surrogate: it cannot be sent"]
        parsed = parse_json(edited, max_depth=BODY_DEPTH)
        if isinstance(parsed, UnusableJson):
            return None, None, [f"the body: {parsed.message}"]
        if parsed.lone_surrogate is not None:
            return None, None, [parsed.lone_surrogate.describe()]
        value = parsed.value
    else:
        value = edited
        if depth_beyond(value, BODY_DEPTH):
            return None, None, [f"the body is nested more than {BODY_DEPTH} levels deep"]
        try:
            wire = encoded(value)
        except (TypeError, ValueError, UnicodeEncodeError) as exc:
            return None, None, [f"the body cannot be written as JSON ({exc})"]
    if not isinstance(value, dict):
        return None, None, [f"the body must be a JSON object, not {_kind(value)}"]
    problems = _body_shape(value)
    return value, wire, problems


def _body_shape(body: dict[str, Any]) -> list[str]:
    from airline_agent.agent.history import problems as history_problems

    found: list[str] = []
    model = body.get("model")
    if not isinstance(model, str) or not model.strip():
        found.append('"model" must be the name of a model (text)')
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        found.append('"messages" must be a list of at least one message')
    elif all(isinstance(message, dict) for message in messages):
        found.extend(_message_problems(messages))
        found.extend(f"messages {problem}" for problem in history_problems(messages))
    else:
        found.append('every one of "messages" must be a JSON object')
    found.extend(_tools_problems(body))
    found.extend(_parameter_problems(body))
    return found


def _message_problems(messages: list[dict[str, Any]]) -> list[str]:
    found: list[str] = []
    for position, message in enumerate(messages):
        role, content = message.get("role"), message.get("content")
        if role not in ROLES:
            continue  # the history check names it
        if role == "tool" and not isinstance(message.get("tool_call_id"), str):
            found.append(f"messages #{position}: a tool message needs its tool_call_id")
        if role in ("system", "user") and not _is_content(content):
            found.append(f"messages #{position}: {role} content must be text or a list of parts")
        if role == "assistant" and content is not None and not _is_content(content):
            found.append(f"messages #{position}: assistant content must be text, parts or null")
    return found


def _is_content(content: Any) -> bool:
    return isinstance(content, str) or (
        isinstance(content, list) and all(isinstance(part, dict) for part in content)
    )


def _tools_problems(body: dict[str, Any]) -> list[str]:
    found: list[str] = []
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            found.append('"tools" must be a list')
            tools = []
        for position, tool in enumerate(tools):
            function = tool.get("function") if isinstance(tool, dict) else None
            if not isinstance(tool, dict) or tool.get("type") != "function":
                found.append(f'tools #{position}: must be {{"type": "function", …}}')
            elif not isinstance(function, dict) or not _named(function):
                found.append(f"tools #{position}: its function needs a name")
            elif "parameters" in function and not isinstance(function["parameters"], dict):
                found.append(f"tools #{position}: its parameters must be a JSON schema object")
    choice = body.get("tool_choice")
    if choice is not None:
        if isinstance(choice, str):
            if choice not in TOOL_CHOICES:
                choices = ", ".join(TOOL_CHOICES)
                found.append(f'"tool_choice" must be one of {choices} or a function')
        elif not (
            isinstance(choice, dict)
            and choice.get("type") == "function"
            and isinstance(choice.get("function"), dict)
            and _named(choice["function"])
        ):
            found.append('"tool_choice" must be {"type": "function", "function": {"name": …}}')
        if choice != "none" and not tools:
            found.append('"tool_choice" needs "tools"')
    return found


def _named(function: dict[str, Any]) -> bool:
    name = function.get("name")
    return isinstance(name, str) and bool(name.strip())


def _parameter_problems(body: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for name in ("stream", "parallel_tool_calls"):
        if name in body and not isinstance(body[name], bool):
            found.append(f'"{name}" must be true or false')
    if "stream_options" in body and not isinstance(body["stream_options"], dict):
        found.append('"stream_options" must be an object')
    for name, low, high in (("temperature", 0, 2), ("top_p", 0, 1)):
        if name in body and not _number_within(body[name], low, high):
            found.append(f'"{name}" must be a number from {low} to {high}')
    for name in ("max_tokens", "max_completion_tokens", "n"):
        value = body.get(name)
        if name in body and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            found.append(f'"{name}" must be a whole number of at least 1')
    stop = body.get("stop")
    if stop is not None and not (
        isinstance(stop, str) or (isinstance(stop, list) and all(isinstance(s, str) for s in stop))
    ):
        found.append('"stop" must be text or a list of texts')
    return found


def _number_within(value: Any, low: float, high: float) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and low <= value <= high
    )


def _kind(value: Any) -> str:
    return {list: "a list", str: "text", bool: "true or false", type(None): "null"}.get(
        type(value), "a number"
    )


# -- tool call arguments -----------------------------------------------------------------


def arguments_text(arguments: str) -> str:
    """A call's arguments as an editor shows them: indented JSON, or the model's text as
    it was when it is no JSON object."""
    from airline_agent.agent.history import parse_arguments

    parsed = parse_arguments(arguments)
    if parsed is None:
        return arguments
    return json.dumps(parsed, indent=2, ensure_ascii=False)


def arguments_problems(edited: str | dict[str, Any]) -> list[str]:
    """Why `edited` would be refused as a tool call's arguments ([]: the call would run)."""
    from airline_agent.agent.history import parse_arguments

    if isinstance(edited, dict):
        try:
            text = encoded(edited).decode()
        except (TypeError, ValueError, UnicodeEncodeError) as exc:
            return [f"the arguments cannot be written as JSON ({exc})"]
    else:
        text = edited
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return ["the arguments hold a lone UTF-16 surrogate"]
    if not text.strip() or parse_arguments(text) is None:
        return ['the arguments must be one JSON object, such as {"reservation_id": "EHGLP3"}']
    return []


def checked_arguments(edited: str | dict[str, Any]) -> str:
    """The edited arguments as the call's text; raises EditRefused saying why not."""
    problems = arguments_problems(edited)
    if problems:
        raise EditRefused(problems)
    return edited if isinstance(edited, str) else encoded(edited).decode()
