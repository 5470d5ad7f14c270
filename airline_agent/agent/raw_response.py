"""What came back for one request, in the server's exact shape.

Not streamed, a server sends one `chat.completion` body; streamed, a series of
`chat.completion.chunk` objects (one per SSE `data:` line). `RawResponse` keeps either
as it came — every chunk, in order — beside the completion the chunks add up to, so the
inspector can show what the wire carried and what the loop made of it.

On the Responses wire (`api` "responses") the body is one `response` object, and a stream
is a series of named events (`response.created`, `response.output_item.added`,
`response.output_text.delta`, `response.function_call_arguments.delta`, …,
`response.completed`), kept the same way beside the response they add up to.

Offline there is no server: the scripted backend generates the same objects from the
scripted response (`scripted_completion`, `scripted_chunks`; on the Responses wire
`scripted_response`, `scripted_response_events`), exactly in the shape a server uses,
and marks them `generated`. What the inspector shows of a generated response says so in
a field no server sends (`generated_by`), so a scripted round is never passed off as a
server's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal, SupportsIndex, SupportsInt, TypeAlias, TypedDict

from airline_agent.agent.model_reply import (
    ReceivedMessage,
    ReportedUsage,
    ToolCall,
    Usage,
    received_message,
)
from airline_agent.choices import Api

GENERATED_BY = "airline-agent (scripted)"

ResponseKind = Literal["completion", "stream"]  # one body, or a stream of chunks / events

# A JSON object as a server sent it (or as the scripted backend generates it): read by
# narrowing what is looked at, never trusted to have a shape.
JsonObject: TypeAlias = dict[str, object]


def each(value: object) -> Iterable[object]:
    """The items of a list the server sent (`value or ()`): none for null or empty; a
    value that holds no items raises TypeError, as iterating it does."""
    if not value:
        return ()
    if isinstance(value, Iterable):
        return value
    raise TypeError(f"{type(value).__name__!r} object is not iterable")


def count_of(value: object) -> int:
    """A token count the server sent (`int(value or 0)`): 0 for null."""
    return as_int(value) if value else 0


def as_int(value: object) -> int:
    """`int(value)`: a value int() does not read raises as int() does (TypeError)."""
    if isinstance(value, str | bytes | SupportsInt | SupportsIndex):
        return int(value)
    raise TypeError(f"int() argument must be a string or a number, not {type(value).__name__!r}")


class RawResponse:
    """One response as it came back (or, `generated`, as a server would have sent it).

    Made into JSON when first looked at, not as it comes: only the inspector and the
    request log look, and converting a server's objects (and cleaning every string of
    them) on every request cost more than the rest of the loop's work for it. What it is
    made from is what came, never changed after.
    """

    def __init__(
        self,
        kind: ResponseKind,
        generated: bool,
        assembled: Callable[[], JsonObject],
        chunks: Callable[[], Sequence[JsonObject]] = tuple,
        api: Api = "chat",
    ) -> None:
        self.kind = kind
        self.generated = generated
        self.api = api
        self._assembled = assembled
        self._chunks = chunks

    @classmethod
    def of_completion(
        cls,
        body: JsonObject | Callable[[], JsonObject],
        *,
        generated: bool = False,
        api: Api = "chat",
    ) -> RawResponse:
        return cls("completion", generated, body if callable(body) else lambda: body, api=api)

    @classmethod
    def of_stream(
        cls,
        chunks: Sequence[JsonObject] | Callable[[], Sequence[JsonObject]],
        assembled: JsonObject | Callable[[], JsonObject],
        *,
        generated: bool,
        api: Api = "chat",
    ) -> RawResponse:
        whole = assembled if callable(assembled) else lambda: assembled
        return cls("stream", generated, whole, chunks if callable(chunks) else lambda: chunks, api)

    @cached_property
    def assembled(self) -> JsonObject:
        """The reply as one `chat.completion` (on the Responses wire, one `response`): the
        body, or the chunks' sum."""
        return self._assembled()

    @cached_property
    def chunks(self) -> tuple[JsonObject, ...]:
        """Kind "stream": each chunk's JSON (on the Responses wire, each event's), in order."""
        return tuple(self._chunks())

    @property
    def completion(self) -> JsonObject | None:
        """Kind "completion": the body as the server sent it."""
        return self.assembled if self.kind == "completion" else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RawResponse):
            return NotImplemented
        mine = (self.kind, self.generated, self.api, self.chunks, self.assembled)
        return mine == (other.kind, other.generated, other.api, other.chunks, other.assembled)

    __hash__ = None  # type: ignore[assignment]  # it holds dicts

    def __repr__(self) -> str:
        wire = "" if self.api == "chat" else f", api={self.api!r}"
        return f"RawResponse(kind={self.kind!r}, generated={self.generated}{wire})"

    def as_json(self) -> JsonObject:
        """What the inspector shows: a server's body as it is; a stream as its chunks (its
        events, on the Responses wire) beside the assembled reply; anything generated,
        under a `generated_by` mark."""
        if self.kind == "completion":
            body = self.completion or {}
            name = "response" if self.api == "responses" else "completion"
            return {"generated_by": GENERATED_BY, name: body} if self.generated else body
        parts = "events" if self.api == "responses" else "chunks"
        shown: JsonObject = {parts: list(self.chunks), "assembled": self.assembled}
        return {"generated_by": GENERATED_BY, **shown} if self.generated else shown


