"""Who produced each part of one request and of what came back: the articles' table, for
one round, in the order the round is built.

STEP A is the request as the framework assembles it: the developer's parts first (the
system prompt, the tool schemas, the model, `tool_choice` and the other parameters), then
the conversation so far, in order — the customer's messages, the model's earlier replies
and tool calls, the framework's `role: tool` results. STEP B is the response: the model's
reasoning, text and tool calls, and the API's own fields (id, finish_reason, usage).

`request_anatomy` is pure: it reads the events and builds nothing else, so a front end can
call it for any request it keeps.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Literal

from airline_agent.agent.events import (
    AssistantMessage,
    Producer,
    RequestSent,
    ToolCall,
    Usage,
    UsageReported,
)
from airline_agent.agent.model_reply import HistoryEntry, ToolEntry
from airline_agent.agent.raw_response import each
from airline_agent.tools.untrusted import ParsedJson, parse_json

Step = Literal["A", "B"]  # A: in the request sent; B: in the response
SUMMARY_CHARS = 100


@dataclass(frozen=True)
class Part:
    """One row of the table: a piece of the round, who produced it and where it is."""

    step: Step
    producer: Producer
    name: str  # what it is, in the API's words: "system prompt", "tools", "tool_choice", …
    path: str  # where it is in the request or response body: "messages[1]", "usage", …
    summary: str  # one short line of what it holds
    call_id: str | None = None  # the `tool_call_id` that links a call and its result
    note: str = ""  # what the articles point out about it ("arguments are JSON text", …)


def request_anatomy(
    sent: RequestSent,
    answer: AssistantMessage | None = None,
    usage: UsageReported | None = None,
    *,
    next_request: RequestSent | None = None,
) -> list[Part]:
    """The parts of request `sent` (STEP A) and of its answer (STEP B), in building order.

    `next_request`, when known, says whether the answer's reasoning went back to the model.
    A request on the Responses wire has its own parts (`responses_anatomy`).
    """
    if sent.body is not None:
        return responses_anatomy(sent, answer, usage, next_request=next_request)
    parts = _developer_parts(sent)
    for position, message in enumerate(sent.messages):
        if position == 0 and message.get("role") == "system":
            continue  # the system prompt leads the developer's parts
        parts += _message_parts(position, message)
    if answer is not None:
        response = _answer_parts(answer, next_request) + _api_parts(answer, usage)
        parts += [_scripted(part) for part in response] if answer.scripted else response
    return parts


def _developer_parts(sent: RequestSent) -> list[Part]:
    parts: list[Part] = []
    first = sent.messages[0] if sent.messages else None
    if first is not None and first["role"] == "system":
        text = first["content"]
        summary = f"{len(text):,} characters of instructions"
        parts.append(Part("A", "developer", "system prompt", "messages[0]", summary))
    if sent.tools:
        names = [str(tool.get("function", {}).get("name", "?")) for tool in sent.tools]
        summary = _short(f"{len(names)} tool schemas: {', '.join(names)}")
        parts.append(Part("A", "developer", "tools", "tools", summary))
    parts.append(Part("A", "developer", "model", "model", sent.model))
    for key, value in sent.params.items():
        parts.append(Part("A", "developer", key, key, _short(json.dumps(value, default=str))))
    return parts


def _message_parts(position: int, message: HistoryEntry) -> list[Part]:
    path = f"messages[{position}]"
    if message["role"] == "user":
        text = _short(str(message["content"] or ""))
        return [Part("A", "customer", "customer message", path, text)]
    if message["role"] == "system":
        text = _short(str(message["content"] or ""))
        return [Part("A", "developer", "system message", path, text)]
    if message["role"] == "tool":
        return [_tool_result(path, message)]
    parts: list[Part] = []
    if message["content"]:
        text = _short(str(message["content"]))
        parts.append(Part("A", "model", "assistant content", path, text))
    if message.get("reasoning_content"):
        summary = _short(str(message["reasoning_content"]))
        parts.append(Part("A", "model", "reasoning_content", path, summary, note="sent back"))
    for index, call in enumerate(message.get("tool_calls") or ()):
        function = call["function"]
        summary = _call_text(function["name"], function["arguments"])
        where = f"{path}.tool_calls[{index}]"
        note = "the model's call, sent back as it was made"
        parts.append(Part("A", "model", "tool call", where, summary, call["id"], note))
    return parts


def _tool_result(path: str, message: ToolEntry) -> Part:
    """A `role: tool` message: made by the framework, from a tool's result or in its stead."""
    content = str(message["content"] or "")
    code = _error_code(content)
    if code is None:
        name, note = "tool result", "the tool's output: program output, not the model's"
    elif code == "TOOL_CALL_LIMIT_EXCEEDED":
        name, note = "limit result", "the framework's answer to a call over the turn's limit"
    else:
        name, note = f"error result · {code}", "an error as a value: the model reads it"
    return Part("A", "framework", name, path, _short(content), message["tool_call_id"], note)


