"""The Responses API's request: the loop's history as Responses input items, the body of
the next request, and back again (a body you edited at the debugger becomes the history).

The loop keeps one history, in Chat Completions' form (agent/history.py): every front end,
the recorder and the grounding check read it, and it stays valid after any failure (every
call answered once, by its id, arguments a JSON object). On the Responses wire
(`--api responses`) each request is made from it here, entry by entry, so that what holds
for the history holds for the input:

    messages[0], role "system"          instructions
    role "user"                         {"type": "message", "role": "user", "content": …}
    role "assistant", its content       {"type": "message", "role": "assistant", …}
    role "assistant", tool_calls[i]     {"type": "function_call", "call_id": tool_calls[i].id,
                                         "name": …, "arguments": …}
    role "tool", tool_call_id           {"type": "function_call_output", "call_id": …,
                                         "output": …}
    the reply's reasoning items         sent back as they came, right before the items
                                        that followed them in the reply

Reasoning on this wire is kept: the API carries a model's reasoning from one request to
the next as `reasoning` items (with `encrypted_content` when the server gives it), and a
reasoning model asked again after its function calls expects them back. The loop keeps a
reply's reasoning items in its history entry (`history.REASONING_ITEMS`) when they can go
back — an item with an id, followed in the reply by a message or a call — and drops the
others (`responses_reply`); on Chat Completions `reasoning_content` is shown and not sent
back (unless `send_reasoning`). The trace says which happened.

Every message item says its `"type": "message"`, which the API lets a client leave out: a
server that converts Responses to Chat Completions (llama.cpp's `llama-server`) takes an
earlier assistant message only so. Nothing here imports `openai` when it runs (its types
are for the type checker): the loop builds bodies on either wire without paying for the
client.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeGuard, cast

from airline_agent.agent import history as hist
from airline_agent.agent.model_reply import AssistantEntry, HistoryEntry, ToolCallWire, ToolEntry

if TYPE_CHECKING:
    from openai.types.responses import (
        EasyInputMessageParam,
        FunctionToolParam,
        ResponseFunctionToolCallParam,
        ResponseInputItemParam,
        ResponseReasoningItemParam,
    )
    from openai.types.responses.response_input_item_param import FunctionCallOutput

    from airline_agent.agent.options import LoopOptions

# The body's own fields beside its parameters: what the trace counts as "the request".
BODY_PARTS = ("model", "instructions", "input", "tools")
TOOL_CHOICES = ("auto", "none", "required")
InputRole = Literal["user", "assistant", "system", "developer"]
INPUT_ROLES: dict[str, InputRole] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "developer",
}


# -- the history as input ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placed:
    """One input item and the history entry it comes from (`position`), with where in that
    entry (`part`: "content", "tool_calls[0]", "reasoning[0]", …): the side-by-side view
    names each correspondence by it."""

    position: int
    part: str
    item: ResponseInputItemParam


def placed_items(history: Sequence[HistoryEntry]) -> Iterator[Placed]:
    """The input items of `history` (all but a leading system message, which is the
    body's `instructions`), each with the entry and part it comes from."""
    for position, entry in enumerate(history):
        if position == 0 and entry["role"] == "system":
            continue
        if entry["role"] == "tool":
            output: FunctionCallOutput = {
                "type": "function_call_output",
                "call_id": entry["tool_call_id"],
                "output": _text(entry["content"]),
            }
            yield Placed(position, "content", output)
        elif entry["role"] == "assistant":
            yield from _assistant_items(position, entry)
        else:
            message: EasyInputMessageParam = {
                "type": "message",
                "role": entry["role"],
                "content": _text(entry["content"]),
            }
            yield Placed(position, "content", message)


def _assistant_items(position: int, entry: AssistantEntry) -> Iterator[Placed]:
    calls = entry.get("tool_calls") or []
    content = entry["content"]
    for index, reasoning in enumerate(entry.get(hist.REASONING_ITEMS) or ()):
        yield Placed(position, f"reasoning[{index}]", reasoning)
    if content or not calls:  # text, or a reply with neither (its "" is kept, as in the history)
        message: EasyInputMessageParam = {
            "type": "message",
            "role": "assistant",
            "content": _text(content),
        }
        yield Placed(position, "content", message)
    for index, call in enumerate(calls):
        item: ResponseFunctionToolCallParam = {
            "type": "function_call",
            "call_id": call["id"],
            "name": call["function"]["name"],
            "arguments": call["function"]["arguments"],
        }
        yield Placed(position, f"tool_calls[{index}]", item)


def _text(content: object) -> str:
    """Content as text: a list of parts gives its texts joined; None gives ""."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return "" if content is None else str(content)


def input_items(history: Sequence[HistoryEntry]) -> list[ResponseInputItemParam]:
    return [placed.item for placed in placed_items(history)]


def instructions_of(history: Sequence[HistoryEntry]) -> str | None:
    """The leading system message's text: the body's `instructions`."""
    if history and history[0]["role"] == "system":
        return _text(history[0]["content"])
    return None


def function_tool(tool: Mapping[str, object]) -> FunctionToolParam:
    """A Chat Completions tool schema as a Responses function tool: the `function`'s fields
    one level up. `strict` is said, always: the Responses API takes a tool without it as
    strict, which refuses a schema with optional parameters (ours have them)."""
    function = tool.get("function")
    if not isinstance(function, Mapping):
        function = {}
    parameters = function.get("parameters")
    made: FunctionToolParam = {
        "type": "function",
        "name": str(function.get("name", "")),
        "parameters": dict(parameters) if isinstance(parameters, Mapping) else None,
        "strict": bool(function.get("strict", False)),
    }
    description = function.get("description")
    if description is not None:
        made["description"] = str(description)
    return made


def chat_tool(tool: Mapping[str, object]) -> dict[str, object]:
    """A Responses function tool as a Chat Completions tool schema (what the trace and the
    anatomy read on either wire)."""
    function = {key: value for key, value in tool.items() if key not in ("type", "strict")}
    if tool.get("strict"):
        function["strict"] = True
    return {"type": "function", "function": function}


def tool_choice(choice: str | Mapping[str, object]) -> str | dict[str, object]:
    """`LoopOptions.tool_choice` as the Responses API names it: a mode, or one function
    by name (`{"type": "function", "name": …}`, not Chat's nested `function`)."""
    if isinstance(choice, str):
        return choice if choice in TOOL_CHOICES else {"type": "function", "name": choice}
    function = choice.get("function")
    if isinstance(function, Mapping):
        return {"type": "function", "name": function.get("name")}
    return dict(choice)


def request_body(
    model: str,
    history: Sequence[HistoryEntry],
    tools: Sequence[Mapping[str, object]],
    o: LoopOptions,
) -> dict[str, Any]:
    """The exact Responses body of the next request (`requests.request_body`'s twin).

    `max_tokens` is `max_output_tokens` here; `stop` has no counterpart and is not sent;
    usage needs no `stream_options` (the last event, `response.completed`, carries it).
    Nothing asks the server to keep the response (`store` is left to it, as the Agents
    SDK leaves it): the loop sends the whole conversation every time.
    """
    body: dict[str, Any] = {"model": model}
    instructions = instructions_of(history)
    if instructions is not None:
        body["instructions"] = instructions
    body["input"] = input_items(history)
    if tools:
        body["tools"] = [function_tool(tool) for tool in tools]
        body["tool_choice"] = tool_choice(o.tool_choice)
        if o.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = o.parallel_tool_calls
    optional = {"temperature": o.temperature, "max_output_tokens": o.max_tokens}
    body |= {name: value for name, value in optional.items() if value is not None}
    if o.stream:
        body["stream"] = True
    if o.extra_body:
        body["extra_body"] = o.extra_body
    return body


def body_params(body: Mapping[str, object]) -> dict[str, object]:
    """The body's parameters: everything but the model, the instructions, the input and
    the tools (what the trace lists as `tool_choice=auto, stream=True, …`)."""
    return {key: value for key, value in body.items() if key not in BODY_PARTS}


# -- input back to the history (an edited body) -------------------------------------------


def history_of(body: Mapping[str, object]) -> list[HistoryEntry]:
    """The loop's history as a Responses body holds it: `instructions` as the system
    message, input messages as messages, a reply's function calls as its `tool_calls`
    (with the assistant message just before them, if any, and the reasoning items before
    that), each `function_call_output` as a `role: tool` message. The inverse of
    `request_body` on the bodies it makes; an edited body is read the same way."""
    made: list[HistoryEntry] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        made.append({"role": "system", "content": instructions})
    raw_input = body.get("input")
    items: object = (
        [{"role": "user", "content": raw_input}] if isinstance(raw_input, str) else raw_input
    )
    reasoning: list[ResponseReasoningItemParam] = []
    reply: AssistantEntry | None = None  # the assistant entry being read (its calls follow)
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type", "message")
        if kind == "reasoning":
            reasoning.append(cast("ResponseReasoningItemParam", dict(item)))
            reply = None
        elif kind == "function_call":
            if reply is None:
                reply = _reply_entry(None, reasoning, made)
                reasoning = []
            call: ToolCallWire = {
                "id": str(item.get("call_id")),
                "type": "function",
                "function": {
                    "name": str(item.get("name")),
                    "arguments": str(item.get("arguments")),
                },
            }
            reply.setdefault("tool_calls", []).append(call)
        elif kind == "function_call_output":
            output: ToolEntry = {
                "role": "tool",
                "tool_call_id": str(item.get("call_id")),
                "content": _text(item.get("output")),
            }
            made.append(output)
            reply = None
        elif item.get("role") == "assistant":
            reply = _reply_entry(_text(item.get("content")), reasoning, made)
            reasoning = []
        else:
            content = _text(item.get("content"))
            if item.get("role") in ("system", "developer"):
                made.append({"role": "system", "content": content})
            else:
                made.append({"role": "user", "content": content})
            reply = None
    return made


def _reply_entry(
    content: str | None, reasoning: list[ResponseReasoningItemParam], made: list[HistoryEntry]
) -> AssistantEntry:
    entry: AssistantEntry = {"role": "assistant", "content": content}
    if reasoning:
        entry[hist.REASONING_ITEMS] = reasoning
    made.append(entry)
    return entry


# -- what a valid input is ----------------------------------------------------------------


def problems(items: Sequence[object]) -> list[str]:
    """Why a server could refuse this input, or the loop could not go on from it; empty
    when it is valid: each item's own rules (`item_problems`) and the order's
    (`order_problems`). The fields' types are the `openai` package's, checked with an
    edited body (agent/edits.py); an input the loop makes has them by construction."""
    found = [line for position, item in enumerate(items) for line in item_problems(position, item)]
    return found + order_problems(items)


def item_problems(position: int, item: object) -> list[str]:
    """What one item gets wrong that the loop reads it by: an object of a type it sends
    and reads back (`history_of`), a message's role one of the four, a call and an output
    with a call id, a call with a name and arguments that are a JSON object, a reasoning
    item with an id (the loop keeps none without one)."""
    if not isinstance(item, Mapping):
        return [f"#{position}: not an object"]
    kind = item.get("type", "message")
    if kind == "message":
        role = item.get("role")
        if not isinstance(role, str) or role not in INPUT_ROLES:
            return [f"#{position}: unknown role {role!r}"]
        return []
    if kind == "function_call":
        return _call_problems(position, item)
    if kind == "function_call_output":
        if not _named(item.get("call_id")):
            return [f"#{position}: a function_call_output without a call_id"]
        return []
    if kind == "reasoning":
        if not _named(item.get("id")):
            return [f"#{position}: a reasoning item without an id"]
        return []
    return [f"#{position}: an item of type {kind!r} the loop never sends"]


def _call_problems(position: int, item: Mapping[str, object]) -> list[str]:
    call_id = item.get("call_id")
    if not _named(call_id):
        return [f"#{position}: a function_call without a call_id"]
    found: list[str] = []
    if not _named(item.get("name")):
        found.append(f"#{position}: function_call {call_id} has no name")
    arguments = item.get("arguments")
    if not isinstance(arguments, str) or hist.parse_arguments(arguments) is None:
        found.append(f"#{position}: arguments of {call_id} are not a JSON object: {arguments!r}")
    return found


def _named(value: object) -> TypeGuard[str]:
    """Whether `value` is text that names something (not blank)."""
    return isinstance(value, str) and bool(value.strip())


def order_problems(items: Sequence[object]) -> list[str]:
    """What the order of the items gets wrong: every function call has a call id no open
    call has, and exactly one output, before the next message; no output answers a call
    never made; a reasoning item is followed by the message or call it led to. Items that
    are no objects, and call ids that are no text, are left to `item_problems`."""
    found: list[str] = []
    pending: dict[str, int] = {}  # open call id -> position of its function_call
    for position, item in enumerate(items):
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type", "message")
        call_id = item.get("call_id")
        if kind == "message" and pending:
            found.append(f"#{position}: calls {sorted(pending)} are not answered before it")
            pending.clear()
        elif kind == "function_call" and _named(call_id):
            if call_id in pending:
                found.append(f"#{position}: call_id {call_id} used twice")
            pending[call_id] = position
        elif kind == "function_call_output" and _named(call_id):
            if call_id not in pending:
                found.append(f"#{position}: function_call_output {call_id!r} answers no open call")
            else:
                del pending[call_id]
        elif kind == "reasoning" and not _leads_somewhere(position, items):
            found.append(
                f"#{position}: a reasoning item not followed by the message or call it led to"
            )
    if pending:
        found.append(f"end: calls {sorted(pending)} are never answered")
    return found


def _leads_somewhere(position: int, items: Sequence[object]) -> bool:
    following = next(
        (later for later in items[position + 1 :] if _kind(later) != "reasoning"), None
    )
    return isinstance(following, Mapping) and (
        _kind(following) == "function_call"
        or (_kind(following) == "message" and following.get("role") == "assistant")
    )


def _kind(item: object) -> object:
    return item.get("type", "message") if isinstance(item, Mapping) else None


def is_valid(items: Sequence[object]) -> bool:
    return not problems(items)


# -- what the trace and the inspector say of a request ------------------------------------


def reasoning_sent_back(body: Mapping[str, object]) -> list[tuple[int, str]]:
    """The reasoning items a request's input sends back: (position, item id)."""
    return [
        (position, str(item.get("id")))
        for position, item in enumerate(_list(body.get("input")))
        if isinstance(item, Mapping) and item.get("type") == "reasoning"
    ]


def reasoning_fate(
    body: Mapping[str, object], reasoned: Mapping[int, tuple[str, ...]]
) -> list[str]:
    """What became of the reasoning of the responses `reasoned` (by request number, each
    with its reasoning items' ids) in the request `body`: each item sent back, and where;
    or why a response's reasoning did not go back."""
    sent = dict((item_id, position) for position, item_id in reasoning_sent_back(body))
    lines: list[str] = []
    for number, ids in reasoned.items():
        back = [item_id for item_id in ids if item_id in sent]
        lines += [
            f"reasoning item {item_id} of response #{number} sent back (input[{sent[item_id]}])"
            for item_id in back
        ]
        if not back:
            lines.append(
                f"reasoning of response #{number} not sent back: no reasoning item of it "
                "could go (one needs an id, and the message or call it led to)"
            )
    return lines


def input_parts(body: Mapping[str, object]) -> str:
    """A Responses body's parts in words: "instructions + 5 input items"."""
    count = len(_list(body.get("input")))
    parts = f"{count} input item{'s' * (count != 1)}"
    return f"instructions + {parts}" if body.get("instructions") is not None else parts


def reasoning_item_ids(response: Mapping[str, object]) -> tuple[str, ...]:
    """The ids of a Responses response's reasoning items (its `output`, as it came)."""
    return tuple(
        str(item.get("id"))
        for item in _list(response.get("output"))
        if isinstance(item, Mapping) and item.get("type") == "reasoning" and item.get("id")
    )


def _list(value: object) -> list[object]:
    """A JSON value that should be a list, as one (anything else holds nothing)."""
    return value if isinstance(value, list) else []


def arguments_text(arguments: object) -> str:
    """A call's arguments as text (a server may send an object instead)."""
    if isinstance(arguments, str):
        return arguments
    return "" if arguments is None else json.dumps(arguments)
