"""What you may put on the wire at the debugger: an edited request body, or an edited tool
call's arguments, checked before anything is sent or run.

An edited body must be a Chat Completions body that a server can take and that the loop
can go on from. Its shape is the `openai` package's own (`CompletionCreateParams`, each
message by its role's `…MessageParam`, function tools, the tool choice), checked with
pydantic's `TypeAdapter`, strictly: text where the API takes text, a list where it takes
one. On top of that, the rules that are ours: JSON text without `NaN`, duplicate keys or
lone UTF-16 surrogates, at most `BODY_DEPTH` levels deep (`untrusted.parse_json`); the
messages a valid history (agent/history.py: every tool call answered once, by its id,
arguments a JSON object); a named `tool_choice` one of the tools offered; the ranges the
API reference gives and its types do not carry (`temperature`, `top_p`, token counts). A
request held on the Responses wire takes a Responses body instead, checked the same way
against the package's Responses types (`responses_body_problems`; the rules of its
`input` are agent/responses_wire.py's: every function call answered once by its
`call_id`). Fields neither knows are left alone: a server may take its own
(llama-server's `return_progress`).

Each problem is one line for a person: where (`"temperature"`, `messages #2: user
content`) and what it must be.

Text goes on the wire exactly as written, byte for byte (UTF-8); a body given as a dict
goes as the openai client encodes one (compact JSON, UTF-8, `extra_body` merged in).
Edited arguments must be a JSON object; the tool then validates them as it validates
the model's (a wrong type is an `INVALID_ARGUMENTS` result, not a refusal here).

A hold of the debugger (`RequestHeld`, `ToolCallHeld`: plain data) is shown, checked and
let go with an edit here: `held_text`, `held_problems`, `go_on_edited`. The TUI imports
this module with its first screen; pydantic and the openai package's types are loaded
when the first edit is checked.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from functools import cache
from typing import TYPE_CHECKING, Protocol, cast

from airline_agent.agent import responses_wire
from airline_agent.agent.debugger_errors import EditRefused
from airline_agent.agent.events import CallRelease, RequestHeld, RequestRelease, ToolCallHeld
from airline_agent.agent.history import parse_arguments
from airline_agent.agent.history import problems as history_problems
from airline_agent.agent.wire import api_of
from airline_agent.late_imports import importing
from airline_agent.tools.untrusted import JsonObject, UnusableJson, depth_beyond, parse_json

if TYPE_CHECKING:
    from airline_agent.agent.wire_types import WireTypes

# Levels of lists and objects an edited body may have: a body with tool schemas needs
# about ten; well below where recursive code breaks.
BODY_DEPTH = 64
TOOL_CHOICES = ("auto", "none", "required")
ROLES = ("system", "user", "assistant", "tool")  # as agent/history.py reads a history
# The body's fields checked on their own (each message by its role, each tool), not as
# part of the body's parameters.
OWN_CHECKS = ("messages", "tools", "tool_choice", "stream")
ARGUMENTS_EXAMPLE = 'the arguments must be one JSON object, such as {"reservation_id": "EHGLP3"}'

# What a field must be, said once for all the forms the API takes (where a field takes
# several, pydantic reports each form that did not fit).
FORMS = {
    "model": "must be the name of a model (text)",
    "content": "must be text or a list of parts",
    "stop": "must be text or a list of texts",
    "tool_choice": (
        'must be one of auto, none, required or {"type": "function", "function": {"name": …}}'
    ),
    "tool_calls": 'must be {"id": …, "type": "function", "function": {"name": …, "arguments": …}}',
    "output": "must be text or a list of parts",  # a Responses function_call_output's
    "format": 'must be {"type": "text"}, {"type": "json_object"} or {"type": "json_schema", …}',
}
# What a value of pydantic's error type must be, in words.
KINDS = {
    "string_type": "must be text",
    "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "bool_type": "must be true or false",
    "dict_type": "must be a JSON object",
    "list_type": "must be a list",
    "iterable_type": "must be a list",
    "missing": "is missing",
    "none_required": "must be null",
    "finite_number": "must be a finite number",
}
# Ranges the API reference gives that its types do not carry: (low, high, whole number).
RANGES: dict[str, tuple[float, float | None, bool]] = {
    "temperature": (0, 2, False),
    "top_p": (0, 1, False),
    "max_tokens": (1, None, True),
    "max_completion_tokens": (1, None, True),
    "n": (1, None, True),
}


# -- request bodies ----------------------------------------------------------------------


def wire_form(body: Mapping[str, object]) -> dict[str, object]:
    """A body as the client sends it: the fields of `extra_body` merged in at the top."""
    if "extra_body" not in body:
        return dict(body)
    merged = {key: value for key, value in body.items() if key != "extra_body"}
    extra = body.get("extra_body")
    if isinstance(extra, Mapping):
        merged.update(extra)
    return merged


def body_text(body: Mapping[str, object]) -> str:
    """The body as an editor shows it: indented JSON of its wire form."""
    return json.dumps(wire_form(body), indent=2, ensure_ascii=False)


def encoded(body: object) -> bytes:
    """A body as the openai client encodes it (compact JSON, UTF-8)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def checked_body(
    edited: str | Mapping[str, object], like: Mapping[str, object] | None = None
) -> tuple[JsonObject, bytes]:
    """The edited body and the bytes to send; raises EditRefused saying why not. `like`:
    the body as assembled, whose wire the edit must keep (None: Chat Completions)."""
    body, wire, problems = _read_body(edited, like)
    if problems or body is None or wire is None:
        raise EditRefused(problems)
    return body, wire


