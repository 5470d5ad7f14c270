"""What came back for one request, in the server's exact shape.

Not streamed, a server sends one `chat.completion` body; streamed, a series of
`chat.completion.chunk` objects (one per SSE `data:` line). `RawResponse` keeps either
as it came — every chunk, in order — beside the completion the chunks add up to, so the
inspector can show what the wire carried and what the loop made of it.

Offline there is no server: the scripted backend generates the same objects from the
scripted response (`scripted_completion`, `scripted_chunks`), exactly in the shape a
server uses, and marks them `generated`. What the inspector shows of a generated
response says so in a field no server sends (`generated_by`), so a scripted round is
never passed off as a server's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from airline_agent.agent.events import ToolCall, Usage, received_message

GENERATED_BY = "airline-agent (scripted)"

ResponseKind = Literal["completion", "stream"]


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
        assembled: Callable[[], dict[str, Any]],
        chunks: Callable[[], Sequence[dict[str, Any]]] = tuple,
    ) -> None:
        self.kind = kind
        self.generated = generated
        self._assembled = assembled
        self._chunks = chunks

    @classmethod
    def of_completion(
        cls, body: dict[str, Any] | Callable[[], dict[str, Any]], *, generated: bool = False
    ) -> RawResponse:
        return cls("completion", generated, body if callable(body) else lambda: body)

    @classmethod
    def of_stream(
        cls,
        chunks: Sequence[dict[str, Any]] | Callable[[], Sequence[dict[str, Any]]],
        assembled: dict[str, Any],
        *,
        generated: bool,
    ) -> RawResponse:
        return cls(
            "stream", generated, lambda: assembled, chunks if callable(chunks) else lambda: chunks
        )

    @cached_property
    def assembled(self) -> dict[str, Any]:
        """The reply as one `chat.completion`: the body, or the chunks' sum."""
        return self._assembled()

    @cached_property
    def chunks(self) -> tuple[dict[str, Any], ...]:
        """Kind "stream": each chunk's JSON, in order."""
        return tuple(self._chunks())

    @property
    def completion(self) -> dict[str, Any] | None:
        """Kind "completion": the body as the server sent it."""
        return self.assembled if self.kind == "completion" else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RawResponse):
            return NotImplemented
        mine = (self.kind, self.generated, self.chunks, self.assembled)
        return mine == (other.kind, other.generated, other.chunks, other.assembled)

    __hash__ = None  # type: ignore[assignment]  # it holds dicts

    def __repr__(self) -> str:
        return f"RawResponse(kind={self.kind!r}, generated={self.generated})"

    def as_json(self) -> dict[str, Any]:
        """What the inspector shows: a server's body as it is; a stream as its chunks beside
        the assembled reply; anything generated, under a `generated_by` mark."""
        if self.kind == "completion":
            body = self.completion or {}
            return {"generated_by": GENERATED_BY, "completion": body} if self.generated else body
        shown: dict[str, Any] = {"chunks": list(self.chunks), "assembled": self.assembled}
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

    def message(self) -> dict[str, Any]:
        """`choices[0].message` of a completion."""
        return received_message(self.content, self.tool_calls, self.reasoning)

    def reported_usage(self) -> dict[str, Any] | None:
        return None if self.usage is None else self.usage.as_reported()


def scripted_completion(envelope: Envelope, reply: ScriptedMessage) -> dict[str, Any]:
    """The `chat.completion` body a server would send for `reply`."""
    body: dict[str, Any] = {
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
) -> list[dict[str, Any]]:
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

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
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
