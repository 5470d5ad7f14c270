"""A Responses API response read into the loop's reply: one `response` object, or the stream
of events that adds up to one (agent/streaming.py is Chat Completions' twin).

The loop's reply speaks one vocabulary on both wires (Chat Completions' words: the events,
the recorder and the scenario files use them), so a response is read into it thus:

    output `message` items' `output_text`     the reply's content (None: no message item)
    output `function_call` (`call_id`)        a tool call, under that id
    output `reasoning` (`content`, `summary`) the reply's reasoning; the item itself goes
                                              back with the reply (`reasoning_items`) when
                                              it has an id and led to a message or a call
    status "completed", function calls out    finish_reason "tool_calls"
    status "completed"                        "stop"
    status "incomplete", `max_output_tokens`  "length"  (`content_filter`: "content_filter")
    status "failed"                           a failure (`ResponseFailed`), never a reply
    usage `input_tokens`, `output_tokens`     prompt_tokens, completion_tokens (and their
                                              details' cached and reasoning tokens)

A stream is named events: text arrives in `response.output_text.delta`, a call's
arguments in `response.function_call_arguments.delta` (its id and name came in
`response.output_item.added`), reasoning in `response.reasoning_text.delta` or
`response.reasoning_summary_text.delta`; `response.completed` (or `.incomplete`) carries
the whole response, which is the reply. An `error` event or `response.failed` mid-stream
is a failure; a stream that ends before its last event was cut off.

Works on the `openai` package's objects (`Response`, `ResponseStreamEvent`) and on plain
JSON alike (a body read whole, a scripted one); every event is kept as it came, for the
inspector. Nothing that leaves here holds a lone UTF-16 surrogate (agent/streaming.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias, cast

from airline_agent.agent.errors import (
    CHECK_BASE_URL,
    BackendError,
    NotACompletion,
    StreamCutOff,
    body_excerpt,
    not_a_stream,
)
from airline_agent.agent.model_reply import ToolCall, Usage
from airline_agent.agent.raw_response import (
    Envelope,
    JsonObject,
    RawResponse,
    ScriptedMessage,
    count_of,
    each,
    scripted_response,
)
from airline_agent.agent.responses_wire import arguments_text
from airline_agent.agent.streaming import (
    ModelReply,
    Piece,
    ReasoningPiece,
    TextPiece,
    ToolCallPiece,
    clean_arguments,
    event_stream_data,
    prompt_progress_of,
)
from airline_agent.tools.untrusted import SurrogateJoiner, clean_strings, clean_text

if TYPE_CHECKING:  # the SDK's types, for the annotations: the loop never loads openai
    from openai.types.responses import (
        Response,
        ResponseReasoningItemParam,
        ResponseStreamEvent,
        ResponseUsage,
    )

ResponseBody: TypeAlias = "Response | Mapping[str, object]"  # the SDK's object, or its JSON

# How an incomplete response's reason reads as the loop's finish reason.
FINISH_OF_INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}
USE_CHAT = "Use --api chat (Chat Completions), or a server that serves /v1/responses."


class ResponseFailed(BackendError):
    """A response whose status is "failed" (or a `response.failed` event): the server's
    `error` said in the words its Chat Completions counterpart (an HTTP failure) gets."""

    def __init__(self, code: str | None, detail: str) -> None:
        said = f"response failed: {code}" if code else "response failed"
        if code in ("rate_limit_exceeded", "rate_limit_error"):
            kind, message = "rate_limit", f"The model server is rate-limiting us ({said}): {detail}"
            hint = "Wait a moment and try again, or lower the request rate."
        elif code in (None, "server_error", "internal_error", "vector_store_timeout"):
            kind, message = "server", f"The model server failed ({said}): {detail}"
            hint = "Try again; if it keeps failing, check the server's log."
        else:
            kind, message = (
                "bad_request",
                f"The model server rejected the request ({said}): {detail}",
            )
            hint = "This is likely a server incompatibility; the request is shown in the trace."
        super().__init__(message, hint=hint)
        self.kind = kind
        self.retryable = kind != "bad_request"


class StreamError(BackendError):
    """An `error` event in the middle of a Responses stream: said as Chat Completions says
    an `error` object inside its stream."""

    kind = "api"

    def __init__(self, detail: str) -> None:
        super().__init__(f"The model server reported an error: {detail}")


class NoResponsesEndpoint(BackendError):
    """The server answers 404 to POST …/responses: it does not serve the Responses API."""

    kind = "not_found"
    status = 404

    def __init__(self, base_url: str | None, detail: str) -> None:
        where = base_url or "the API"
        super().__init__(
            f"The model server at {where} does not serve the Responses API: "
            f"POST /responses answered 404 ({detail}).",
            hint=f"{USE_CHAT} (vLLM, LM Studio and OpenAI serve it; llama.cpp's server may not.)",
        )


# -- reading fields of an object or of its JSON ------------------------------------------


def field_of(value: object, name: str) -> object:
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def json_of(value: object) -> object:
    """The JSON of an SDK object as the server sent it (unset fields left out); JSON as it
    is."""
    if value is None or isinstance(value, dict | list | str | int | float | bool):
        return value
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else dict(cast("Mapping[str, object]", value))


def parse_usage(usage: ResponseUsage | object) -> Usage | None:
    """The loop's `Usage` from a response's `usage`; None when the server sent none."""
    if usage is None:
        return None
    cached = field_of(field_of(usage, "input_tokens_details"), "cached_tokens")
    reasoning = field_of(field_of(usage, "output_tokens_details"), "reasoning_tokens")
    return Usage(
        prompt_tokens=count_of(field_of(usage, "input_tokens")),
        completion_tokens=count_of(field_of(usage, "output_tokens")),
        cached_tokens=count_of(cached),
        reasoning_tokens=count_of(reasoning),
    )


# -- a whole response ----------------------------------------------------------------------


def reply_from_response(
    response: ResponseBody, *, generated: bool = False, raw: RawResponse | None = None
) -> ModelReply:
    """A non-streamed response (or a stream's last: `raw` is then the stream's). Anything
    that is no finished response raises: a failed one `ResponseFailed`, anything else
    NotACompletion saying what it was."""
    _check(response)
    if raw is None:
        raw = RawResponse.of_completion(
            lambda: clean_strings(json_of(response)), generated=generated, api="responses"
        )
    return _reply(response, list(each(field_of(response, "output"))), raw)


def _check(response: object) -> None:
    """Raise unless `response` is a finished response: NotACompletion for something else
    (or one not finished), ResponseFailed for a failed one."""
    if field_of(response, "object") != "response" and field_of(response, "output") is None:
        raise NotACompletion(
            "The server's answer was not a Responses API response (no `object: "
            '"response"` with an `output`).',
            hint=f"{CHECK_BASE_URL} The body began: {_excerpt(response)!r}",
        )
    status = field_of(response, "status")
    if status == "failed":
        raise failure_of(response)
    if status not in (None, "completed", "incomplete"):
        raise NotACompletion(
            f"The server's response is not finished (status {status!r}), so there is no reply.",
            hint="The loop does not run responses in the background; see the server's log.",
        )


def _reply(response: object, output: Sequence[object], raw: RawResponse) -> ModelReply:
    texts: list[str] = []
    said = False  # a message item came (its text may be "")
    calls: list[ToolCall] = []
    reasoning: list[str] = []
    kept: list[ResponseReasoningItemParam] = []
    for position, item in enumerate(output):
        kind = field_of(item, "type")
        if kind == "message":
            said = True
            texts += [_part_text(part) for part in each(field_of(item, "content"))]
        elif kind == "function_call":
            calls.append(
                ToolCall(
                    call_id=_call_id(field_of(item, "call_id")),
                    name=clean_text(str(field_of(item, "name") or "")),
                    arguments=clean_arguments(arguments_text(field_of(item, "arguments"))),
                )
            )
        elif kind == "reasoning":
            text = reasoning_text(item)
            if text:
                reasoning.append(text)
            item_kept = _kept_reasoning(item, output[position + 1 :])
            if item_kept is not None:
                kept.append(item_kept)
    status = field_of(response, "status")
    if status == "incomplete":
        why = field_of(field_of(response, "incomplete_details"), "reason")
        finish = FINISH_OF_INCOMPLETE.get(cast(str, why), str(why or "length"))
    else:
        finish = "tool_calls" if calls else "stop"
    model = field_of(response, "model")
    return ModelReply(
        content=clean_text("".join(texts)) if said else None,
        tool_calls=tuple(calls),
        reasoning=clean_text("\n\n".join(reasoning)) if reasoning else None,
        finish_reason=finish,
        usage=parse_usage(field_of(response, "usage")),
        model=clean_text(model) if isinstance(model, str) else None,
        raw=raw,
        reasoning_items=tuple(kept),
    )


def _part_text(part: object) -> str:
    kind = field_of(part, "type")
    if kind == "refusal":  # said to the customer as the reply (Chat keeps it apart)
        return str(field_of(part, "refusal") or "")
    return str(field_of(part, "text") or "") if kind == "output_text" else ""


def reasoning_text(item: object) -> str:
    """A reasoning item's text: its `content` (the reasoning itself, as vLLM sends it), or
    else its `summary` (what OpenAI's models give)."""
    content = [str(field_of(part, "text") or "") for part in each(field_of(item, "content"))]
    if any(content):
        return "".join(content)
    return "\n\n".join(
        str(field_of(part, "text") or "") for part in each(field_of(item, "summary"))
    )


def _kept_reasoning(item: object, after: Sequence[object]) -> ResponseReasoningItemParam | None:
    """The reasoning item as it goes back in the next request, or None when it cannot: an
    item with no id is none the API takes; one followed by no message or call (the reply
    was cut while it reasoned) has nothing to go back with."""
    item_id = field_of(item, "id")
    following = next((later for later in after if field_of(later, "type") != "reasoning"), None)
    if not item_id or field_of(following, "type") not in ("message", "function_call"):
        return None
    kept: dict[str, object] = {
        "type": "reasoning",
        "id": str(item_id),
        "summary": [
            {"type": "summary_text", "text": str(field_of(part, "text") or "")}
            for part in each(field_of(item, "summary"))
        ],
    }
    content = field_of(item, "content")
    if content:
        kept["content"] = [
            {"type": "reasoning_text", "text": str(field_of(part, "text") or "")}
            for part in each(content)
        ]
    encrypted = field_of(item, "encrypted_content")
    if encrypted is not None:
        kept["encrypted_content"] = encrypted
    cleaned: ResponseReasoningItemParam = clean_strings(kept)
    return cleaned


def _call_id(raw_id: object) -> str:
    """As streaming.py: "" for none (the loop then gives the call an id of its own)."""
    return clean_text(str(raw_id)) if raw_id is not None else ""


def failure_of(response: object) -> ResponseFailed:
    error = field_of(response, "error")
    code = field_of(error, "code")
    detail = field_of(error, "message") or "no details"
    return ResponseFailed(str(code) if code else None, body_excerpt(str(detail)))


def _excerpt(response: object) -> str:
    try:
        text = json.dumps(json_of(response), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(response)
    return body_excerpt(text, 120)


def reply_from_script(
    envelope: Envelope, message: ScriptedMessage, request: Mapping[str, object]
) -> ModelReply:
    """A scripted reply as a Responses server would send it to `request`, read back as a
    server's is (marked generated)."""
    return reply_from_response(scripted_response(envelope, message, request), generated=True)


# -- a stream ------------------------------------------------------------------------------


class _Call:
    """One streamed function call: its place among the reply's calls and its arguments."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.arguments: list[str] = []
        self.joiner = SurrogateJoiner()


class ResponsesStreamReader:
    """Feed the events in order; `finish()` gives the reply, or raises (cut off, failed).

    An item is found by its `output_index`, or, from a server that sends none (llama.cpp's
    `llama-server` names items only by id), by its id (`item.id`, a delta's `item_id`).
    llama-server's `prompt_progress`, when asked for, is passed on as Chat's is. Each event
    is kept as it came, for the reply's `raw` (made into JSON when looked at).
    `generated`: the events were made from a script, not sent by a server.
    """

    def __init__(self, *, generated: bool = False) -> None:
        self.generated = generated
        self.events = 0
        self._received: list[object] = []  # SDK events, or JSON as it came (any JSON)
        # Where each item is (its output_index, or its id): the item, added then done; the
        # calls among them. In the order they came.
        self._items: dict[object, object] = {}
        self._calls: dict[object, _Call] = {}
        self._text = SurrogateJoiner()
        self._reasoning = SurrogateJoiner()
        self._final: object = None  # the response of response.completed / .incomplete

    def feed(self, event: ResponseStreamEvent | object) -> list[Piece]:
        self.events += 1
        self._received.append(event)
        kind = field_of(event, "type")
        item = field_of(event, "item")
        index = field_of(event, "output_index")
        if index is None:
            index = field_of(item, "id") if item is not None else field_of(event, "item_id")
        pieces: list[Piece] = []
        progress = prompt_progress_of(field_of(event, "prompt_progress"))
        if progress is not None:
            pieces.append(progress)
        if kind == "response.output_item.added":
            self._items[index] = item
            if field_of(item, "type") == "function_call":
                call = self._call(index)
                name, call_id = field_of(item, "name"), field_of(item, "call_id")
                head = call.joiner.feed(arguments_text(field_of(item, "arguments")))
                call.arguments.append(head)
                pieces.append(
                    ToolCallPiece(
                        call.index,
                        clean_text(cast(str, call_id)) if call_id else None,
                        clean_text(cast(str, name)) if name else None,
                        head,
                    )
                )
        elif kind == "response.function_call_arguments.delta":
            call = self._call(index)
            piece = call.joiner.feed(str(field_of(event, "delta") or ""))
            call.arguments.append(piece)
            if piece:
                pieces.append(ToolCallPiece(call.index, None, None, piece))
        elif kind == "response.function_call_arguments.done":
            call = self._call(index)
            whole = str(field_of(event, "arguments") or "")
            if not "".join(call.arguments) and whole:  # a server that sent no deltas
                call.arguments.append(whole)
                pieces.append(ToolCallPiece(call.index, None, None, whole))
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            text = self._text.feed(str(field_of(event, "delta") or ""))
            if text:
                pieces.append(TextPiece(text))
        elif kind in ("response.reasoning_text.delta", "response.reasoning_summary_text.delta"):
            thought = self._reasoning.feed(str(field_of(event, "delta") or ""))
            if thought:
                pieces.append(ReasoningPiece(thought))
        elif kind == "response.output_item.done":
            self._items[index] = item
            pieces.extend(self._flush())
        elif kind in ("response.completed", "response.incomplete"):
            self._final = field_of(event, "response")
            pieces.extend(self._flush())
        elif kind == "response.failed":
            raise failure_of(field_of(event, "response"))
        elif kind == "error":
            raise StreamError(body_excerpt(str(field_of(event, "message") or "no details")))
        return pieces

    def _call(self, place: object) -> _Call:
        call = self._calls.get(place)
        if call is None:
            call = self._calls[place] = _Call(len(self._calls))
        return call

    def _flush(self) -> list[Piece]:
        """The halves still waiting for their pair when an item or the response is done."""
        pieces: list[Piece] = []
        if text := self._text.flush():
            pieces.append(TextPiece(text))
        if thought := self._reasoning.flush():
            pieces.append(ReasoningPiece(thought))
        for call in self._calls.values():
            if rest := call.joiner.flush():
                call.arguments.append(rest)
                pieces.append(ToolCallPiece(call.index, None, None, rest))
        return pieces

    def finish(self) -> ModelReply:
        if self.events == 0:
            raise NotACompletion(
                "The server's event stream ended with no event (no `data:` line held one), "
                "so there is no reply.",
                hint=CHECK_BASE_URL,
            )
        final = self._final
        if final is None:
            raise StreamCutOff(
                "The model's streamed answer was cut off before it finished.",
                hint="Try again; if it keeps happening, use --no-stream.",
            )
        output = list(each(field_of(final, "output")))
        if not output:  # a server that sends the items only as events
            output = list(self._items.values())
        received = self._received

        def assembled() -> JsonObject:
            body = dict(cast("Mapping[str, object]", json_of(final)))
            body["output"] = [json_of(item) for item in output]
            cleaned: JsonObject = clean_strings(body)
            return cleaned

        raw = RawResponse.of_stream(
            lambda: [clean_strings(json_of(event)) for event in received],
            assembled,
            generated=self.generated,
            api="responses",
        )
        _check(final)
        return _reply(final, output, raw)


def read_events(
    events: Iterable[ResponseStreamEvent | object], *, generated: bool = False
) -> ModelReply:
    """The reply of a whole stream of events (its pieces left out)."""
    reader = ResponsesStreamReader(generated=generated)
    for event in events:
        reader.feed(event)
    return reader.finish()


def reply_from_whole_body(data: bytes, content_type: str) -> ModelReply:
    """The answer to a streamed request that came as one body: a response (a server that
    ignores `stream: true`) is the reply; an event stream under another content type is
    read as one; anything else raises NotACompletion saying what came."""
    text = data.decode("utf-8", errors="replace")
    if re.match(r"\s*(data|event|id|retry)?:", text):
        return read_events(event_stream_data(text))
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        raise not_a_stream(text, content_type) from None
    if not isinstance(body, dict):
        raise not_a_stream(text, content_type)
    return reply_from_response(body)