def body_problems(
    edited: str | Mapping[str, object], like: Mapping[str, object] | None = None
) -> list[str]:
    """Why `edited` would be refused as a request body ([]: it would be sent)."""
    return _read_body(edited, like)[2]


def _read_body(
    edited: str | Mapping[str, object], like: Mapping[str, object] | None
) -> tuple[JsonObject | None, bytes | None, list[str]]:
    if isinstance(edited, str):
        try:
            wire = edited.encode("utf-8")
        except UnicodeEncodeError:
            return None, None, ["the text holds a lone UTF-16 surrogate: it cannot be sent"]
        parsed = parse_json(edited, max_depth=BODY_DEPTH, unique_keys=True)
        if isinstance(parsed, UnusableJson):
            return None, None, [f"the body: {parsed.message}"]
        if parsed.lone_surrogate is not None:
            return None, None, [parsed.lone_surrogate.describe()]
        value: object = parsed.value
    else:
        if depth_beyond(edited, BODY_DEPTH):
            return None, None, [f"the body is nested more than {BODY_DEPTH} levels deep"]
        try:
            wire = encoded(edited)
        except (TypeError, ValueError, UnicodeEncodeError) as exc:
            return None, None, [f"the body cannot be written as JSON ({exc})"]
        value = cast("JsonObject", edited)  # `encoded` wrote it: JSON values throughout
    if not isinstance(value, dict):
        return None, None, [f"the body must be a JSON object, not {_kind(value)}"]
    if like is not None and api_of(like) == "responses":
        return value, wire, responses_body_problems(value)
    return value, wire, chat_body_problems(value)


def chat_body_problems(body: Mapping[str, object]) -> list[str]:
    """Why a Chat Completions body would be refused ([]: it would be sent)."""
    found = _message_problems(body.get("messages"))
    model = body.get("model")
    if isinstance(model, str) and not model.strip():
        found.append(f'"model" {FORMS["model"]}')
    tools = body.get("tools")
    found += _tools_problems(tools)
    found += _tool_choice_problems(body.get("tool_choice"), tools)
    stream = body.get("stream")
    if "stream" in body and not isinstance(stream, bool):
        found.append('"stream" must be true or false')
    adapter = _types().chat.streaming if stream is True else _types().chat.not_streaming
    rest = {key: value for key, value in body.items() if key not in OWN_CHECKS}
    rest |= {"messages": [], **({"stream": stream} if isinstance(stream, bool) else {})}
    return found + _parameter_problems(adapter, rest, body, RANGES)


