"""The agent loop: request → read `finish_reason` and `tool_calls` → run tools → answer
each call by `tool_call_id` → request again, until the model answers the customer, a
limit is reached, or a failure cannot be recovered from.

`AgentSession.run_turn` is an async generator of typed events (agent/events.py). The
history it keeps is always a valid Chat Completions history (agent/history.py): after an
error, a cancellation or a limit, every tool call is answered exactly once, so the next
turn — or the same turn sent again — works. A conversation's state (who it acts for,
what it changed, history, usage) is one `Conversation`; the session holds what outlives
conversations: the backend, the toolbox, the options and the customer it starts with.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from airline_agent.agent import history as hist
from airline_agent.agent import texts
from airline_agent.agent.conversation import Conversation
from airline_agent.agent.events import (
    AgentEvent,
    AssistantMessage,
    GroundingWarning,
    LimitReached,
    ToolCall,
    ToolCallsRecovered,
    TurnEnd,
    TurnFinished,
    TurnStarted,
    Usage,
    UsageReported,
)
from airline_agent.agent.grounding import ground_reply
from airline_agent.agent.options import ApprovalPolicy, LoopOptions
from airline_agent.agent.prefix import PrefixTracker, token_counter
from airline_agent.agent.prompt import build_system_prompt
from airline_agent.agent.requests import Answered, request_body, send_request
from airline_agent.agent.streaming import ModelReply
from airline_agent.agent.text_tool_calls import recovered_calls
from airline_agent.agent.tool_round import (
    answer_calls,
    answer_without_running,
    ask_approval,
    own_call_ids,
    plan_calls,
    plans_over_limit,
)
from airline_agent.agent.usage import add_cost

if TYPE_CHECKING:
    from airline_agent.agent.backends import ChatBackend
    from airline_agent.tools.toolbox import Toolbox

__all__ = ["AgentSession", "ApprovalPolicy", "LoopOptions"]


@dataclass
class _Turn:
    """One turn's running totals, and why it ended."""

    number: int
    start: int  # the history's length before the customer's message
    reason: TurnEnd = "cancelled"
    usage: Usage = field(default_factory=Usage)
    cost: float | None = None
    requests: int = 0
    tool_calls_run: int = 0
    over_limit: bool = False  # a reply of this turn already went past the tool-call limit


