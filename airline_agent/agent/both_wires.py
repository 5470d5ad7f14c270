"""One round on both wires: the request and the response of one step as Chat Completions
and as the Responses API carry them, side by side, with what corresponds to what.

The round is the loop's record of it (`RequestSent`, `AssistantMessage`, `UsageReported`),
whichever wire it went on. The wire it went on shows its body exactly as sent and its
response as it came (or, offline, as the scripted backend generated it, marked so); the
other wire's request is made from the same history, tools and parameters by the same
builders the loop uses (agent/requests.py, agent/responses_wire.py), and its response is
generated in that server's shape (agent/raw_response.py) — never passed off as sent.

The correspondences are named for this round, by path on each side: `tool_calls[i].id` ↔
`function_call.call_id`, `role: "tool"` ↔ `function_call_output`, `finish_reason:
"tool_calls"` ↔ an output holding `function_call` items, `prompt_tokens` ↔ `input_tokens`,
and the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from airline_agent.agent import history as hist
from airline_agent.agent import responses_wire
from airline_agent.agent.events import AssistantMessage, RequestSent, UsageReported
from airline_agent.agent.model_reply import HistoryEntry
from airline_agent.agent.options import LoopOptions
from airline_agent.agent.raw_response import (
    INCOMPLETE_REASONS,
    Envelope,
    ScriptedMessage,
    count_of,
    scripted_completion,
    scripted_response,
)
from airline_agent.agent.requests import request_body
from airline_agent.choices import Api

if TYPE_CHECKING:
    from openai.types.responses import ResponseReasoningItemParam

WIRE_NAMES: dict[Api, str] = {"chat": "Chat Completions", "responses": "Responses API"}
SUMMARY_CHARS = 60


@dataclass(frozen=True, slots=True)
class WireSide:
    """One wire's request and response for the round, and where each came from."""

    api: Api
    request: dict[str, Any]
    request_source: str  # "as sent", or how it was made
    response: dict[str, Any] | None  # None: no answer (yet)
    response_source: str

    @property
    def name(self) -> str:
        return WIRE_NAMES[self.api]


@dataclass(frozen=True, slots=True)
class Correspondence:
    """One thing of the round, where each wire puts it, and its value in this round."""

    what: str
    chat: str  # a path in the Chat Completions request or response ("—": none there)
    responses: str  # the same on the Responses wire
    value: str = ""


@dataclass(frozen=True, slots=True)
class BothWires:
    """One round (`request` is its number) on both wires."""

    request: int
    sent_on: Api
    chat: WireSide
    responses: WireSide
    correspondences: tuple[Correspondence, ...]

    def side(self, api: Api) -> WireSide:
        return self.chat if api == "chat" else self.responses


def both_wires(
    sent: RequestSent,
    answer: AssistantMessage | None = None,
    usage: UsageReported | None = None,
    earlier: Sequence[AssistantMessage] = (),
) -> BothWires:
    """The round of request `sent`, answered by `answer` (None: not yet) with `usage`;
    `earlier`: the answers of the conversation's requests before it, in order (a round
    sent on Chat Completions, made for the Responses wire, sends their reasoning back)."""
    history, tools = sent.messages, sent.tools
    options = _options(sent.params)
    kept = history if sent.body is not None else _with_reasoning_items(history, earlier)
    chat_request = (
        {"model": sent.model, "messages": history, "tools": tools, **sent.params}
        if sent.body is None
        else request_body(sent.model, _without_reasoning_items(history), tools, options)
    )
    responses_request = (
        sent.body
        if sent.body is not None
        else responses_wire.request_body(sent.model, kept, tools, options)
    )
    made = "made here · not sent"
    chat_from = "as sent" if sent.api == "chat" else made
    responses_from = "as sent" if sent.api == "responses" else made
    chat_response, chat_said = _response("chat", answer, usage, responses_request)
    responses_response, responses_said = _response("responses", answer, usage, responses_request)
    return BothWires(
        request=sent.request,
        sent_on=sent.api,
        chat=WireSide("chat", chat_request, chat_from, chat_response, chat_said),
        responses=WireSide(
            "responses", responses_request, responses_from, responses_response, responses_said
        ),
        correspondences=tuple(_correspondences(sent, kept, responses_request, answer, usage)),
    )