def _parameter_problems(
    adapter: _Check,
    rest: Mapping[str, object],
    body: Mapping[str, object],
    ranges: Mapping[str, tuple[float, float | None, bool]],
) -> list[str]:
    """The body's other parameters against the API's type, and those with a documented
    range within it (the types do not carry ranges)."""
    ranged: dict[str, str] = {}
    for name, (low, high, whole) in ranges.items():
        value = body.get(name)
        if name in body and value is not None and not _within(value, low, high, whole):
            what = "a whole number" if whole else "a number"
            span = f"of at least {low:g}" if high is None else f"from {low:g} to {high:g}"
            ranged[f'"{name}" '] = f'"{name}" must be {what} {span}'
    # A parameter out of its range, or no number at all, is said once, with its range.
    said = _said(adapter, rest, quoted=True)
    return [*(line for line in said if not line.startswith(tuple(ranged))), *ranged.values()]


def _message_problems(messages: object) -> list[str]:
    if not isinstance(messages, list) or not messages:
        return ['"messages" must be a list of at least one message']
    found: list[str] = []
    for position, message in enumerate(messages):
        where = f"messages #{position}:"
        if not isinstance(message, dict):
            found.append(f"{where} must be a JSON object, not {_kind(message)}")
            continue
        role = message.get("role")
        adapter = _types().chat.messages.get(role) if isinstance(role, str) else None
        if adapter is None:
            found.append(f"{where} unknown role {role!r}")
            continue
        found += [f"{where} {role} {problem}" for problem in _said(adapter, message)]
    if found:
        return found  # the order of messages that are no messages is not worth saying
    return [f"messages {problem}" for problem in history_problems(messages)]


def _tools_problems(tools: object) -> list[str]:
    return _function_list_problems(
        tools, _types().chat.tool, '{"type": "function", "function": …}', "its function"
    )


def _function_list_problems(tools: object, adapter: _Check, shape: str, named: str) -> list[str]:
    """A body's function tools, each against the API's type (`adapter`, `shape` the form it
    must have), and none with a blank name (`named`: what carries it, in the message)."""
    if tools is None:
        return []
    if not isinstance(tools, list):
        return ['"tools" must be a list']
    found: list[str] = []
    for position, tool in enumerate(tools):
        if not isinstance(tool, dict) or tool.get("type") != "function":
            found.append(f"tools #{position}: must be {shape}")
            continue
        found += [f"tools #{position}: {problem}" for problem in _said(adapter, tool)]
        function = tool.get("function")
        name = function.get("name") if isinstance(function, dict) else tool.get("name")
        if isinstance(name, str) and not name.strip():
            found.append(f"tools #{position}: {named} needs a name")
    return found


def _tool_choice_problems(choice: object, tools: object) -> list[str]:
    if choice is None or not isinstance(tools, list | None):
        return []  # tools that are no list are said so; what they offer is unknown
    found = [f'"tool_choice" {problem}' for problem in _said(_types().chat.tool_choice, choice)]
    offered = [
        tool["function"].get("name")
        for tool in tools or ()
        if isinstance(tool, dict) and isinstance(tool.get("function"), dict)
    ]
    if choice != "none" and not offered:
        found.append('"tool_choice" needs "tools"')
    elif not found and isinstance(choice, dict) and choice.get("type") == "function":
        name = choice["function"].get("name")
        if name not in offered:
            found.append(f'"tool_choice" names {name!r}, which "tools" does not offer')
    return found


def _within(value: object, low: float, high: float | None, whole: bool) -> bool:
    if isinstance(value, bool) or not isinstance(value, int if whole else int | float):
        return False
    return math.isfinite(value) and low <= value and (high is None or value <= high)