def _error_code(content: str) -> str | None:
    if not content.startswith("{"):
        return None
    parsed = parse_json(content)  # a tool message's text may be anything (edited)
    value = parsed.value if isinstance(parsed, ParsedJson) else None
    code = value.get("error") if isinstance(value, dict) else None
    return code if isinstance(code, str) else None


def _answer_parts(answer: AssistantMessage, next_request: RequestSent | None) -> list[Part]:
    message = "choices[0].message"
    parts: list[Part] = []
    if answer.reasoning:
        note = _reasoning_note(answer, next_request)
        summary = _short(answer.reasoning)
        where = f"{message}.reasoning_content"
        parts.append(Part("B", "model", "reasoning_content", where, summary, note=note))
    if answer.content:
        parts.append(Part("B", "model", "content", f"{message}.content", _short(answer.content)))
    elif answer.tool_calls:
        empty = "empty: the model only calls tools" if answer.content == "" else "null"
        parts.append(Part("B", "model", "content", f"{message}.content", empty))
    for index, call in enumerate(answer.tool_calls):
        where = f"{message}.tool_calls[{index}]"
        summary = _call_text(call.name, call.arguments)
        note = "arguments are JSON text; the framework parses them"
        parts.append(Part("B", "model", "tool call", where, summary, call.call_id, note))
    return parts


def _api_parts(answer: AssistantMessage, usage: UsageReported | None) -> list[Part]:
    parts: list[Part] = []
    assembled = answer.raw.assembled if answer.raw is not None else {}
    if assembled.get("id"):
        parts.append(Part("B", "api", "id", "id", str(assembled["id"])))
    if assembled.get("model"):
        parts.append(Part("B", "api", "model", "model", str(assembled["model"])))
    reason = answer.finish_reason or "none given"
    note = _FINISH_NOTES.get(reason, "")
    parts.append(Part("B", "api", "finish_reason", "choices[0].finish_reason", reason, note=note))
    counted = usage.usage if usage is not None else None
    summary = _usage_text(counted) if counted is not None else "not reported by the server"
    parts.append(Part("B", "api", "usage", "usage", summary))
    return parts


_FINISH_NOTES = {
    "tool_calls": "the round ends in tool calls: the framework runs them, then asks again",
    "stop": "the model answered in text: the loop ends",
    "length": "cut off by max_tokens",
}


def _scripted(part: Part) -> Part:
    """Offline, the model's and the API's parts come from the scenario's script."""
    note = f"{part.note} (scripted)" if part.note else "scripted"
    return replace(part, note=note)


def _reasoning_note(answer: AssistantMessage, next_request: RequestSent | None) -> str:
    if next_request is None:
        return "shown; the next request tells whether it is sent back"
    echoes = [
        m
        for m in next_request.messages
        if m.get("role") == "assistant" and _echoes(m, answer.tool_calls, answer.content)
    ]
    if any(m.get("reasoning_content") for m in echoes):
        return f"shown, and sent back in request #{next_request.request}"
    return f"shown, not sent back: request #{next_request.request}'s messages leave it out"


def _echoes(message: HistoryEntry, calls: tuple[ToolCall, ...], content: str | None) -> bool:
    if message["role"] != "assistant":
        return False
    if calls:
        ids = [call["id"] for call in message.get("tool_calls") or ()]
        return ids == [call.call_id for call in calls]
    return bool(content) and message.get("content") == content


def _usage_text(usage: Usage) -> str:
    prompt = f"{usage.prompt_tokens:,} prompt"
    if usage.cached_tokens:
        prompt += f" ({usage.cached_tokens:,} cached)"
    completion = f"{usage.completion_tokens:,} completion"
    if usage.reasoning_tokens:
        completion += f" ({usage.reasoning_tokens:,} reasoning)"
    return f"{prompt} · {completion} · {usage.total_tokens:,} total"


def _call_text(name: str, arguments: str) -> str:
    return _short(f"{name}({arguments})")


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"


# -- the Responses wire ------------------------------------------------------------------
# The same round on the Responses API (`RequestSent.body`): the developer's `instructions`
# and flat function tools, the conversation as `input` items (the customer's messages, the
# model's reasoning items, messages and `function_call`s, the framework's
# `function_call_output`s, each answering a call by its `call_id`), and the response's
# `output` items with the API's `status` and `usage`.


