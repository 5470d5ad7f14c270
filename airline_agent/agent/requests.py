"""One model request: its exact body, the pieces as they stream in, the retries of a
failure worth retrying, and what it cost (usage, latency, time to the first token)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from airline_agent.agent.backends import ChatBackend
from airline_agent.agent.conversation import Conversation
from airline_agent.agent.edits import wire_form
from airline_agent.agent.errors import Failure, NotACompletion, backoff_delay, classify
from airline_agent.agent.events import (
    AgentEvent,
    ErrorOccurred,
    PromptProgress,
    ReasoningDelta,
    RequestEdit,
    RequestSent,
    ResponseStalled,
    RetryScheduled,
    TextDelta,
    ToolCallDelta,
    UsageReported,
)
from airline_agent.agent.hooks import LoopHooks, OutgoingRequest
from airline_agent.agent.model_reply import HistoryEntry
from airline_agent.agent.options import LoopOptions
from airline_agent.agent.prefix import PrefixTracker
from airline_agent.agent.stall_watch import Silence, watched
from airline_agent.agent.streaming import (
    ModelReply,
    PromptProgressPiece,
    ReasoningPiece,
    TextPiece,
    ToolCallPiece,
)
from airline_agent.agent.usage import context_window, cost_of
from airline_agent.agent.wire import sent_parts


class Requester(Protocol):
    """What a request needs of the session: the model's name, the backend and options."""

    @property
    def model(self) -> str: ...

    backend: ChatBackend
    options: LoopOptions
    prefix_tracker: PrefixTracker  # the previous request's prefix, to say if it changed
    hooks: LoopHooks  # called before the request is sent (agent/hooks.py)

    def request_body(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Answered:
    """The reply of one request, after its events (the last thing `send_request` yields)."""

    reply: ModelReply
    latency_ms: float


def request_body(
    model: str, history: Sequence[HistoryEntry], tools: list[dict[str, Any]], o: LoopOptions
) -> dict[str, Any]:
    """The exact Chat Completions body of the next request."""
    body: dict[str, Any] = {"model": model, "messages": list(history)}
    if tools:
        body["tools"] = tools
        choice = o.tool_choice
        if isinstance(choice, str) and choice not in ("auto", "none", "required"):
            choice = {"type": "function", "function": {"name": choice}}
        body["tool_choice"] = choice
        if o.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = o.parallel_tool_calls
    optional = {
        "temperature": o.temperature,
        "seed": o.seed,
        "max_tokens": o.max_tokens,
        "stop": o.stop,
    }
    body |= {name: value for name, value in optional.items() if value is not None}
    if o.stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    if o.extra_body:
        body["extra_body"] = o.extra_body
    return body


async def send_request(
    session: Requester, conversation: Conversation
) -> AsyncIterator[AgentEvent | Answered]:
    """One request with its retries: its events, then `Answered` (or nothing, after an
    ErrorOccurred). The hooks come first (the debugger may hold it: nothing is sent until
    they are done); a body they replaced is what goes on the wire, byte for byte."""
    body = session.request_body()
    edit: RequestEdit | None = None
    outgoing = OutgoingRequest(conversation, body)
    async for event in session.hooks.before_request(outgoing):
        yield event
    if outgoing.edited is not None and outgoing.wire is not None:
        number = conversation.requests + 1
        edit = RequestEdit(number, wire_form(body), outgoing.edited, outgoing.wire)
        conversation.adopt_request_edit(edit)
        body = outgoing.edited
    conversation.requests += 1
    number = conversation.requests
    step = conversation.take_step("request", request=number)
    parts = sent_parts(body, conversation.history)  # on either wire (agent/wire.py)
    yield RequestSent(
        turn=conversation.turns,
        request=number,
        model=body["model"],
        messages=parts.messages,
        tools=parts.tools,
        params=parts.params,
        prefix=session.prefix_tracker.observe(body),
        step=step,
        edit=edit,
        body=parts.body,
    )
    attempt = 0
    o = session.options
    # A backend whose replies are made at once (the scripted one) cannot go silent: no
    # watch, and no task and queue for it on every request.
    notice = o.stall_notice if getattr(session.backend, "can_stall", True) else None
    while True:
        timing = _Timing()
        received = 0  # pieces of the answer this attempt yielded
        try:
            reply: ModelReply | None = None
            pieces = (
                session.backend.reply(body)
                if edit is None
                else session.backend.reply(body, wire=edit.wire)
            )
            async for piece in watched(pieces, notice):
                if isinstance(piece, Silence):
                    yield ResponseStalled(number, piece.seconds, received)
                elif isinstance(piece, ModelReply):
                    reply = piece
                elif isinstance(piece, PromptProgressPiece):  # not yet the answer's first token
                    yield PromptProgress(number, piece.processed, piece.total, piece.cached)
                else:
                    received += 1
                    timing.piece_arrived()
                    yield _delta(number, piece)
            if reply is None:
                raise NotACompletion("The backend ended without a reply.")
            break
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # every failure becomes a plain event, never a crash
            failure = classify(exc, model=session.model, base_url=session.backend.base_url)
            if failure.kind == "timeout" and received:
                failure = _stopped_mid_answer(failure, session.backend.base_url, received)
            attempt += 1
            if not failure.retryable or attempt > o.retries:
                yield ErrorOccurred(failure.kind, failure.message, failure.hint, failure.status)
                return
            delay = backoff_delay(attempt, failure, base=o.retry_base_delay, cap=o.retry_max_delay)
            yield RetryScheduled(attempt, delay, failure.message, number, received)
            await asyncio.sleep(delay)
    yield _usage_reported(session.model, number, reply, timing, conversation)
    yield Answered(reply, timing.latency_ms())


def _stopped_mid_answer(failure: Failure, base_url: str | None, received: int) -> Failure:
    """A read timeout after the answer began: not "did not answer", it stopped sending."""
    plural = "s" if received != 1 else ""
    message = (
        f"The model server at {base_url or 'the API'} stopped sending in the middle of its "
        f"answer (after {received} piece{plural})."
    )
    hint = "Try again; a slow local model may need a longer AIRLINE_AGENT_TIMEOUT."
    return replace(failure, message=message, hint=hint)


def _delta(number: int, piece: TextPiece | ReasoningPiece | ToolCallPiece) -> AgentEvent:
    if isinstance(piece, TextPiece):
        return TextDelta(number, piece.text)
    if isinstance(piece, ReasoningPiece):
        return ReasoningDelta(number, piece.text)
    return ToolCallDelta(number, piece.index, piece.call_id, piece.name, piece.arguments)


class _Timing:
    """When a request's attempt started, and when its first and last pieces came."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.first: float | None = None
        self.last: float | None = None

    def piece_arrived(self) -> None:
        now = time.perf_counter()
        if self.first is None:
            self.first = now
        self.last = now

    def latency_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000

    def first_token_ms(self) -> float | None:
        return None if self.first is None else (self.first - self.started) * 1000

    def tokens_per_second(self, completion_tokens: int) -> float | None:
        """Completion tokens over the time from the first piece to the last: the speed of
        generation alone, without the wait for the prompt to be read."""
        if self.first is None or self.last is None or completion_tokens <= 1:
            return None
        seconds = self.last - self.first
        return (completion_tokens - 1) / seconds if seconds > 0 else None


def _usage_reported(
    model: str, number: int, reply: ModelReply, timing: _Timing, conversation: Conversation
) -> UsageReported:
    cost = cost_of(model, reply.usage)
    if cost is None and reply.usage is not None and reply.model:
        cost = cost_of(reply.model, reply.usage)
    conversation.count_usage(reply.usage, cost)
    completion = reply.usage.completion_tokens if reply.usage else 0
    # A scripted reply has no network time: what a timer would measure is the front end
    # taking its pieces, so the stream figures are left unknown (and the event says why).
    measured = not reply.scripted
    return UsageReported(
        request=number,
        usage=reply.usage,
        cost=cost,
        model=reply.model or model,
        latency_ms=timing.latency_ms(),
        context_window=context_window(model) or context_window(reply.model),
        first_token_ms=timing.first_token_ms() if measured else None,
        tokens_per_second=timing.tokens_per_second(completion) if measured else None,
        scripted=reply.scripted,
    )
