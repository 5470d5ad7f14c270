"""Tool calls a model wrote as text instead of making them.

A small local model whose chat template the server did not parse answers with the call
itself as its reply, e.g. `{{"name": "get_reservation_details", "arguments":
{"reservation_id": "EHGLP3"}}}` with `finish_reason: stop` and no `tool_calls` (issue
12, seen with Qwen2.5-Coder 1.5B on llama.cpp). Nothing was run, and the customer must
not be told otherwise. The shapes recognised: a JSON object with `name` and `arguments`
(or `parameters`), bare or inside `<tool_call>` tags or code fences, also with the
doubled braces of a template; and `tool_name({...})` / `tool_name(key="value")` for a
tool the agent has.

With `--recover-text-tool-calls` the loop makes such calls for the model
(`recovered_calls`): only calls of a tool the agent has, with arguments that could be
read; each gets an id of the framework's (`recovered_…`) and the loop says so with a
`ToolCallsRecovered` event, so that no front end shows them as the model's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from airline_agent.agent import pattern_cues as cued
from airline_agent.tools.untrusted import JsonObject, ParsedJson, parse_json_at

_NAMED = re.compile(r"""["']name["']\s*:\s*["']([A-Za-z_][\w.-]{0,63})["']""")
_ARGUMENTS = re.compile(r"""["'](?:arguments|parameters)["']\s*:\s*""")
_CALL_SYNTAX = re.compile(r"\b([a-z][a-z0-9_]{2,63})\s*\(\s*(\{|[a-z_]+\s*=|\))")
_KEYWORD_ARGUMENT = re.compile(r"""([a-z_]\w*)\s*=\s*(?:"([^"]*)"|'([^']*)'|(-?\d+(?:\.\d+)?))""")
_SHOWN = 120  # characters of the written call quoted in a finding


@dataclass(frozen=True)
class TextToolCall:
    name: str
    arguments: JsonObject | None  # None when they could not be read
    written: str  # the call as it stands in the reply, shortened
    position: int


def text_tool_calls(text: str, tool_names: frozenset[str] = frozenset()) -> list[TextToolCall]:
    """The tool calls written in `text`, in order. With `tool_names`, a JSON-shaped call
    counts for any name (a model may invent a tool) but `name(...)` only for a known one."""
    found: list[TextToolCall] = []
    for m in cued.finditer(_NAMED, text):  # a text without "name" or "(" is not read
        arguments_key = _ARGUMENTS.search(text, max(0, m.start() - 400), m.end() + 400)
        if arguments_key is None:
            continue  # a "name" alone is not a call (a passenger's name, say)
        start = text.rfind("{", 0, m.start())
        found.append(
            TextToolCall(
                name=m.group(1),
                arguments=_json_object(text, arguments_key.end()),
                written=_shown(text[start if start >= 0 else m.start() :]),
                position=m.start(),
            )
        )
    for m in cued.finditer(_CALL_SYNTAX, text):
        name = m.group(1)
        if name not in tool_names or any(abs(c.position - m.start()) < 200 for c in found):
            continue
        if m.group(2) == "{":
            arguments = _json_object(text, m.start(2))
        elif m.group(2) == ")":
            arguments = {}
        else:
            arguments = _keyword_arguments(
                text[m.start(2) : text.find(")", m.start(2)) + 1 or None]
            )
        found.append(TextToolCall(name, arguments, _shown(text[m.start() :]), m.start()))
    return sorted(found, key=lambda call: call.position)


def recovered_calls(
    text: str, tool_names: frozenset[str], request: int
) -> tuple[tuple[str, str, JsonObject], ...]:
    """The calls written in `text` that can be made: (call id, tool, arguments), in order."""
    return tuple(
        (f"recovered_{request}_{position}", call.name, call.arguments)
        for position, call in enumerate(
            c for c in text_tool_calls(text, tool_names) if c.name in tool_names
        )
        if call.arguments is not None
    )


def _json_object(text: str, start: int) -> JsonObject | None:
    """The JSON object at `start` (doubled template braces tolerated), or None: read as
    any JSON from outside is (`untrusted.parse_json_at`: no NaN, no number out of range,
    no lone surrogate, not nested past what a tool takes)."""
    start = text.find("{", start)
    if start < 0:
        return None
    candidate = text[start:]
    for attempt in (candidate, candidate.replace("{{", "{").replace("}}", "}")):
        parsed = parse_json_at(attempt)
        if (
            isinstance(parsed, ParsedJson)
            and parsed.lone_surrogate is None
            and isinstance(parsed.value, dict)
        ):
            return parsed.value
    return None


def _keyword_arguments(text: str) -> JsonObject:
    arguments: JsonObject = {}
    for m in _KEYWORD_ARGUMENT.finditer(text):
        key, double, single, number = m.groups()
        if number is not None:
            arguments[key] = float(number) if "." in number else int(number)
        else:
            arguments[key] = double if double is not None else single
    return arguments


def _shown(text: str) -> str:
    one_line = " ".join(text.split())
    end = _end_of_call(one_line)
    shown = one_line[:end]
    return shown if len(shown) <= _SHOWN else shown[: _SHOWN - 1] + "…"


def _end_of_call(text: str) -> int:
    """Where the written call ends: its braces or parentheses balanced again."""
    depth = 0
    for index, char in enumerate(text):
        if char in "{(":
            depth += 1
        elif char in "})":
            depth -= 1
            if depth <= 0:
                return index + 1
    return len(text)
