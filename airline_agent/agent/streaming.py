"""One model reply, from a whole completion or assembled from stream chunks.

Works on `openai` objects and on plain dicts alike (servers add fields the SDK does not
know, such as `reasoning_content`, `reasoning` or llama.cpp's `timings`). Streamed tool
calls are assembled by `index`: the first delta of a call carries its id and name, the
next ones only pieces of `arguments`. A streamed reply's usage arrives in a last chunk
with empty `choices` (when asked for with `stream_options.include_usage`); a server that
sends none gives `usage=None`, never zeros.

What came back is kept as it came (`RawResponse`): a completion's body, or every chunk of a
stream in order beside the completion they add up to.

Nothing that leaves here holds a lone UTF-16 surrogate (see `untrusted`): an emoji whose
two halves arrive in two chunks is joined again, any other half becomes U+FFFD, so the
loop's events, its history, the raw responses and the tools' arguments can always be
encoded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from airline_agent.agent.errors import (
    CHECK_BASE_URL,
    NotACompletion,
    StreamCutOff,
    body_excerpt,
    no_choices,
    not_a_stream,
    not_json,
)
from airline_agent.agent.model_reply import ToolCall, Usage, received_message
from airline_agent.agent.raw_response import (
    Envelope,
    RawResponse,
    ScriptedMessage,
    as_int,
    count_of,
    each,
    scripted_completion,
)
from airline_agent.tools.untrusted import (
    SurrogateJoiner,
    UnusableJson,
    clean_strings,
    clean_text,
    parse_json,
)

if TYPE_CHECKING:
    from openai.types.responses import ResponseReasoningItemParam

REASONING_FIELDS = ("reasoning_content", "reasoning")


@dataclass(frozen=True, slots=True)
class TextPiece:
    """Text of the answer, as it streams in."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningPiece:
    """Text of the model's reasoning, as it streams in."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallPiece:
    """A piece of one tool call of the answer (`index`): its id and name when they come,
    and a piece of its arguments' text."""

    index: int
    call_id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True, slots=True)
class ModelReply:
    """A complete model response, whatever the transport."""

    content: str | None
    tool_calls: tuple[ToolCall, ...]
    reasoning: str | None
    finish_reason: str | None
    usage: Usage | None
    model: str | None = None
    raw: RawResponse | None = None  # what came back, in the server's shape
    # On the Responses wire: the reply's reasoning items that go back with it in the next
    # request (agent/responses_reply.py says which can); () on Chat Completions.
    reasoning_items: tuple[ResponseReasoningItemParam, ...] = ()

    @property
    def scripted(self) -> bool:
        """Generated offline from a script: no server, no network time."""
        return self.raw is not None and self.raw.generated


@dataclass(frozen=True, slots=True)
class PromptProgressPiece:
    """llama-server's `prompt_progress` (sent when the request asks with
    `return_progress: true`): how much of the prompt it has read before the answer starts."""

    processed: int
    total: int
    cached: int  # of `total`, already in the server's cache (not read again)


Piece = TextPiece | ReasoningPiece | ToolCallPiece | PromptProgressPiece


def _get(obj: object, name: str) -> object:
    if type(obj) is dict:  # the usual case first: a reply is read field by field
        return obj.get(name)
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _to_dict(obj: object) -> object:
    if obj is None or isinstance(obj, dict | list | str | int | float | bool):
        return obj
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    dump = getattr(obj, "model_dump", None)
    return dump() if callable(dump) else str(obj)


def prompt_progress_of(raw: object) -> PromptProgressPiece | None:
    """A chunk's `prompt_progress` ({"total", "cache", "processed", "time_ms"}), if usable."""
    if raw is None:
        return None
    processed, total = _get(raw, "processed"), _get(raw, "total")
    if not (isinstance(processed, int) and isinstance(total, int)):
        return None
    if processed < 0 or total <= 0:
        return None
    cached = _get(raw, "cache")
    return PromptProgressPiece(processed, total, cached if isinstance(cached, int) else 0)


def _reasoning_of(obj: object) -> str | None:
    for name in REASONING_FIELDS:
        value = _get(obj, name)
        if isinstance(value, str) and value:
            return value
    return None