@dataclass(frozen=True)
class Envelope:
    """The fields every object of one response carries: its id, time and model."""

    id: str
    created: int  # seconds since the epoch, as servers send it
    model: str


@dataclass(frozen=True)
class ScriptedMessage:
    """A scripted reply's parts, as the model would send them (arguments as JSON text)."""

    content: str | None
    tool_calls: tuple[ToolCall, ...]
    reasoning: str | None
    finish_reason: str
    usage: Usage | None  # None: the reply reports no usage

    def message(self) -> ReceivedMessage:
        """`choices[0].message` of a completion."""
        return received_message(self.content, self.tool_calls, self.reasoning)

    def reported_usage(self) -> ReportedUsage | None:
        return None if self.usage is None else self.usage.as_reported()


def scripted_completion(envelope: Envelope, reply: ScriptedMessage) -> JsonObject:
    """The `chat.completion` body a server would send for `reply`."""
    body: JsonObject = {
        "id": envelope.id,
        "object": "chat.completion",
        "created": envelope.created,
        "model": envelope.model,
        "choices": [{"index": 0, "message": reply.message(), "finish_reason": reply.finish_reason}],
    }
    usage = reply.reported_usage()
    if usage is not None:
        body["usage"] = usage
    return body


def scripted_chunks(
    envelope: Envelope, reply: ScriptedMessage, *, include_usage: bool
) -> list[JsonObject]:
    """The `chat.completion.chunk`s a server would stream for `reply`, in order.

    As llama-server and OpenAI send them: the role first (content "" when text follows,
    null otherwise), then the reasoning, the text, each tool call (id and name in its first
    delta), an empty delta with the finish reason, and — only when the request asked for it
    with `stream_options.include_usage` — a last chunk with empty `choices` and the usage.
    A server splits text and arguments into token-sized pieces; here each part comes whole,
    so a scripted reply streams as one piece per part.
    """
    head = {
        "id": envelope.id,
        "object": "chat.completion.chunk",
        "created": envelope.created,
        "model": envelope.model,
    }

    def chunk(delta: JsonObject, finish_reason: str | None = None) -> JsonObject:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        return {**head, "choices": [choice]}

    chunks = [chunk({"role": "assistant", "content": None if reply.content is None else ""})]
    if reply.reasoning:
        chunks.append(chunk({"reasoning_content": reply.reasoning}))
    if reply.content:
        chunks.append(chunk({"content": reply.content}))
    for index, call in enumerate(reply.message().get("tool_calls", ())):
        chunks.append(chunk({"tool_calls": [{"index": index, **call}]}))
    chunks.append(chunk({}, reply.finish_reason))
    usage = reply.reported_usage()
    if include_usage and usage is not None:
        chunks.append({**head, "choices": [], "usage": usage})
    return chunks


# -- the Responses wire ----------------------------------------------------------------------


def responses_usage(usage: Usage) -> JsonObject:
    """`Usage` as a Responses response reports it: `input_tokens` (Chat's `prompt_tokens`),
    `output_tokens` (`completion_tokens`), their details' cached and reasoning tokens.
    (`cache_write_tokens`, which a newer server may add, is not said: no script records it.)"""
    return {
        "input_tokens": usage.prompt_tokens,
        "input_tokens_details": {"cached_tokens": usage.cached_tokens},
        "output_tokens": usage.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": usage.total_tokens,
    }


# The loop's finish reasons (Chat Completions' words) that end a Responses response early:
# its `status` is "incomplete" and `incomplete_details.reason` says why.
INCOMPLETE_REASONS = {"length": "max_output_tokens", "content_filter": "content_filter"}


class ReasoningText(TypedDict):
    type: Literal["reasoning_text"]
    text: str


class ReasoningOutput(TypedDict):
    """A `reasoning` output item."""

    id: str
    type: Literal["reasoning"]
    summary: list[object]
    content: list[ReasoningText]


class OutputText(TypedDict):
    type: Literal["output_text"]
    text: str
    annotations: list[object]


class MessageOutput(TypedDict):
    """A `message` output item."""

    id: str
    type: Literal["message"]
    role: Literal["assistant"]
    status: str
    content: list[OutputText]