def _options(params: Mapping[str, Any]) -> LoopOptions:
    """The loop's options that make a body with these parameters (either wire's names)."""
    choice = params.get("tool_choice", "auto")
    if isinstance(choice, Mapping):
        function = choice.get("function")
        named = function.get("name") if isinstance(function, Mapping) else choice.get("name")
        choice = str(named) if named else "auto"
    return LoopOptions(
        tool_choice=choice,
        parallel_tool_calls=params.get("parallel_tool_calls"),
        temperature=params.get("temperature"),
        max_tokens=params.get("max_tokens", params.get("max_output_tokens")),
        stop=params.get("stop"),
        stream=bool(params.get("stream")),
        extra_body=dict(params.get("extra_body") or {}),
    )


def _response(
    api: Api,
    answer: AssistantMessage | None,
    usage: UsageReported | None,
    responses_request: dict[str, Any],
) -> tuple[dict[str, Any] | None, str]:
    """The response on `api`: the one that came (its sum, when streamed), or one generated
    in that server's shape from the loop's record of the answer."""
    if answer is None:
        return None, "no response yet"
    raw = answer.raw
    if raw is not None and raw.api == api:
        streamed = f" · sum of {len(raw.chunks)} " if raw.kind == "stream" else ""
        if streamed:
            streamed += "events" if api == "responses" else "chunks"
        source = "generated offline (script)" if raw.generated else "as it came"
        return raw.assembled, source + streamed
    message = ScriptedMessage(
        content=answer.content,
        tool_calls=answer.tool_calls,
        reasoning=answer.reasoning,
        finish_reason=answer.finish_reason or ("tool_calls" if answer.tool_calls else "stop"),
        usage=usage.usage if usage is not None else None,
    )
    came = raw.assembled if raw is not None else {}
    created = count_of(came.get("created") or came.get("created_at"))
    model = str(came.get("model") or (usage.model if usage is not None else "") or "")
    tail = _id_tail(str(came.get("id") or f"request-{answer.request}"))
    source = "generated here · not received"
    if api == "chat":
        envelope = Envelope(f"chatcmpl-{tail.replace('_', '-')}", created, model)
        return scripted_completion(envelope, message), source
    envelope = Envelope(f"resp_{tail}", created, model)
    return scripted_response(envelope, message, responses_request), source


def _id_tail(response_id: str) -> str:
    """A response's id without its wire's prefix, spelled with `_`: "chatcmpl-scripted-1"
    and "resp_scripted_1" are one answer's ids on the two wires."""
    return response_id.removeprefix("chatcmpl-").removeprefix("resp_").replace("-", "_")


def _without_reasoning_items(history: list[HistoryEntry]) -> list[HistoryEntry]:
    """The history as Chat Completions sends it: no Responses reasoning items."""
    kept: list[HistoryEntry] = []
    for entry in history:
        if entry["role"] == "assistant" and hist.REASONING_ITEMS in entry:
            entry = entry.copy()
            del entry[hist.REASONING_ITEMS]
        kept.append(entry)
    return kept


