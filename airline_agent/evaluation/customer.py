"""The simulated customer: a second model playing a task's `user_scenario`.

It is called through the same Chat Completions client as the agent, without tools, one
message at a time. Its system prompt (our own words) holds the task's instructions; the
conversation is shown to it from its side (the agent's messages as `user`, its own as
`assistant`). It ends the call by writing `###STOP###` (τ²'s signal; `###TRANSFER###` and
`###OUT-OF-SCOPE###` end it too), so any server that sends the signal — a scripted
customer included — ends the trial.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from airline_agent.agent.errors import classify
from airline_agent.agent.events import Usage
from airline_agent.agent.streaming import ModelReply
from airline_agent.agent.usage import Spend, cost_of

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

    from airline_agent.agent.backends import ChatBackend
    from airline_agent.evaluation.tasks import CustomerInstructions

StopSignal = Literal["stop", "transfer", "out_of_scope"]
STOP_SIGNALS: dict[str, StopSignal] = {
    "###STOP###": "stop",
    "###TRANSFER###": "transfer",
    "###OUT-OF-SCOPE###": "out_of_scope",
}
# What the customer model is shown before its first message: a chat needs a user turn.
CALL_CONNECTED = "(The call is connected. The airline's agent is listening: say why you call.)"
RETRIES = 2  # a request that failed in a way worth retrying (429, 5xx, timeout, cut stream)
RETRY_DELAY_S = 0.5  # doubled at each retry

SYSTEM_PROMPT = """\
You are a customer of an airline, on a call with one of its customer-service agents.
Play the customer described below, and nobody else.

How to play it:
- Write only what the customer says: one message at a time, short, in plain words, the
  way a person talks on a call. Never write the agent's part, never describe actions.
- Say why you call at the start. Give a piece of what you know (your user id, a
  reservation number, a name, a date) only when the agent asks for it, or when the
  instructions tell you to.
- State only what the instructions below give you. Never make up an id, a number, an
  amount, a date, an email address or a name: what they do not give you, you do not know;
  say so if you are asked for it.
- Follow the instructions, in your own words rather than theirs.
- When what you called for is done, or cannot be done and you accept that, end the call:
  write ###STOP### alone as your message. If the agent transfers you to a human agent,
  write ###TRANSFER###. If the instructions do not tell you how to go on, write
  ###OUT-OF-SCOPE###.

The customer you play:
{scenario}
"""


class CustomerUnavailable(Exception):
    """The customer model's server failed (after retries); one sentence says how."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class CustomerMessage:
    text: str  # as the customer model wrote it (the signal included)
    stop: StopSignal | None
    usage: Usage | None
    cost: float | None
    latency_ms: float

    @property
    def said(self) -> str:
        """What the customer said, without τ²'s signals."""
        spoken = self.text
        for signal in STOP_SIGNALS:
            spoken = spoken.replace(signal, "")
        return spoken.strip()


def scenario_text(instructions: CustomerInstructions) -> str:
    parts = [
        ("Who you are", instructions.persona),
        ("Why you call", instructions.reason_for_call),
        ("What you know", instructions.known_info),
        ("What you do not know", instructions.unknown_info),
        ("How to go about it", instructions.task_instructions),
    ]
    return "\n\n".join(f"## {title}\n{text}" for title, text in parts if text)


def stop_signal(text: str) -> StopSignal | None:
    for signal, kind in STOP_SIGNALS.items():
        if signal in text:
            return kind
    return None


class CustomerSimulator:
    """One trial's customer: its own history, from its side of the call."""

    def __init__(
        self,
        backend: ChatBackend,
        instructions: CustomerInstructions,
        *,
        model: str | None = None,
        temperature: float | None = None,
        seed: int | None = None,
        system_prompt: str | None = None,
    ) -> None:
        """`system_prompt`: another's for this task (τ²'s, `eval --like tau2`) instead of
        ours; `temperature` and `seed` are sent when given."""
        self.backend = backend
        self.model = model or backend.model
        self.temperature = temperature
        self.seed = seed
        self.system_prompt = system_prompt or SYSTEM_PROMPT.format(
            scenario=scenario_text(instructions)
        )
        self.history: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": self.system_prompt}
        ]
        self.spend = Spend()

    async def speak(self, agent_said: str | None) -> CustomerMessage:
        """The customer's next message, after the agent said `agent_said` (None: the
        call has just been connected, and the agent said nothing: told so in our words).
        Raises CustomerUnavailable."""
        self.history.append({"role": "user", "content": agent_said or CALL_CONNECTED})
        started = time.perf_counter()
        reply = await self._request()
        latency_ms = (time.perf_counter() - started) * 1000
        text = (reply.content or "").strip()
        self.history.append({"role": "assistant", "content": text})
        cost = cost_of(self.model, reply.usage)
        self.spend = self.spend.plus(reply.usage, cost)
        return CustomerMessage(text, stop_signal(text), reply.usage, cost, latency_ms)

    async def _request(self) -> ModelReply:
        # Not streamed: the whole reply is read (a body without `stream`, as τ²'s runner's).
        body: dict[str, object] = {"model": self.model, "messages": list(self.history)}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.seed is not None:
            body["seed"] = self.seed
        delay = RETRY_DELAY_S
        for attempt in range(RETRIES + 1):
            try:
                reply: ModelReply | None = None
                async for piece in self.backend.reply(body):
                    if isinstance(piece, ModelReply):
                        reply = piece
                if reply is None:
                    raise CustomerUnavailable("the customer model sent no reply", "bad_response")
                return reply
            except CustomerUnavailable:
                raise
            except Exception as exc:  # classified: one plain sentence, never a traceback
                failure = classify(exc, model=self.model, base_url=self.backend.base_url)
                if not failure.retryable or attempt == RETRIES:
                    raise CustomerUnavailable(
                        f"the simulated customer's model failed: {failure.message}", failure.kind
                    ) from None
                await asyncio.sleep(failure.retry_after or delay)
                delay *= 2
        raise AssertionError("unreachable")
