"""Where model replies come from: an OpenAI-compatible server, or a prepared script.

A backend takes the exact request body the loop built and yields the reply's pieces as
they arrive (text, reasoning, tool-call deltas; only when streaming), then one
`ModelReply`. A body you edited at the debugger comes with `wire`, the bytes to send as
they are (the body is then their parsed value). Failures are raised (openai exceptions or
`BackendError`s) and classified by the loop with `agent.errors.classify`.

A backend speaks one wire (`api`): Chat Completions (`OpenAIBackend`) or the Responses
API (`ResponsesBackend`, `--api responses`); the scripted backend speaks either, its
answers generated in that wire's shape. The loop builds the body for the backend's wire.

Here: what every backend is (`ChatBackend`) and the scripted one. The two that talk to a
server are `openai_backends.py`'s, over the `openai` package, which this module and so the
loop do without: `call`, `seed`, `replay` and the MCP server never load it.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from airline_agent.agent import responses_reply
from airline_agent.agent.errors import RecordedFailure, ScriptExhausted
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
    reply_from_script,
)
from airline_agent.choices import Api


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