def _kind(value: object) -> str:
    kinds = {dict: "an object", list: "a list", str: "text", bool: "true or false"}
    return "null" if value is None else kinds.get(type(value), "a number")


# -- the openai package's types ------------------------------------------------------------


class _Check(Protocol):
    """What is asked of a `TypeAdapter` here, whatever its type."""

    def validate_python(self, object: object, /, *, strict: bool | None = None) -> object: ...


@cache
def _types() -> WireTypes:
    # Alone, as every door: a worker may be importing `openai` too (late_imports.py).
    with importing("airline_agent.agent.wire_types"):
        # Loaded at the first edit checked, not with this module, which the TUI's first
        # screen imports: pydantic and `openai`'s types would hold it up by a second.
        from airline_agent.agent.wire_types import WireTypes

    return WireTypes()


Loc = tuple[int | str, ...]


def _said(adapter: _Check, value: object, *, quoted: bool = False) -> list[str]:
    """What `value` gets wrong against `adapter`'s type, one line per field: the field
    (`"temperature"` when `quoted`, else `content`, `tool_calls #0 function`) and what it
    must be."""
    lines: dict[str, None] = {}
    for loc, kind in _errors(adapter, value):
        path, form = _place(loc, value)
        if not path:
            lines["must be a JSON object"] = None
            continue
        field = next((part for part in reversed(path) if isinstance(part, str)), "")
        what = FORMS.get(field) if form else None
        shown = _shown(path, quoted)
        lines[f"{shown} {what or KINDS.get(kind, 'is not what the API takes')}"] = None
    return list(lines)


def _errors(adapter: _Check, value: object) -> Iterator[tuple[Loc, str]]:
    """Each error of `value` against the type: where, and pydantic's type of error. The
    `Iterable` fields of the openai types validate lazily, as they are read: each is read
    here, and must be a JSON list (a dict or text would be read as its keys or letters)."""
    invalid = _types().invalid
    try:
        checked = adapter.validate_python(value, strict=True)
    except invalid as exc:
        for error in exc.errors(include_url=False):
            yield tuple(error["loc"]), error["type"]
        return
    pending: list[tuple[object, object, Loc]] = [(checked, value, ())]
    while pending:
        made, given, where = pending.pop()
        if isinstance(made, Iterator):
            if not isinstance(given, list):
                yield where, "list_type"
                continue
            try:
                items = list(made)
            except invalid as exc:
                for error in exc.errors(include_url=False):
                    yield (*where, *error["loc"]), error["type"]
                continue
            pending += [(item, given[i], (*where, i)) for i, item in enumerate(items)]
        elif isinstance(made, dict) and isinstance(given, dict):
            pending += [(item, given.get(key), (*where, key)) for key, item in made.items()]
        elif isinstance(made, list) and isinstance(given, list):
            pending += [(item, given[i], (*where, i)) for i, item in enumerate(made)]


def _place(loc: Loc, value: object) -> tuple[Loc, bool]:
    """The path of `loc` in `value`, without the names pydantic gives the forms of a
    union (a part that is no key of the value there), cut at the first such name; and
    whether it was cut there (the value is none of the field's forms)."""
    path: list[int | str] = []
    here = value
    for part in loc:
        # Two branches of one step: each its own types, for the type checker.
        if isinstance(here, dict) and isinstance(part, str) and part in here:  # noqa: SIM114
            here = here[part]
        elif isinstance(here, list) and isinstance(part, int) and 0 <= part < len(here):
            here = here[part]
        elif isinstance(here, dict) and isinstance(part, str) and not _is_form(part):
            path.append(part)  # a field that is missing
            return tuple(path), False
        else:
            return tuple(path), True
        path.append(part)
    return tuple(path), False


def _is_form(part: str) -> bool:
    """Whether a part of pydantic's `loc` names one form of a union, not a field."""
    return part[:1].isupper() or any(mark in part for mark in "[]-") or part in ("str", "int")