def _text(value: object) -> str | None:
    """A text field of the reply, surrogates cleaned (None and non-text as they are: what
    a server sent where text belongs is passed on as it came, not made text here)."""
    return clean_text(value) if isinstance(value, str) else cast("str | None", value)


def parse_usage(raw: object) -> Usage | None:
    """Usage from a response's `usage` object; None when the server sent none."""
    if raw is None:
        return None
    prompt_details = _get(raw, "prompt_tokens_details")
    completion_details = _get(raw, "completion_tokens_details")
    return Usage(
        prompt_tokens=count_of(_get(raw, "prompt_tokens")),
        completion_tokens=count_of(_get(raw, "completion_tokens")),
        cached_tokens=count_of(_get(prompt_details, "cached_tokens")),
        reasoning_tokens=count_of(_get(completion_details, "reasoning_tokens")),
    )


def _call_id(raw_id: object) -> str:
    """The id as the server sent it; "" for none (the loop gives such a call an id of its
    own, as it does to a call whose id an earlier call of the reply already has)."""
    return clean_text(str(raw_id)) if raw_id is not None else ""


def reply_from_completion(completion: object, *, generated: bool = False) -> ModelReply:
    """A non-streamed response; anything that is not a completion raises NotACompletion.
    `generated`: the body was made from a script, not sent by a server."""
    choices = _get(completion, "choices") if not isinstance(completion, str) else None
    if choices == []:
        raise no_choices(json.dumps(_to_dict(completion), ensure_ascii=False, default=str))
    if not isinstance(choices, list) or _get(choices[0], "message") is None:
        preview = completion if isinstance(completion, str) else repr(_to_dict(completion))
        raise NotACompletion(
            "The server's answer was not a chat completion.",
            hint="Check that the base URL points at an OpenAI-compatible endpoint "
            f"(usually ending in /v1). The body began: {body_excerpt(str(preview), 120)!r}",
        )
    choice = choices[0]
    message = _get(choice, "message")
    calls = []
    for raw_call in each(_get(message, "tool_calls")):
        function = _get(raw_call, "function")
        calls.append(
            ToolCall(
                call_id=_call_id(_get(raw_call, "id")),
                name=clean_text(str(_get(function, "name") or "")),
                arguments=clean_arguments(_arguments_text(_get(function, "arguments"))),
            )
        )
    return ModelReply(
        content=_text(_get(message, "content")),
        tool_calls=tuple(calls),
        reasoning=_text(_reasoning_of(message)),
        finish_reason=_text(_get(choice, "finish_reason")),
        usage=parse_usage(_get(completion, "usage")),
        model=_text(_get(completion, "model")),
        raw=RawResponse.of_completion(
            lambda: clean_strings(_to_dict(completion)), generated=generated
        ),
    )


def reply_from_script(envelope: Envelope, message: ScriptedMessage) -> ModelReply:
    """What `reply_from_completion` makes of `scripted_completion(envelope, message)` (a
    test holds them equal), without making the body and reading it back on every
    scripted request: the body is made when the raw response is looked at."""
    reasoning = message.reasoning or None  # the body carries no empty reasoning
    return ModelReply(
        content=_text(message.content),
        tool_calls=tuple(_call_as_read(call) for call in message.tool_calls),
        reasoning=_text(reasoning),
        finish_reason=clean_text(message.finish_reason),
        usage=message.usage,
        model=clean_text(envelope.model),
        raw=RawResponse.of_completion(
            lambda: clean_strings(scripted_completion(envelope, message)), generated=True
        ),
    )


def _call_as_read(call: ToolCall) -> ToolCall:
    """A scripted call as the parser reads it from the body: the call itself when there was
    nothing to clean (the usual case), as the id the model sent."""
    call_id, name = _call_id(call.id_as_sent), clean_text(call.name)
    arguments = clean_arguments(call.arguments)
    if call.sent_id is None and (call_id, name, arguments) == (
        call.call_id,
        call.name,
        call.arguments,
    ):
        return call
    return ToolCall(call_id, name, arguments)