class FunctionCallOutput(TypedDict):
    """A `function_call` output item."""

    id: str
    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str
    status: str


OutputItem: TypeAlias = ReasoningOutput | MessageOutput | FunctionCallOutput


def response_output(envelope: Envelope, reply: ScriptedMessage) -> list[OutputItem]:
    """The `output` items a Responses server would send for `reply`, in the order a model
    makes them: its reasoning, its text, its function calls (ids made from the response's)."""
    tail = envelope.id.removeprefix("resp_")
    cut = reply.finish_reason in INCOMPLETE_REASONS
    items: list[OutputItem] = []
    if reply.reasoning:
        items.append(
            {
                "id": f"rs_{tail}",
                "type": "reasoning",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": reply.reasoning}],
            }
        )
    content = reply.content
    if content is not None and (content or not reply.tool_calls):
        text: OutputText = {"type": "output_text", "text": content, "annotations": []}
        status = "incomplete" if cut and not reply.tool_calls else "completed"
        items.append(
            {
                "id": f"msg_{tail}",
                "type": "message",
                "role": "assistant",
                "status": status,
                "content": [text],
            }
        )
    for index, call in enumerate(reply.tool_calls):
        last = index == len(reply.tool_calls) - 1
        items.append(
            {
                "id": f"fc_{tail}_{index}",
                "type": "function_call",
                "call_id": call.id_as_sent,
                "name": call.name,
                "arguments": call.arguments,
                "status": "incomplete" if cut and last else "completed",
            }
        )
    return items


def scripted_response(
    envelope: Envelope, reply: ScriptedMessage, request: Mapping[str, object]
) -> JsonObject:
    """The `response` a Responses server would send for `reply` to `request` (whose
    instructions, tools and parameters it echoes, as servers do), in the API's order."""
    reason = INCOMPLETE_REASONS.get(reply.finish_reason)
    return {
        "id": envelope.id,
        "object": "response",
        "created_at": envelope.created,
        "status": "incomplete" if reason else "completed",
        "error": None,
        "incomplete_details": {"reason": reason} if reason else None,
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"),
        "model": envelope.model,
        "output": response_output(envelope, reply),
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "temperature": request.get("temperature"),
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools", []),
        "top_p": request.get("top_p"),
        "usage": None if reply.usage is None else responses_usage(reply.usage),
    }


def scripted_response_events(
    envelope: Envelope, reply: ScriptedMessage, request: Mapping[str, object]
) -> list[JsonObject]:
    """The events a Responses server would stream for `reply`, in order, each numbered
    (`sequence_number`): `response.created` and `response.in_progress` (no output yet);
    for each output item `response.output_item.added`, its text (reasoning text, a
    content part and its `output_text` deltas, or the call's argument deltas), and
    `response.output_item.done`; then `response.completed` (`response.incomplete` when
    cut) with the whole response. As for Chat's chunks, each part comes as one piece."""
    output = response_output(envelope, reply)
    whole = {**scripted_response(envelope, reply, request), "output": output}
    started = {**whole, "status": "in_progress", "output": [], "usage": None}
    started["incomplete_details"] = None
    events: list[JsonObject] = []

    def say(kind: str, **fields: object) -> None:
        events.append({"type": kind, **fields, "sequence_number": len(events)})

    say("response.created", response=started)
    say("response.in_progress", response=started)
    for index, item in enumerate(output):
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "reasoning":
            say("response.output_item.added", output_index=index, item={**item, "content": []})
            text = item["content"][0]["text"]
            say("response.reasoning_text.delta", **where, content_index=0, delta=text)
            say("response.reasoning_text.done", **where, content_index=0, text=text)
        elif item["type"] == "message":
            added = {**item, "status": "in_progress", "content": []}
            say("response.output_item.added", output_index=index, item=added)
            part = item["content"][0]
            empty = {**part, "text": ""}
            say("response.content_part.added", **where, content_index=0, part=empty)
            text = part["text"]
            if text:
                say("response.output_text.delta", **where, content_index=0, delta=text, logprobs=[])
            say("response.output_text.done", **where, content_index=0, text=text, logprobs=[])
            say("response.content_part.done", **where, content_index=0, part=part)
        else:
            added = {**item, "arguments": "", "status": "in_progress"}
            say("response.output_item.added", output_index=index, item=added)
            if item["arguments"]:
                say("response.function_call_arguments.delta", **where, delta=item["arguments"])
            say("response.function_call_arguments.done", **where, arguments=item["arguments"])
        say("response.output_item.done", output_index=index, item=item)
    ended = "response.incomplete" if whole["status"] == "incomplete" else "response.completed"
    say(ended, response=whole)
    return events
