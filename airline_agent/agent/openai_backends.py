"""The backends that talk to an OpenAI-compatible server, through the `openai` package:
Chat Completions (`OpenAIBackend`) and the Responses API (`ResponsesBackend`, `--api
responses`). What a backend is, and the scripted one, are `backends.py`'s.

The client's own retries are off: the loop retries visibly (RetryScheduled events).
Failures are raised (openai exceptions or `BackendError`s) and classified by the loop with
`agent.errors.classify`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Self

import openai
from openai import AsyncStream
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent

from airline_agent.agent import responses_reply
from airline_agent.agent.backends import BackendConfigError
from airline_agent.agent.errors import NotACompletion, StreamCutOff, body_excerpt
from airline_agent.agent.streaming import (
    ModelReply,
    Piece,
    StreamAssembler,
    reply_from_completion,
    reply_from_whole_body,
)
from airline_agent.choices import Api

if TYPE_CHECKING:
    from airline_agent.config import Settings

# Local servers (Ollama, vLLM, llama.cpp, LM Studio) accept any key; the client needs one.
PLACEHOLDER_KEY = "not-needed-for-local-servers"


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
        whole = await _read_if_not_a_stream(stream)
        if whole is not None:  # say what it is (or take a completion)
            yield reply_from_whole_body(*whole)
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
        whole = await _read_if_not_a_stream(stream)
        if whole is not None:
            yield responses_reply.reply_from_whole_body(*whole)
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


async def _read_if_not_a_stream(stream: Any) -> tuple[bytes, str] | None:
    """A streamed request the server answered with no event stream at all: its body, read
    whole, and its content type (None: it is a stream, to be read event by event)."""
    response = getattr(stream, "response", None)
    content_type = str(getattr(response, "headers", {}).get("content-type") or "")
    if response is None or "event-stream" in content_type.lower():
        return None
    try:
        data = await response.aread()
    finally:
        await stream.close()
    return data, content_type