def _shown(path: Loc, quoted: bool) -> str:
    words = [f"#{part}" if isinstance(part, int) else part for part in path]
    if quoted:
        return f'"{words[0]}"' + "".join(f" {word}" for word in words[1:])
    return " ".join(words)


# -- tool call arguments -----------------------------------------------------------------


def arguments_text(arguments: str) -> str:
    """A call's arguments as an editor shows them: indented JSON, or the model's text as
    it was when it is no JSON object."""
    parsed = parse_arguments(arguments)
    if parsed is None:
        return arguments
    return json.dumps(parsed, indent=2, ensure_ascii=False)


def arguments_problems(edited: str | Mapping[str, object]) -> list[str]:
    """Why `edited` would be refused as a tool call's arguments ([]: the call would run)."""
    if not isinstance(edited, str):
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
    if not text.strip():
        return [ARGUMENTS_EXAMPLE]
    parsed = parse_json(text, unique_keys=True)
    if isinstance(parsed, UnusableJson):
        return [f"the arguments: {parsed.message}"]
    if parsed.lone_surrogate is not None:
        return [parsed.lone_surrogate.describe()]
    if not isinstance(parsed.value, dict):
        return [f"{ARGUMENTS_EXAMPLE}, not {_kind(parsed.value)}"]
    return []


def checked_arguments(edited: str | Mapping[str, object]) -> str:
    """The edited arguments as the call's text; raises EditRefused saying why not."""
    problems = arguments_problems(edited)
    if problems:
        raise EditRefused(problems)
    return edited if isinstance(edited, str) else encoded(edited).decode()


# -- the debugger's holds ----------------------------------------------------------------


def held_text(held: RequestHeld | ToolCallHeld) -> str:
    """What an editor shows of a hold: the request's body (indented JSON, as the client
    sends it), or the call's arguments (indented JSON, or the model's text)."""
    if isinstance(held, RequestHeld):
        return body_text(held.body)
    return arguments_text(held.call.arguments)


def held_problems(
    held: RequestHeld | ToolCallHeld, edited: str | Mapping[str, object]
) -> list[str]:
    """Why `edited` would be refused as the held request's body, or as the held call's
    arguments ([]: it would go on)."""
    if isinstance(held, RequestHeld):
        return body_problems(edited, like=held.body)
    if not held.editable:
        return [f"this call is not run ({held.refusal}): its arguments cannot be edited"]
    return arguments_problems(edited)


def go_on_edited(held: RequestHeld | ToolCallHeld, edited: str | Mapping[str, object]) -> None:
    """Send the held request with `edited` as its body, or run the held call with `edited`
    as its arguments: JSON text goes on the wire byte for byte, a body as the client would
    encode it. An edit that would be refused (`held_problems`) raises `EditRefused`, saying
    why, and nothing goes on; an edit that changes nothing goes on as assembled."""
    if isinstance(held, RequestHeld):
        body, wire = checked_body(edited, like=held.body)
        changed = body != wire_form(held.body)
        held.go(RequestRelease(body, wire) if changed else RequestRelease())
        return
    problems = held_problems(held, edited)
    if problems:
        raise EditRefused(problems)
    text = checked_arguments(edited)
    held.go(CallRelease(text) if text != held.call.arguments else CallRelease())


# -- a Responses body ----------------------------------------------------------------------

# The fields of a Responses body checked on their own (each input item by its type, each
# tool), not as part of the body's parameters.
RESPONSES_OWN_CHECKS = ("model", "input", "tools", "tool_choice", "stream")
# Ranges the API reference gives that its types do not carry: (low, high, whole number).
RESPONSES_RANGES: dict[str, tuple[float, float | None, bool]] = {
    "temperature": (0, 2, False),
    "top_p": (0, 1, False),
    "max_output_tokens": (1, None, True),
}
# The tool choices the loop can follow: it offers function tools only.
RESPONSES_TOOL_CHOICE = 'must be one of auto, none, required or {"type": "function", "name": …}'