def _arguments_text(arguments: object) -> str:
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments)  # a few servers send an object instead of JSON text


def clean_arguments(text: str) -> str:
    """Arguments text whose JSON holds no lone surrogate, written or escaped (`\\ud83d`).

    Rewritten only when it must be (a lone half, rare), with each half replaced by
    U+FFFD; text that is no usable JSON is left for the loop to answer as invalid
    arguments.
    """
    text = clean_text(text)
    if "\\u" not in text:  # no escape, so no escaped half: the usual case
        return text
    parsed = parse_json(text)
    if isinstance(parsed, UnusableJson) or parsed.lone_surrogate is None:
        return text
    return json.dumps(parsed.safe_value(), ensure_ascii=False)


class _CallSlot:
    """One streamed tool call as it is assembled (by the `index` the server gives it)."""

    def __init__(self) -> None:
        self.call_id: str | None = None
        self.name: str | None = None
        self.arguments: list[str] = []
        self.joiner = SurrogateJoiner()


class StreamAssembler:
    """Feed chunks in order; `finish()` gives the reply or raises StreamCutOff.

    Every chunk is kept as it came, for the reply's `raw`, which makes them JSON when it
    is looked at (appended once each: a long stream costs memory in proportion to its
    length, nothing more). `generated`: the chunks were made from a script, not sent by
    a server.
    """

    def __init__(self, *, generated: bool = False) -> None:
        self.generated = generated
        self._received: list[object] = []  # the chunks as they came
        self._content_sent = False  # a content field came, if only "" (the reply's text is "")
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, _CallSlot] = {}
        self._text_joiner = SurrogateJoiner()
        self._reasoning_joiner = SurrogateJoiner()
        self._finish_reason: str | None = None
        self._usage_raw: object = None
        self._model: str | None = None
        self._id: str | None = None
        self._created: object = None
        self._choices_seen = False  # some chunk had a choice (usage-only chunks have none)
        self.chunks = 0

    def feed(self, chunk: object) -> list[Piece]:
        self.chunks += 1
        self._received.append(chunk)  # made into JSON when the raw response is looked at
        pieces: list[Piece] = []
        if self._model is None:
            self._model = _text(_get(chunk, "model"))
            self._id = _text(_get(chunk, "id"))
            self._created = _get(chunk, "created")
        usage = _get(chunk, "usage")
        if usage is not None:
            self._usage_raw = usage
        progress = prompt_progress_of(_get(chunk, "prompt_progress"))
        if progress is not None:
            pieces.append(progress)
        for choice in each(_get(chunk, "choices")):
            self._choices_seen = True
            delta = _get(choice, "delta")
            if delta is not None:
                text = _get(delta, "content")
                self._content_sent = self._content_sent or isinstance(text, str)
                if text:  # the first chunk's content is often null
                    self._add_text(self._text_joiner.feed(cast(str, text)), pieces)
                thought = _reasoning_of(delta)
                if thought:
                    self._add_reasoning(self._reasoning_joiner.feed(thought), pieces)
                for raw_call in each(_get(delta, "tool_calls")):
                    pieces.append(self._feed_call(raw_call))
            reason = _get(choice, "finish_reason")
            if reason:
                self._finish_reason = clean_text(str(reason))
                pieces.extend(self._flush())
        return pieces

    def _add_text(self, text: str, pieces: list[Piece]) -> None:
        if text:  # empty when the piece was only the first half of a character
            self._text.append(text)
            pieces.append(TextPiece(text))

    def _add_reasoning(self, thought: str, pieces: list[Piece]) -> None:
        if thought:
            self._reasoning.append(thought)
            pieces.append(ReasoningPiece(thought))

    def _flush(self) -> list[Piece]:
        """The halves still waiting for their pair when the reply says it is finished."""
        pieces: list[Piece] = []
        self._add_text(self._text_joiner.flush(), pieces)
        self._add_reasoning(self._reasoning_joiner.flush(), pieces)
        for index, slot in sorted(self._calls.items()):
            rest = slot.joiner.flush()
            if rest:
                slot.arguments.append(rest)
                pieces.append(ToolCallPiece(index, None, None, rest))
        return pieces

    def _feed_call(self, raw_call: object) -> ToolCallPiece:
        sent_index = _get(raw_call, "index")
        index = as_int(sent_index) if sent_index is not None else len(self._calls)
        function = _get(raw_call, "function")
        call_id, name = _text(_get(raw_call, "id")), _text(_get(function, "name"))
        slot = self._calls.setdefault(index, _CallSlot())
        piece = slot.joiner.feed(cast(str, _get(function, "arguments") or ""))
        if call_id:
            slot.call_id = call_id
        if name:
            # Most servers send the name once; a few repeat it in every delta.
            slot.name = name if slot.name in (None, name) else slot.name + name
        if piece:
            slot.arguments.append(piece)
        return ToolCallPiece(index, call_id, name, piece)

    def finish(self) -> ModelReply:
        if self.chunks == 0:
            raise NotACompletion(
                "The server's event stream ended with no chunk (no `data:` line held one), "
                "so there is no reply.",
                hint=CHECK_BASE_URL,
            )
        if self._finish_reason is None and not self._choices_seen:
            plural = "s" if self.chunks != 1 else ""
            raise NotACompletion(
                f"The server's stream held no choices ({self.chunks} chunk{plural}, each with "
                "`choices: []`), so there is no reply.",
                hint="The server may have filtered the reply or failed to generate one; "
                "see its log.",
            )
        if self._finish_reason is None:
            raise StreamCutOff(
                "The model's streamed answer was cut off before it finished.",
                hint="Try again; if it keeps happening, use --no-stream.",
            )
        self._flush()  # halves sent after the finish reason, if a server does that
        calls = tuple(
            ToolCall(
                call_id=_call_id(slot.call_id),
                name=slot.name or "",
                arguments=clean_arguments("".join(slot.arguments)),
            )
            for _index, slot in sorted(self._calls.items())
        )
        content = "".join(self._text) if self._text else ("" if self._content_sent else None)
        reasoning = "".join(self._reasoning) if self._reasoning else None
        message = received_message(content, calls, reasoning)
        assembled = {
            "id": self._id,
            "object": "chat.completion",
            "created": self._created,
            "model": self._model,
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish_reason}],
            "usage": clean_strings(_to_dict(self._usage_raw)),
        }
        received = self._received
        # Each chunk as it came, but for lone halves (U+FFFD: a chunk holds one half of a
        # split emoji; the assembled reply has it whole).
        raw = RawResponse.of_stream(
            lambda: [clean_strings(_to_dict(chunk)) for chunk in received],
            assembled,
            generated=self.generated,
        )
        return ModelReply(
            content=content,
            tool_calls=calls,
            reasoning=reasoning,
            finish_reason=self._finish_reason,
            usage=parse_usage(self._usage_raw),
            model=self._model,
            raw=raw,
        )