def _with_reasoning_items(
    history: list[HistoryEntry], earlier: Sequence[AssistantMessage]
) -> list[HistoryEntry]:
    """A Chat Completions history as the Responses wire would have kept it: each reply
    that reasoned, and led to a message or a call, with its reasoning item (the one a
    Responses server would have sent, its id made as the scripted backend makes it)."""
    replies = [
        position for position, entry in enumerate(history) if entry.get("role") == "assistant"
    ]
    if len(replies) != len(earlier):
        return history  # not the replies of these answers (one was taken back): left as is
    kept = list(history)
    for position, answer in zip(replies, earlier, strict=True):
        entry = history[position]
        if entry["role"] != "assistant":
            continue
        calls = [call["id"] for call in entry.get("tool_calls") or ()]
        if not answer.reasoning or calls != [call.call_id for call in answer.tool_calls]:
            continue
        if not (answer.tool_calls or answer.content):
            continue  # nothing it led to: the Responses wire drops it too
        came = answer.raw.assembled if answer.raw is not None else {}
        tail = _id_tail(str(came.get("id") or f"request-{answer.request}"))
        item: ResponseReasoningItemParam = {
            "type": "reasoning",
            "id": f"rs_{tail}",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": answer.reasoning}],
        }
        kept[position] = {**entry, hist.REASONING_ITEMS: [item]}
    return kept


# -- what corresponds to what ----------------------------------------------------------


def _correspondences(
    sent: RequestSent,
    history: list[HistoryEntry],
    responses_request: Mapping[str, Any],
    answer: AssistantMessage | None,
    usage: UsageReported | None,
) -> list[Correspondence]:
    found: list[Correspondence] = []
    if history and history[0]["role"] == "system":
        size = f"{len(str(history[0]['content'] or '')):,} characters"
        found.append(
            Correspondence(
                "the developer's instructions", "messages[0] (system)", "instructions", size
            )
        )
    if sent.tools:
        names = ", ".join(str(t.get("function", {}).get("name", "?")) for t in sent.tools)
        found.append(
            Correspondence(
                f"{len(sent.tools)} tool schemas",
                "tools[i].function.{name, parameters}",
                "tools[i].{name, parameters, strict: false}",
                _short(names),
            )
        )
    found += _parameter_correspondences(sent.params, responses_request)
    for index, placed in enumerate(responses_wire.placed_items(history)):
        found.append(_history_correspondence(index, placed, history[placed.position]))
    if answer is not None:
        found += _answer_correspondences(answer, usage)
    return found


def _parameter_correspondences(
    params: Mapping[str, Any], responses_request: Mapping[str, Any]
) -> list[Correspondence]:
    found: list[Correspondence] = []
    if "max_tokens" in params or "max_output_tokens" in params:
        value = params.get("max_tokens", params.get("max_output_tokens"))
        found.append(
            Correspondence(
                "most tokens of the answer", "max_tokens", "max_output_tokens", str(value)
            )
        )
    choice = responses_request.get("tool_choice")
    if isinstance(choice, Mapping):
        found.append(
            Correspondence(
                "one tool forced",
                'tool_choice {"type": "function", "function": {"name"}}',
                'tool_choice {"type": "function", "name"}',
                str(choice.get("name")),
            )
        )
    if params.get("stream"):
        found.append(
            Correspondence(
                "usage of a streamed answer",
                "stream_options.include_usage: a last chunk with empty choices",
                "(none needed: response.completed carries it)",
            )
        )
        found.append(
            Correspondence(
                "the stream",
                "chat.completion.chunk deltas, by index; data: [DONE]",
                "named events: response.output_item.added, *.delta, response.completed",
            )
        )
    return found


def _history_correspondence(
    index: int, placed: responses_wire.Placed, entry: Mapping[str, Any]
) -> Correspondence:
    chat_path, item_path = f"messages[{placed.position}]", f"input[{index}]"
    role, part = entry.get("role"), placed.part
    if role == "tool":
        return Correspondence(
            'a tool result: role "tool" ↔ function_call_output',
            f"{chat_path}.tool_call_id",
            f"{item_path}.call_id",
            str(entry.get("tool_call_id")),
        )
    if part.startswith("tool_calls["):
        call = (entry.get("tool_calls") or [])[int(part[len("tool_calls[") : -1])]
        return Correspondence(
            "an earlier call, sent back",
            f"{chat_path}.{part}.id",
            f"{item_path}.call_id (function_call)",
            str(call.get("id")),
        )
    if part.startswith("reasoning["):
        sent_back = f"{chat_path}.reasoning_content" if entry.get("reasoning_content") else "—"
        return Correspondence(
            "earlier reasoning (Chat leaves it out)",
            sent_back,
            f"{item_path} (reasoning item)",
            str(placed.item.get("id", "")),
        )
    what = {"user": "the customer's message", "assistant": "the model's earlier text"}
    return Correspondence(
        what.get(str(role), f"a {role} message"),
        chat_path,
        item_path,
        _short(str(entry.get("content") or "")),
    )


