"""The message history: building its entries, checking it, and closing what is left open.

A valid Chat Completions history, as servers require it: every assistant `tool_calls`
entry is followed by exactly one `role: tool` message per call id, before anything else;
no tool message answers a call that was never made; every tool call's `arguments` is a
JSON object in text. The last point matters with weak local models: a reply cut off by
`max_tokens` can carry arguments such as `{"reservation_id": "12345`, and llama.cpp's
server answers a history that echoes them with HTTP 500 (reference capture 05). Such
arguments are replaced by `{}` in the history and the call is answered with an
`INVALID_ARGUMENTS` result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from airline_agent.agent.model_reply import (
    AssistantEntry,
    HistoryEntry,
    ToolCall,
    ToolCallWire,
    ToolEntry,
)
from airline_agent.tools.untrusted import JsonObject, UnusableJson, parse_json

if TYPE_CHECKING:
    from openai.types.responses import ResponseReasoningItemParam

EMPTY_ARGUMENTS = "{}"
# An assistant entry's key for its reply's reasoning items on the Responses wire, which
# go back with it (agent/responses_wire.py); Chat Completions never sets it.
REASONING_ITEMS: Literal["reasoning_items"] = "reasoning_items"


def parse_arguments(text: str | None) -> JsonObject | None:
    """The arguments as a dict, or None when they are no JSON object a tool can take:
    not JSON, not an object, nested deeper than `untrusted.MAX_DEPTH`, holding a number
    out of range or a lone surrogate (`untrusted.parse_json`). Such arguments are not
    echoed to the server in the history: a strict server refuses `NaN` as it refuses
    cut-off JSON."""
    if not text:
        return {}  # an empty string means "no arguments" for most servers
    parsed = parse_json(text)
    if isinstance(parsed, UnusableJson) or parsed.lone_surrogate is not None:
        return None
    return parsed.value if isinstance(parsed.value, dict) else None


Arguments = JsonObject | None  # a call's arguments parsed; None: not a JSON object


def parsed_arguments(tool_calls: tuple[ToolCall, ...]) -> tuple[Arguments, ...]:
    """Each call's arguments, parsed once for the history entry and the plan of the call."""
    return tuple(parse_arguments(call.arguments) for call in tool_calls)


def assistant_entry(
    content: str | None,
    tool_calls: tuple[ToolCall, ...],
    *,
    arguments: tuple[Arguments, ...] | None = None,
    reasoning: str | None = None,
    send_reasoning: bool = False,
    reasoning_items: tuple[ResponseReasoningItemParam, ...] = (),
) -> AssistantEntry:
    """The history entry for one model reply; unusable arguments become `{}`.
    `arguments`: the calls' `parsed_arguments`, when the caller has them already;
    `reasoning_items`: the Responses wire's, kept to go back with the reply."""
    entry: AssistantEntry = {"role": "assistant", "content": content}
    if tool_calls:
        parsed = parsed_arguments(tool_calls) if arguments is None else arguments
        entry["tool_calls"] = [
            {
                "id": call.call_id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.arguments
                    if call.arguments and value is not None
                    else EMPTY_ARGUMENTS,
                },
            }
            for call, value in zip(tool_calls, parsed, strict=True)
        ]
    elif content is None:
        entry["content"] = ""  # some servers reject an assistant message with neither
    if send_reasoning and reasoning:
        entry["reasoning_content"] = reasoning
    if reasoning_items:
        entry[REASONING_ITEMS] = list(reasoning_items)
    return entry


def tool_entry(call_id: str, content: str) -> ToolEntry:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def open_calls(history: Sequence[HistoryEntry]) -> list[ToolCallWire]:
    """The tool calls of the last assistant entry that no tool message answers yet."""
    answered: set[str] = set()
    for entry in reversed(history):
        if entry["role"] == "tool":
            answered.add(entry["tool_call_id"])
            continue
        if entry["role"] == "assistant":
            return [c for c in entry.get("tool_calls") or () if c["id"] not in answered]
        return []
    return []


def close_open_calls(
    history: list[HistoryEntry], content_for: Callable[[ToolCallWire], str]
) -> list[ToolEntry]:
    """Answer every still-open call (e.g. after a cancellation); returns what was added."""
    added = [tool_entry(call["id"], content_for(call)) for call in open_calls(history)]
    history.extend(added)
    return added


def problems(history: Sequence[Mapping[str, object]]) -> list[str]:
    """Why a server could reject this history; empty when it is valid. Any list of JSON
    objects may be asked about (an edited body's messages): nothing here assumes a type."""
    found: list[str] = []
    pending: dict[str, int] = {}  # open call id -> index of its assistant entry
    for position, entry in enumerate(history):
        role = entry.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            found.append(f"#{position}: unknown role {role!r}")
            continue
        if role != "tool" and pending:
            found.append(f"#{position}: calls {sorted(pending)} are not answered before it")
            pending.clear()
        if role == "assistant":
            calls = entry.get("tool_calls") or []
            if not isinstance(calls, list):
                found.append(f"#{position}: tool_calls is not a list")
                continue
            if not calls and entry.get("content") is None:
                found.append(f"#{position}: assistant message with neither content nor calls")
            for call in calls:
                if not isinstance(call, Mapping):
                    found.append(f"#{position}: a tool call that is not an object")
                    continue
                call_id = call.get("id")
                function = call.get("function")
                if not isinstance(function, Mapping):
                    function = {}
                if not isinstance(call_id, str) or not call_id.strip():
                    found.append(f"#{position}: a tool call without an id")
                    continue
                if call_id in pending:
                    found.append(f"#{position}: tool call id {call_id} used twice")
                pending[call_id] = position
                arguments = function.get("arguments")
                if not isinstance(arguments, str) or parse_arguments(arguments) is None:
                    found.append(
                        f"#{position}: arguments of {call_id} are not a JSON object: {arguments!r}"
                    )
        elif role == "tool":
            call_id = entry.get("tool_call_id")
            if not isinstance(call_id, str) or call_id not in pending:
                found.append(f"#{position}: tool message for {call_id!r} answers no open call")
            else:
                del pending[call_id]
            if not isinstance(entry.get("content"), str):
                found.append(f"#{position}: tool message content is not text")
    if pending:
        found.append(f"end: calls {sorted(pending)} are never answered")
    return found


def is_valid(history: Sequence[Mapping[str, object]]) -> bool:
    return not problems(history)
