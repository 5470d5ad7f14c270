"""The loop's hooks: the few points where something watching the loop closely may step in,
and all the loop knows of it. The debugger (agent/debugger.py) is the one such watcher;
without it the loop calls `NO_HOOKS`, which does nothing.

The loop calls, in this order:

- `conversation_started(conversation)` when a new conversation begins (before any step);
- `watch_turn(events)` around each turn (`run_turn`, `resume_turn`): every event of the
  turn passes through what it returns;
- `before_request(request)` with each request assembled, before anything is sent;
- `before_call(call)` before each planned tool call runs (or is answered without running);
- `before_turn_ends(conversation)` when the turn is over, before its `TurnFinished`.

The `before_…` hooks are async generators: the events they yield go to the consumer as
the loop's own (a hold, which the consumer answers), and the loop goes on when they are
done. A hook may change what goes on: `OutgoingRequest.replace_body` sends another body,
`OutgoingCall.replace_arguments` runs the call with other arguments. What follows from
that — the history the edited body carries, an edited write asked about again — is the
loop's business, decided as for any request or call.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from airline_agent.agent.conversation import Conversation
from airline_agent.agent.events import AgentEvent
from airline_agent.agent.turn import Plan
from airline_agent.tools.untrusted import JsonValue


@dataclass
class OutgoingRequest:
    """A request assembled and not sent yet: `body` is exactly what would be sent."""

    conversation: Conversation
    body: dict[str, JsonValue]
    edited: dict[str, JsonValue] | None = None  # the body to send instead, if a hook said so
    wire: bytes | None = None  # that body's exact bytes on the wire

    def replace_body(self, edited: dict[str, JsonValue], wire: bytes) -> None:
        """Send `edited` instead (`wire`, byte for byte)."""
        self.edited, self.wire = edited, wire


@dataclass
class OutgoingCall:
    """A planned tool call, not run yet (`plan.will_run` False: it will be answered with
    `plan.error` instead)."""

    conversation: Conversation
    plan: Plan
    write: bool  # a write tool
    arguments: str | None = None  # the arguments' JSON text to run it with, if a hook said so

    def replace_arguments(self, arguments: str) -> None:
        self.arguments = arguments


class LoopHooks(Protocol):
    """What the loop calls at the points where a watcher may step in (module docstring)."""

    def conversation_started(self, conversation: Conversation) -> None: ...

    def watch_turn(
        self, events: AsyncGenerator[AgentEvent, None]
    ) -> AsyncGenerator[AgentEvent, None]: ...

    def before_request(self, request: OutgoingRequest) -> AsyncIterator[AgentEvent]: ...

    def before_call(self, call: OutgoingCall) -> AsyncIterator[AgentEvent]: ...

    def before_turn_ends(self, conversation: Conversation) -> AsyncIterator[AgentEvent]: ...


class NoHooks:
    """Hooks that do nothing: the loop as it is without a debugger."""

    def conversation_started(self, conversation: Conversation) -> None:
        return

    def watch_turn(
        self, events: AsyncGenerator[AgentEvent, None]
    ) -> AsyncGenerator[AgentEvent, None]:
        return events

    async def before_request(self, request: OutgoingRequest) -> AsyncIterator[AgentEvent]:
        return
        yield  # an async generator that yields nothing

    async def before_call(self, call: OutgoingCall) -> AsyncIterator[AgentEvent]:
        return
        yield

    async def before_turn_ends(self, conversation: Conversation) -> AsyncIterator[AgentEvent]:
        return
        yield


NO_HOOKS = NoHooks()