def _answer_correspondences(
    answer: AssistantMessage, usage: UsageReported | None
) -> list[Correspondence]:
    found: list[Correspondence] = []
    position = 0
    if answer.reasoning:
        found.append(
            Correspondence(
                "the model's reasoning",
                "choices[0].message.reasoning_content",
                f"output[{position}] (reasoning item: content or summary)",
                _short(answer.reasoning),
            )
        )
        position += 1
    if answer.content or (answer.content is not None and not answer.tool_calls):
        found.append(
            Correspondence(
                "the model's text",
                "choices[0].message.content",
                f"output[{position}].content[0].text (output_text)",
                _short(answer.content or ""),
            )
        )
        position += 1
    elif answer.tool_calls:
        found.append(
            Correspondence(
                "no text with the calls",
                'choices[0].message.content: "" or null',
                "(no message item)",
            )
        )
    for index, call in enumerate(answer.tool_calls):
        found.append(
            Correspondence(
                f"call {index + 1}: its id",
                f"choices[0].message.tool_calls[{index}].id",
                f"output[{position}].call_id (function_call)",
                call.call_id,
            )
        )
        found.append(
            Correspondence(
                f"call {index + 1}: name and arguments (JSON text)",
                f"tool_calls[{index}].function.{{name, arguments}}",
                f"output[{position}].{{name, arguments}}",
                _short(f"{call.name}({call.arguments})"),
            )
        )
        position += 1
    found.append(_finish(answer))
    found += _usage_correspondences(usage)
    found += [
        Correspondence("what the answer is", 'object: "chat.completion"', 'object: "response"'),
        Correspondence("its id", "id: chatcmpl-…", "id: resp_…"),
        Correspondence("when it was made", "created", "created_at"),
    ]
    return found


def _finish(answer: AssistantMessage) -> Correspondence:
    reason = answer.finish_reason or "stop"
    incomplete = INCOMPLETE_REASONS.get(reason)
    if incomplete is not None:
        responses = f'status: "incomplete", incomplete_details.reason: "{incomplete}"'
    elif answer.tool_calls:
        responses = 'status: "completed", output holding function_call items'
    else:
        responses = 'status: "completed"'
    return Correspondence(
        "why the answer ended", f'choices[0].finish_reason: "{reason}"', responses
    )


def _usage_correspondences(usage: UsageReported | None) -> list[Correspondence]:
    counted = usage.usage if usage is not None else None
    if counted is None:
        return [Correspondence("usage", "usage (none reported)", "usage (none reported)")]
    return [
        Correspondence(
            "tokens read", "usage.prompt_tokens", "usage.input_tokens", f"{counted.prompt_tokens:,}"
        ),
        Correspondence(
            "of them, from the cache",
            "usage.prompt_tokens_details.cached_tokens",
            "usage.input_tokens_details.cached_tokens",
            f"{counted.cached_tokens:,}",
        ),
        Correspondence(
            "tokens written",
            "usage.completion_tokens",
            "usage.output_tokens",
            f"{counted.completion_tokens:,}",
        ),
        Correspondence(
            "of them, reasoning",
            "usage.completion_tokens_details.reasoning_tokens",
            "usage.output_tokens_details.reasoning_tokens",
            f"{counted.reasoning_tokens:,}",
        ),
    ]


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"