def responses_body_problems(body: Mapping[str, object]) -> list[str]:
    """Why a Responses body would be refused ([]: it would be sent). Its shape is the
    `openai` package's (`ResponseCreateParams…`, each input item by its type, function
    tools, the tool choice), checked strictly as a Chat Completions body is; on top of it,
    the rules that are ours: a model named, an input the loop can go on from
    (`responses_wire.item_problems` and `order_problems`: every function call answered
    once, by its `call_id`), a named `tool_choice` one of the tools offered, and the
    ranges of `RESPONSES_RANGES`."""
    found: list[str] = []
    model = body.get("model")
    if not isinstance(model, str) or not model.strip():
        found.append(f'"model" {FORMS["model"]}')
    found += _input_problems(body.get("input"))
    tools = body.get("tools")
    found += _function_tools_problems(tools)
    found += _function_choice_problems(body.get("tool_choice"), tools)
    stream = body.get("stream")
    if "stream" in body and not isinstance(stream, bool):
        found.append('"stream" must be true or false')
    adapters = _types().responses
    adapter = adapters.streaming if stream is True else adapters.not_streaming
    rest = {key: value for key, value in body.items() if key not in RESPONSES_OWN_CHECKS}
    rest |= {"stream": stream} if isinstance(stream, bool) else {}
    return found + _parameter_problems(adapter, rest, body, RESPONSES_RANGES)


def _input_problems(items: object) -> list[str]:
    if isinstance(items, str):
        return []  # one user message
    if not isinstance(items, list) or not items:
        return ['"input" must be text or a list of at least one item']
    found: list[str] = []
    for position, item in enumerate(items):
        kind, adapter = _input_item_type(item)
        said = [] if adapter is None else _said(adapter, item)
        if said:  # the loop's own rules of an item that is not of its type are not worth saying
            found += [f"input #{position}: {kind} {problem}" for problem in said]
        else:
            found += [
                f"input {problem}" for problem in responses_wire.item_problems(position, item)
            ]
    return found + [f"input {problem}" for problem in responses_wire.order_problems(items)]


def _input_item_type(item: object) -> tuple[str, _Check | None]:
    """What an input item is called in a problem (a message by its role) and the type it
    is checked as: None for an item the loop does not read (no object, an unknown type or
    role), which `responses_wire.item_problems` names."""
    if not isinstance(item, dict):
        return "", None
    kind = item.get("type", "message")
    adapters = _types().responses
    if kind == "message":
        role = item.get("role")
        if not isinstance(role, str) or role not in responses_wire.INPUT_ROLES:
            return "", None
        # A reply's message as the API returned it carries its id (and output_text parts).
        output = role == "assistant" and "id" in item
        return str(role), adapters.output_message if output else adapters.message
    adapter = adapters.items.get(kind) if isinstance(kind, str) else None
    return str(kind), adapter


def _function_tools_problems(tools: object) -> list[str]:
    return _function_list_problems(
        tools, _types().responses.tool, '{"type": "function", "name": …}', "a function tool"
    )


def _function_choice_problems(choice: object, tools: object) -> list[str]:
    if choice is None or not isinstance(tools, list | None):
        return []  # tools that are no list are said so; what they offer is unknown
    found: list[str] = []
    if next(_errors(_types().responses.tool_choice, choice), None) is not None:
        found.append(f'"tool_choice" {RESPONSES_TOOL_CHOICE}')
    offered = [tool.get("name") for tool in tools or () if isinstance(tool, dict)]
    if choice != "none" and not offered:
        found.append('"tool_choice" needs "tools"')
    elif not found and isinstance(choice, dict) and choice["name"] not in offered:
        found.append(f'"tool_choice" names {choice["name"]!r}, which "tools" does not offer')
    return found
