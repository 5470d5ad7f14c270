"""Where model replies come from: an OpenAI-compatible server, or a prepared script.

A backend takes the exact request body the loop built and yields the reply's pieces as
they arrive (text, reasoning, tool-call deltas; only when streaming), then one
`ModelReply`. A body you edited at the debugger comes with `wire`, the bytes to send as
they are (the body is then their parsed value). Failures are raised (openai exceptions or
`BackendError`s) and classified by the loop with `agent.errors.classify`.

A backend speaks one wire (`api`): Chat Completions (`OpenAIBackend`) or the Responses
API (`ResponsesBackend`, `--api responses`); the scripted backend speaks either, its
answers generated in that wire's shape. The loop builds the body for the backend's wire.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, Self

import openai
from openai import AsyncStream
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent

from airline_agent.agent import responses_reply
from airline_agent.agent.errors import (
    NotACompletion,
    RecordedFailure,
    ScriptExhausted,
    StreamCutOff,
    body_excerpt,
)
from airline_agent.agent.model_reply import ToolCall, Usage
from airline_agent.agent.raw_response import (
    Envelope,
    ScriptedMessage,
    scripted_chunks,
    scripted_response_events,
)
from airline_agent.agent.streaming import (
    ModelReply,
    Piece,
    StreamAssembler,
    reply_from_completion,
    reply_from_script,
    reply_from_whole_body,
)
from airline_agent.choices import Api

if TYPE_CHECKING:
    from airline_agent.config import Settings

# Local servers (Ollama, vLLM, llama.cpp, LM Studio) accept any key; the client needs one.
PLACEHOLDER_KEY = "not-needed-for-local-servers"


class ChatBackend(Protocol):
    model: str
    base_url: str | None
    # Whether a reply may keep the loop waiting (a server may go silent): the loop then
    # watches for silence (agent/stall_watch.py). A backend that does not say is watched.
    can_stall: bool
    # The wire it speaks, whose bodies it takes (agent/wire.py); one that does not say
    # speaks Chat Completions.
    api: Api

    def reply(
        self, body: dict[str, Any], wire: bytes | None = None
    ) -> AsyncIterator[Piece | ModelReply]: ...


class BackendConfigError(ValueError):
    """The backend cannot be built from the given settings (said plainly)."""


@dataclass(frozen=True)
class ScriptedToolCall:
    name: str
    arguments: dict[str, object] | str  # str is sent raw (may be malformed JSON on purpose)
    call_id: str | None = None

    @cached_property
    def arguments_text(self) -> str:
        """The arguments as the model sends them: a string as it stands, an object as
        JSON. Made once: a replay or an evaluation plays one script many times."""
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


@dataclass(frozen=True)
class ScriptedFailure:
    """A request that fails (as one did when the conversation was recorded)."""

    kind: str
    message: str
    hint: str | None = None
    status: int | None = None


@dataclass(frozen=True)
class ScriptedResponse:
    content: str | None = None
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    reasoning: str | None = None
    usage: Usage | None = None
    finish_reason: str | None = None  # default: "tool_calls" if tool_calls else "stop"
    failure: ScriptedFailure | None = None  # the request fails instead: nothing else counts


# 2024-05-15T15:00:00 UTC, the domain clock's default (policy C1).
SCRIPTED_CREATED = 1715785200


class ScriptedBackend:
    """Answers requests in order from its queue; past the end, ScriptExhausted.

    Each answer is what a server would send, generated from the script and marked so: a
    `chat.completion` body, or (for `stream: true`) its chunks. The chunks are read
    through the same stream assembler as a server's; the body is made only when its raw
    response is looked at, and the reply is what the parser makes of it
    (`reply_from_script`). `created` is the time they carry. With `api="responses"` it
    answers Responses bodies: a `response` object, or its stream of events, read through
    the Responses reader as a server's are.
    """

    base_url: str | None = None
    can_stall = False  # its replies are made at once, never waited for

    def __init__(
        self,
        responses: Iterable[ScriptedResponse] = (),
        *,
        model: str = "scripted",
        created: int = SCRIPTED_CREATED,
        api: Api = "chat",
    ):
        self.model = model
        self.created = created
        self.api: Api = api
        self._queue: deque[ScriptedResponse] = deque(responses)
        self._served = 0
        self.requests: list[dict[str, Any]] = []  # the bodies received since `load`, for tests

    def load(self, responses: Iterable[ScriptedResponse]) -> None:
        self._queue = deque(responses)
        # A replay loads each turn; every body holds the whole history so far, so keeping
        # all of them made memory grow with the square of the number of turns.
        self.requests = []

    @property
    def remaining(self) -> int:
        return len(self._queue)

    async def reply(
        self, body: dict[str, Any], wire: bytes | None = None
    ) -> AsyncIterator[Piece | ModelReply]:
        self.requests.append(body)
        if not self._queue:
            raise ScriptExhausted(
                "The scripted model has no more responses for this request.",
                hint="The conversation went further than the script; add a response or "
                "end the scenario here.",
            )
        response = self._queue.popleft()
        self._served += 1
        if response.failure is not None:
            failure = response.failure
            raise RecordedFailure(
                failure.kind, failure.message, hint=failure.hint, status=failure.status
            )
        calls = tuple(
            ToolCall(
                # No id in the script: one made up, as a server would send. An id given
                # as "" is sent blank (a recording of a model that sent none).
                call_id=f"call_{self._served}_{position}" if call.call_id is None else call.call_id,
                name=call.name,
                arguments=call.arguments_text,
            )
            for position, call in enumerate(response.tool_calls)
        )
        reply = ScriptedMessage(
            content=response.content,
            tool_calls=calls,
            reasoning=response.reasoning,
            finish_reason=response.finish_reason or ("tool_calls" if calls else "stop"),
            usage=response.usage,
        )
        if self.api == "responses":
            for piece in self._responses_reply(body, reply):
                yield piece
            return
        envelope = Envelope(f"chatcmpl-scripted-{self._served}", self.created, self.model)
        if not body.get("stream"):
            yield reply_from_script(envelope, reply)
            return
        assembler = StreamAssembler(generated=True)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        for chunk in scripted_chunks(envelope, reply, include_usage=include_usage):
            for piece in assembler.feed(chunk):
                yield piece
        yield assembler.finish()

    def _responses_reply(
        self, body: dict[str, Any], reply: ScriptedMessage
    ) -> Iterable[Piece | ModelReply]:
        """The reply on the Responses wire: the response, or its events read in order."""
        envelope = Envelope(f"resp_scripted_{self._served}", self.created, self.model)
        if not body.get("stream"):
            yield responses_reply.reply_from_script(envelope, reply, body)
            return
        reader = responses_reply.ResponsesStreamReader(generated=True)
        for event in scripted_response_events(envelope, reply, body):
            yield from reader.feed(event)
        yield reader.finish()


class OpenAIBackend:
    """Chat Completions through `openai.AsyncOpenAI`, at OpenAI or any compatible server.

    The client's own retries are off: the loop retries visibly (RetryScheduled events).
    """

    can_stall = True
    api: Api = "chat"

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        client: openai.AsyncOpenAI | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        if client is None:
            if not api_key:
                if not base_url:
                    raise BackendConfigError(
                        "OPENAI_API_KEY is not set: api.openai.com needs a key "
                        "(a local server needs only OPENAI_BASE_URL)."
                    )
                api_key = PLACEHOLDER_KEY
            client = openai.AsyncOpenAI(
                api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
            )
        self.client = client
        if self.base_url is None:
            self.base_url = str(getattr(client, "base_url", "") or "") or None

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        if not settings.model:
            raise BackendConfigError("No model is configured (AIRLINE_AGENT_MODEL or --model).")
        key = settings.api_key.get_secret_value() if settings.api_key else None
        return cls(
            model=settings.model,
            base_url=settings.base_url,
            api_key=key,
            timeout=settings.timeout,
        )

    async def reply(
        self, body: dict[str, Any], wire: bytes | None = None
    ) -> AsyncIterator[Piece | ModelReply]:
        if not body.get("stream"):
            yield reply_from_completion(await self._create(body, wire))
            return
        stream = await self._create(body, wire)
        response = getattr(stream, "response", None)
        content_type = str(getattr(response, "headers", {}).get("content-type") or "")
        if response is not None and "event-stream" not in content_type.lower():
            # Not a stream at all: read it whole and say what it is (or take a completion).
            try:
                data = await response.aread()
            finally:
                await stream.close()
            yield reply_from_whole_body(data, content_type)
            return
        assembler = StreamAssembler()
        try:
            async for chunk in stream:
                for piece in assembler.feed(chunk):
                    yield piece
        except UnicodeDecodeError as exc:
            raise _undecodable_stream(assembler.chunks, exc) from None
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                await close()
        yield assembler.finish()

    async def _create(self, body: dict[str, Any], wire: bytes | None) -> Any:
        """The client's call: with the body's fields, or (`wire`) those bytes as they are,
        through the same client (its base URL, key, headers, timeout and errors)."""
        if wire is None:
            return await self.client.chat.completions.create(**body)
        return await self.client.post(
            "/chat/completions",
            cast_to=ChatCompletion,
            content=wire,
            options={"security": {"bearer_auth": True}},
            stream=bool(body.get("stream")),
            stream_cls=AsyncStream[ChatCompletionChunk],
        )

    async def aclose(self) -> None:
        close = getattr(self.client, "close", None)
        if close is not None:
            await close()


def _undecodable_stream(chunks: int, error: UnicodeDecodeError) -> Exception:
    """Bytes that are not UTF-8 in an event stream: a broken stream after good chunks (a
    retry may help), or no stream at all from the first byte."""
    if chunks:
        return StreamCutOff(
            f"The model's streamed answer broke off into data that is not text "
            f"(after {chunks} good chunks).",
            hint="Try again; if it keeps happening, use --no-stream.",
        )
    return NotACompletion(
        "The server's answer was not a chat completion: it sent binary data, not text.",
        hint="Check that --base-url / OPENAI_BASE_URL points at an OpenAI-compatible "
        f"endpoint (usually ending in /v1). (byte {error.start}: {error.reason})",
    )


class ResponsesBackend(OpenAIBackend):
    """The Responses API through the same client (`client.responses.create`), at OpenAI or
    any server that serves `/v1/responses` (vLLM, LM Studio): `--api responses`.

    What it sends is the loop's Responses body (agent/responses_wire.py); what comes back
    is read by agent/responses_reply.py into the same reply as Chat Completions'. A
    server without the endpoint (404) is said as such, not as an unknown model.
    """

    api: Api = "responses"

    async def reply(
        self, body: dict[str, Any], wire: bytes | None = None
    ) -> AsyncIterator[Piece | ModelReply]:
        if not body.get("stream"):
            yield responses_reply.reply_from_response(await self._create(body, wire))
            return
        stream = await self._create(body, wire)
        response = getattr(stream, "response", None)
        content_type = str(getattr(response, "headers", {}).get("content-type") or "")
        if response is not None and "event-stream" not in content_type.lower():
            try:
                data = await response.aread()
            finally:
                await stream.close()
            yield responses_reply.reply_from_whole_body(data, content_type)
            return
        reader = responses_reply.ResponsesStreamReader()
        try:
            async for event in stream:
                for piece in reader.feed(event):
                    yield piece
        except UnicodeDecodeError as exc:
            raise _undecodable_stream(reader.events, exc) from None
        finally:
            await stream.close()
        yield reader.finish()

    async def _create(self, body: dict[str, Any], wire: bytes | None) -> Any:
        """`client.responses.create` with the body's fields, or (`wire`) those bytes as they
        are, through the same client. A 404 that is not about the model: no such endpoint."""
        try:
            if wire is None:
                return await self.client.responses.create(**body)
            return await self.client.post(
                "/responses",
                cast_to=Response,
                content=wire,
                options={"security": {"bearer_auth": True}},
                stream=bool(body.get("stream")),
                stream_cls=AsyncStream[ResponseStreamEvent],
            )
        except openai.NotFoundError as exc:
            if _about_the_model(exc):
                raise
            detail = _not_found_detail(exc)
            raise responses_reply.NoResponsesEndpoint(self.base_url, detail) from exc


def _about_the_model(exc: openai.NotFoundError) -> bool:
    """A 404 that names the model (OpenAI's `model_not_found`): the model is unknown, the
    endpoint is there."""
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    message = str(error.get("message") if isinstance(error, dict) else "").lower()
    return code == "model_not_found" or "model" in message


def _not_found_detail(exc: openai.NotFoundError) -> str:
    """What the 404 said: an OpenAI-style error's message, a FastAPI server's `detail`
    (vLLM's for a path it does not serve), or the body as it is."""
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        error = error.get("message") or error.get("detail")
    return body_excerpt(str(error or "not found"), 120)


def backend_for(settings: Settings) -> OpenAIBackend:
    """The backend of the settings' wire (`--api`): Chat Completions, or the Responses API.
    Raises BackendConfigError, said plainly."""
    if settings.api == "responses":
        return ResponsesBackend.from_settings(settings)
    return OpenAIBackend.from_settings(settings)