def responses_anatomy(
    sent: RequestSent,
    answer: AssistantMessage | None = None,
    usage: UsageReported | None = None,
    *,
    next_request: RequestSent | None = None,
) -> list[Part]:
    """`request_anatomy` for a request sent on the Responses wire."""
    body = sent.body or {}
    parts: list[Part] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        summary = f"{len(instructions):,} characters of instructions"
        note = "Chat Completions' system message"
        parts.append(Part("A", "developer", "instructions", "instructions", summary, note=note))
    tools = body.get("tools") or []
    if tools:
        names = [str(tool.get("name", "?")) for tool in tools]
        summary = _short(f"{len(names)} function tools: {', '.join(names)}")
        note = "flat (no nested `function`); strict: false said, the API's default is strict"
        parts.append(Part("A", "developer", "tools", "tools", summary, note=note))
    parts.append(Part("A", "developer", "model", "model", str(body.get("model", sent.model))))
    for key, value in sent.params.items():
        parts.append(Part("A", "developer", key, key, _short(json.dumps(value, default=str))))
    for position, item in enumerate(body.get("input") or ()):
        parts.append(_input_part(f"input[{position}]", item))
    if answer is not None:
        response = _output_parts(answer, next_request) + _response_api_parts(answer, usage)
        parts += [_scripted(part) for part in response] if answer.scripted else response
    return parts


def _input_part(path: str, item: dict[str, Any]) -> Part:
    kind = item.get("type", "message")
    if kind == "function_call":
        summary = _call_text(str(item.get("name", "")), str(item.get("arguments", "")))
        note = "the model's call, sent back as it was made"
        return Part("A", "model", "function_call", path, summary, item.get("call_id"), note)
    if kind == "function_call_output":
        call_id = str(item.get("call_id"))
        output = item.get("output")
        text = "" if output is None else str(output)
        result = _tool_result(path, {"role": "tool", "tool_call_id": call_id, "content": text})
        name = result.name.replace("tool result", "function_call_output")
        return replace(result, name=name, call_id=item.get("call_id"))
    if kind == "reasoning":
        note = "sent back as it came" + (
            " (encrypted_content: the model's state)" if item.get("encrypted_content") else ""
        )
        return Part("A", "model", "reasoning item", path, str(item.get("id", "")), note=note)
    role, content = item.get("role"), item.get("content")
    text = _short(content if isinstance(content, str) else json.dumps(content, default=str))
    if role == "user":
        return Part("A", "customer", "customer message", path, text)
    if role == "assistant":
        return Part(
            "A", "model", "assistant message", path, text, note="the model's text, sent back"
        )
    return Part("A", "developer", f"{role} message", path, text)


def _output_parts(answer: AssistantMessage, next_request: RequestSent | None) -> list[Part]:
    output = (answer.raw.assembled.get("output") if answer.raw is not None else None) or []
    parts: list[Part] = []
    for position, item in enumerate(each(output)):
        if not isinstance(item, dict):
            continue  # no output item: nothing of the reply to show
        path, kind = f"output[{position}]", item.get("type")
        if kind == "reasoning":
            note = _reasoning_item_note(str(item.get("id", "")), next_request)
            summary = _short(answer.reasoning or "")
            parts.append(Part("B", "model", "reasoning item", path, summary, note=note))
        elif kind == "message":
            text = _short(answer.content or "")
            parts.append(Part("B", "model", "output_text", f"{path}.content[0].text", text))
        elif kind == "function_call":
            summary = _call_text(str(item.get("name", "")), str(item.get("arguments", "")))
            note = "arguments are JSON text; the framework parses them"
            parts.append(
                Part("B", "model", "function_call", path, summary, item.get("call_id"), note)
            )
    return parts


def _reasoning_item_note(item_id: str, next_request: RequestSent | None) -> str:
    if next_request is None or next_request.body is None:
        return "shown; the next request tells whether it is sent back"
    for position, item in enumerate(next_request.body.get("input") or ()):
        if item.get("type") == "reasoning" and item.get("id") == item_id:
            return f"shown, and sent back in request #{next_request.request} (input[{position}])"
    return f"shown, not sent back: request #{next_request.request}'s input leaves it out"


_STATUS_NOTES = {
    "tool_calls": "completed, its output holds function_call items: Chat's finish_reason "
    '"tool_calls"; the framework runs them, then asks again',
    "stop": 'completed in text: Chat\'s finish_reason "stop"; the loop ends',
    "length": 'cut off by max_output_tokens: Chat\'s finish_reason "length"',
}


def _response_api_parts(answer: AssistantMessage, usage: UsageReported | None) -> list[Part]:
    parts: list[Part] = []
    assembled = answer.raw.assembled if answer.raw is not None else {}
    for name in ("id", "model"):
        if assembled.get(name):
            parts.append(Part("B", "api", name, name, str(assembled[name])))
    status = str(assembled.get("status") or "completed")
    note = _STATUS_NOTES.get(answer.finish_reason or "", "")
    parts.append(Part("B", "api", "status", "status", status, note=note))
    details = assembled.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    if reason:
        parts.append(
            Part("B", "api", "incomplete_details", "incomplete_details.reason", str(reason))
        )
    counted = usage.usage if usage is not None else None
    if counted is None:
        summary = "not reported by the server"
    else:
        summary = _usage_text(counted).replace("prompt", "input").replace("completion", "output")
    note = "input_tokens is Chat's prompt_tokens; output_tokens its completion_tokens"
    parts.append(Part("B", "api", "usage", "usage", summary, note=note))
    return parts