class AgentSession:
    def __init__(
        self,
        backend: ChatBackend,
        toolbox: Toolbox,
        options: LoopOptions | None = None,
        *,
        system_prompt: str | None = None,
        customer: str | None = None,
    ) -> None:
        self.backend = backend
        self.toolbox = toolbox
        self.options = options or LoopOptions()
        self.customer = customer  # whom each new conversation acts for from its start
        self._custom_prompt = system_prompt
        self._tools = toolbox.schemas()
        self._tool_names = frozenset(toolbox.names())
        # Across conversations too: "unchanged" compares with the request sent before.
        self.prefix_tracker = PrefixTracker()
        token_counter()  # load the tokenizer now (the TUI builds sessions off its loop)
        self.new_conversation()

    # -- conversation state -------------------------------------------------------------

    @property
    def model(self) -> str:
        return self.options.model or self.backend.model

    def new_conversation(self, *, customer: str | None = ...) -> Conversation:  # type: ignore[assignment]
        """A new conversation (nothing of the last survives); `customer` changes whom
        the session's conversations act for from their start (None: not identified)."""
        if customer is not ...:
            self.customer = customer
        prompt = self._custom_prompt or build_system_prompt(
            self.toolbox.clock,
            self.customer,
            one_call_at_a_time=self.options.one_call_at_a_time,
            style=self.options.prompt,
        )
        self.conversation = Conversation.start(prompt, self.customer)
        return self.conversation

    @property
    def history(self) -> list[dict[str, Any]]:
        return self.conversation.history

    @property
    def system_prompt(self) -> str:
        return self.conversation.system_prompt

    @property
    def usage(self) -> Usage:
        return self.conversation.usage

    @property
    def usage_complete(self) -> bool:
        return self.conversation.usage_complete

    @property
    def cost(self) -> float | None:
        return self.conversation.cost

    def request_body(self) -> dict[str, Any]:
        """The exact Chat Completions body of the next request."""
        return request_body(self.model, self.conversation.history, self._tools, self.options)

    # -- the turn -----------------------------------------------------------------------

    async def run_turn(self, user_text: str) -> AsyncIterator[AgentEvent]:
        conversation = self.conversation
        conversation.turns += 1
        turn = _Turn(conversation.turns, len(conversation.history))
        conversation.add_customer_message(user_text)
        yield TurnStarted(turn.number, user_text)
        try:
            async for event in self._requests(turn, conversation):
                yield event
        finally:
            _settle(conversation, turn.start)
        yield TurnFinished(turn.number, turn.reason, turn.usage, turn.cost)

    async def _requests(self, turn: _Turn, conversation: Conversation) -> AsyncIterator[AgentEvent]:
        """Request after request until the model answers in text or something stops it."""
        while True:
            stop = self._limit_before_request(turn, conversation)
            if stop is not None:
                yield stop
                return
            turn.requests += 1
            answered: Answered | None = None
            async for event in send_request(self, conversation):
                if isinstance(event, Answered):
                    answered = event
                    continue
                if isinstance(event, UsageReported):
                    turn.usage = turn.usage + (event.usage or Usage())
                    turn.cost = add_cost(turn.cost, event.cost, first=turn.requests == 1)
                yield event
            if answered is None:
                turn.reason = "error"
                return
            reply = answered.reply
            if self.options.recover_text_tool_calls:
                reply, recovered = self._recover_text_tool_calls(reply, conversation.requests)
                if recovered is not None:
                    yield recovered
            if reply.tool_calls:
                own = own_call_ids(reply.tool_calls, conversation.requests)
                reply = replace(reply, tool_calls=own)
            for event in self._take_reply(reply, answered.latency_ms, conversation):
                yield event
            if not reply.tool_calls:
                turn.reason = "answered"
                return
            async for event in self._answer_tools(turn, reply, conversation):
                yield event
            if turn.reason == "tool_call_limit":
                return

    def _recover_text_tool_calls(
        self, reply: ModelReply, request: int
    ) -> tuple[ModelReply, ToolCallsRecovered | None]:
        """A reply that wrote tool calls as text instead of making them, made into one
        that makes them (its text was the calls); otherwise the reply as it came."""
        if reply.tool_calls or not reply.content:
            return reply, None
        found = recovered_calls(reply.content, self._tool_names, request)
        if not found:
            return reply, None
        calls = tuple(
            ToolCall(call_id, name, json.dumps(arguments, ensure_ascii=False))
            for call_id, name, arguments in found
        )
        recovered = replace(reply, content=None, tool_calls=calls)
        return recovered, ToolCallsRecovered(request, calls, reply.content)

    def _limit_before_request(self, turn: _Turn, conversation: Conversation) -> LimitReached | None:
        o = self.options
        if o.token_budget is not None and conversation.usage.total_tokens >= o.token_budget:
            turn.reason = "budget"
            text = texts.BUDGET_MESSAGE.format(what="token", limit=f"{o.token_budget} tokens")
            return LimitReached("tokens", o.token_budget, text)
        cost = conversation.cost
        if o.cost_budget is not None and cost is not None and cost >= o.cost_budget:
            turn.reason = "budget"
            text = texts.BUDGET_MESSAGE.format(what="cost", limit=f"${o.cost_budget:.2f}")
            return LimitReached("cost", o.cost_budget, text)
        if turn.requests >= o.max_requests:
            turn.reason = "request_limit"
            text = texts.REQUEST_LIMIT_MESSAGE.format(limit=o.max_requests)
            return LimitReached("requests", o.max_requests, text)
        return None

    def _take_reply(
        self, reply: ModelReply, latency_ms: float, conversation: Conversation
    ) -> list[AgentEvent]:
        """Append the reply to the history; its message event, and a grounding warning."""
        conversation.history.append(
            hist.assistant_entry(
                reply.content,
                reply.tool_calls,
                reasoning=reply.reasoning,
                send_reasoning=self.options.send_reasoning,
            )
        )
        events: list[AgentEvent] = [
            AssistantMessage(
                request=conversation.requests,
                content=reply.content,
                tool_calls=reply.tool_calls,
                reasoning=reply.reasoning,
                finish_reason=reply.finish_reason,
                latency_ms=latency_ms,
                raw=reply.raw,
                scripted=reply.scripted,
            )
        ]
        if reply.content and self.options.grounding:
            findings = ground_reply(reply.content, conversation.evidence, self._tool_names)
            if findings:
                events.append(GroundingWarning.of(conversation.requests, reply.content, findings))
        return events

    async def _answer_tools(
        self, turn: _Turn, reply: ModelReply, conversation: Conversation
    ) -> AsyncIterator[AgentEvent]:
        limit = self.options.max_tool_calls
        if turn.over_limit:
            # The seed's rule: the model was told to answer and still asks for tools;
            # answer every call with the limit error and end the turn.
            for plan in plans_over_limit(reply.tool_calls, limit):
                yield answer_without_running(plan, conversation)
            text = texts.LIMIT_MESSAGE_FOR_CUSTOMER.format(limit=limit)
            yield LimitReached("tool_calls", limit, text)
            turn.reason = "tool_call_limit"
            return
        plans, turn.tool_calls_run, newly_over = plan_calls(
            reply.tool_calls, turn.tool_calls_run, self.options, self._is_write
        )
        if newly_over:
            turn.over_limit = True
            text = texts.LIMIT_EXCEEDED_FOR_MODEL.format(limit=limit)
            yield LimitReached("tool_calls", limit, text)
        if self.options.approval == "ask":
            async for event in ask_approval(
                plans, conversation.requests, self.toolbox, conversation, self._is_write
            ):
                yield event
        async for event in answer_calls(plans, self.toolbox, conversation):
            yield event

    def _is_write(self, name: str) -> bool:
        return name in self._tool_names and self.toolbox.is_write(name)


def _settle(conversation: Conversation, start: int) -> None:
    """Leave a valid history whatever ended the turn (error, cancel, limit)."""
    hist.close_open_calls(conversation.history, lambda call: json.dumps(texts.interrupted()))
    if len(conversation.history) == start + 1:
        # Nothing came back from the model: take the customer's message back, so that
        # sending it again gives exactly the same request.
        conversation.take_back_customer_message()