def reply_from_whole_body(data: bytes, content_type: str) -> ModelReply:
    """The answer to a streamed request that came as one body, not as an event stream: a
    completion (a server that ignores `stream: true`) is the reply; anything else raises
    NotACompletion saying what came (nothing, an HTML page, not JSON, other text)."""
    text = data.decode("utf-8", errors="replace")
    if re.match(r"\s*(data|event|id|retry)?:", text):
        # An event stream under another content type (some servers send text/plain).
        assembler = StreamAssembler()
        for chunk in event_stream_data(text):
            assembler.feed(chunk)
        return assembler.finish()
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        raise not_a_stream(text, content_type) from None
    return reply_from_completion(body)  # JSON that is no completion says so there


def event_stream_data(text: str) -> list[object]:
    """The JSON `data:` of each server-sent event, up to `[DONE]`."""
    chunks: list[object] = []
    for event in re.split(r"\r?\n\r?\n", text):
        lines = [
            line[5:].removeprefix(" ") for line in event.splitlines() if line.startswith("data:")
        ]
        if not lines:
            continue
        payload = "\n".join(lines)
        if payload.strip() == "[DONE]":
            break
        try:
            chunks.append(json.loads(payload))
        except (ValueError, RecursionError):
            raise not_json(payload) from None
    return chunks
