"""The agent loop: request → read `finish_reason` and `tool_calls` → run tools → answer
each call by `tool_call_id` → request again, until the model answers the customer, a
limit is reached, or a failure cannot be recovered from.

`AgentSession.run_turn` is an async generator of typed events (agent/events.py). The
history it keeps is always a valid Chat Completions history (agent/history.py): after an
error, a cancellation or a limit, every tool call is answered exactly once, so the next
turn — or the same turn sent again — works. A conversation's state (who it acts for,
what it changed, history, usage, the open turn) is one `Conversation`; the session holds
what outlives conversations: the backend, the toolbox, the options and the customer it
starts with.

The loop calls its hooks (agent/hooks.py) when a conversation starts, around each turn,
before each request is sent, before each tool call runs and before a turn ends, and knows
nothing else of what they do: the debugger (agent/debugger.py, attached by the stack with
`use_hooks`) holds there, and may have another body sent or a call run with other
arguments; the loop then goes on as for any request or call (an edited write is asked
about again). Without hooks (`NO_HOOKS`) nothing happens at those points.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import replace
from typing import Any

from airline_agent.agent import history as hist
from airline_agent.agent import texts
from airline_agent.agent.backends import ChatBackend
from airline_agent.agent.conversation import Conversation
from airline_agent.agent.events import (
    AgentEvent,
    ArgumentsEdit,
    AssistantMessage,
    GroundingWarning,
    LimitReached,
    ToolCall,
    ToolCallsRecovered,
    TurnFinished,
    TurnResumed,
    TurnStarted,
)
from airline_agent.agent.grounding import ground_reply
from airline_agent.agent.hooks import NO_HOOKS, LoopHooks, OutgoingCall
from airline_agent.agent.model_reply import HistoryEntry
from airline_agent.agent.options import LoopOptions
from airline_agent.agent.prefix import PrefixTracker
from airline_agent.agent.prompt import build_system_prompt
from airline_agent.agent.requests import Answered, request_body, send_request
from airline_agent.agent.responses_wire import request_body as responses_request_body
from airline_agent.agent.streaming import ModelReply
from airline_agent.agent.text_tool_calls import recovered_calls
from airline_agent.agent.tool_round import (
    answer_calls,
    ask_approval,
    own_call_ids,
    plan_calls,
    plans_over_limit,
)
from airline_agent.agent.turn import Plan, TurnProgress
from airline_agent.agent.usage import Spend
from airline_agent.agent.wire import backend_api
from airline_agent.tools.toolbox import Toolbox

__all__ = ["AgentSession", "LoopOptions", "NothingToResume"]


class NothingToResume(RuntimeError):
    """`resume_turn` on a conversation whose last turn was not cut by a fork."""


class AgentSession:
    def __init__(
        self,
        backend: ChatBackend,
        toolbox: Toolbox,
        options: LoopOptions | None = None,
        *,
        system_prompt: str | None = None,
        tools: list[dict[str, Any]] | None = None,
        greeting: str | None = None,
        customer: str | None = None,
    ) -> None:
        """`system_prompt`, `tools` and `greeting`, when given, are sent as they are
        instead of ours (τ²'s runner's, for `eval --like tau2`): the system message, the
        tool schemas of every request, and what the agent says first in a conversation."""
        self.backend = backend
        self.toolbox = toolbox
        self.options = options or LoopOptions()
        self.customer = customer  # whom each new conversation acts for from its start
        self._custom_prompt = system_prompt
        self._greeting = greeting
        self._tools = toolbox.schemas() if tools is None else tools
        self._tool_names = frozenset(toolbox.names())
        # Across conversations too: "unchanged" compares with the request sent before.
        self.prefix_tracker = PrefixTracker()
        self.hooks: LoopHooks = NO_HOOKS  # the debugger's, attached by the stack (`use_hooks`)
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
        self.conversation = Conversation.start(prompt, self.customer, greeting=self._greeting)
        self.hooks.conversation_started(self.conversation)
        return self.conversation

    def use_hooks(self, hooks: LoopHooks) -> None:
        """Call `hooks` at the loop's points from now on (agent/hooks.py); a new
        conversation begins, so that they see it from its start."""
        self.hooks = hooks
        self.new_conversation()

    @property
    def history(self) -> list[HistoryEntry]:
        return self.conversation.history

    @property
    def system_prompt(self) -> str:
        return self.conversation.system_prompt

    @property
    def spend(self) -> Spend:
        """What the conversation's requests used and cost (`Conversation.spend`)."""
        return self.conversation.spend

    def request_body(self) -> dict[str, Any]:
        """The exact body of the next request, on the backend's wire (agent/wire.py)."""
        build = responses_request_body if backend_api(self.backend) == "responses" else request_body
        return build(self.model, self.conversation.history, self._tools, self.options)

    # -- the turn -----------------------------------------------------------------------

    def run_turn(self, user_text: str) -> AsyncGenerator[AgentEvent, None]:
        """The turn of the customer's message `user_text`: its events, to its end. A turn
        a fork cut in the middle is closed first (its open calls answered "interrupted",
        a `TurnFinished(cancelled)` said for it)."""
        return self.hooks.watch_turn(self._turn(user_text))

    def resume_turn(self) -> AsyncGenerator[AgentEvent, None]:
        """The turn a fork cut in the middle, going on where it was cut: its calls not yet
        answered are answered (as they were planned, approvals included), then requests
        go on. Raises NothingToResume when the last turn was not cut (`can_resume`)."""
        if self.conversation.cut_turn is None:
            raise NothingToResume(
                "nothing to resume: the conversation is not in the middle of a turn"
            )
        return self.hooks.watch_turn(self._resumed())

    @property
    def can_resume(self) -> bool:
        return self.conversation.cut_turn is not None

    async def _turn(self, user_text: str) -> AsyncGenerator[AgentEvent, None]:
        conversation = self.conversation
        cut = conversation.cut_turn
        if cut is not None:
            conversation.cut_turn = None
            _close_open_calls(conversation)
            yield TurnFinished(cut.number, "cancelled", cut.spend.usage, cut.spend.cost)
        conversation.turns += 1
        turn = TurnProgress(conversation.turns, len(conversation.history))
        conversation.open_turn = turn
        conversation.add_customer_message(user_text)
        step = conversation.take_step("customer")
        yield TurnStarted(turn.number, user_text, step=step)
        try:
            async for event in self._requests(turn, conversation):
                yield event
            async for event in self.hooks.before_turn_ends(conversation):
                yield event
        finally:
            _settle(conversation, turn)
        yield TurnFinished(turn.number, turn.reason, turn.spend.usage, turn.spend.cost)

    async def _resumed(self) -> AsyncGenerator[AgentEvent, None]:
        conversation = self.conversation
        turn = conversation.cut_turn
        assert turn is not None  # resume_turn checked
        conversation.cut_turn = None
        conversation.open_turn = turn
        turn.reason = "cancelled"
        yield TurnResumed(turn.number, conversation.steps)
        try:
            async for event in self._answer_cut_calls(turn, conversation):
                yield event
            if turn.reason != "tool_call_limit":
                async for event in self._requests(turn, conversation):
                    yield event
            async for event in self.hooks.before_turn_ends(conversation):
                yield event
        finally:
            _settle(conversation, turn)
        yield TurnFinished(turn.number, turn.reason, turn.spend.usage, turn.spend.cost)

    async def _answer_cut_calls(
        self, turn: TurnProgress, conversation: Conversation
    ) -> AsyncIterator[AgentEvent]:
        """The calls of the cut turn's last reply that were not answered when it was cut."""
        if turn.pending is not None:
            async for event in answer_calls(
                turn.pending, self.toolbox, conversation, self._before_call
            ):
                yield event
            if turn.closing_at_limit:
                yield self._limit_ends_turn(turn)
        elif turn.calls and hist.open_calls(conversation.history):
            reply = ModelReply(None, turn.calls, None, "tool_calls", None)
            parsed = hist.parsed_arguments(turn.calls)
            async for event in self._answer_tools(turn, reply, parsed, conversation):
                yield event

    async def _requests(
        self, turn: TurnProgress, conversation: Conversation
    ) -> AsyncIterator[AgentEvent]:
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
                if own is not reply.tool_calls:
                    reply = replace(reply, tool_calls=own)
            turn.calls, turn.pending, turn.closing_at_limit = reply.tool_calls, None, False
            parsed = hist.parsed_arguments(reply.tool_calls)
            for event in self._take_reply(reply, parsed, answered.latency_ms, conversation):
                yield event
            if not reply.tool_calls:
                turn.reason = "answered"
                return
            async for event in self._answer_tools(turn, reply, parsed, conversation):
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

    def _limit_before_request(
        self, turn: TurnProgress, conversation: Conversation
    ) -> LimitReached | None:
        o = self.options
        if o.token_budget is not None and conversation.spend.usage.total_tokens >= o.token_budget:
            turn.reason = "budget"
            text = texts.BUDGET_MESSAGE.format(what="token", limit=f"{o.token_budget} tokens")
            return LimitReached("tokens", o.token_budget, text)
        cost = conversation.spend.cost
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
        self,
        reply: ModelReply,
        parsed: tuple[hist.Arguments, ...],
        latency_ms: float,
        conversation: Conversation,
    ) -> list[AgentEvent]:
        """Append the reply to the history; its message event, and a grounding warning."""
        conversation.history.append(
            hist.assistant_entry(
                reply.content,
                reply.tool_calls,
                arguments=parsed,
                reasoning=reply.reasoning,
                send_reasoning=self.options.send_reasoning,
                reasoning_items=reply.reasoning_items,  # the Responses wire's: they go back
            )
        )
        step = conversation.take_step("response", request=conversation.requests)
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
                step=step,
            )
        ]
        if reply.content and self.options.grounding:
            findings = ground_reply(reply.content, conversation.evidence, self._tool_names)
            if findings:
                events.append(GroundingWarning.of(conversation.requests, reply.content, findings))
        return events

    async def _answer_tools(
        self,
        turn: TurnProgress,
        reply: ModelReply,
        parsed: tuple[hist.Arguments, ...],
        conversation: Conversation,
    ) -> AsyncIterator[AgentEvent]:
        limit = self.options.max_tool_calls
        before = self._before_call
        if turn.over_limit:
            # The seed's rule: the model was told to answer and still asks for tools;
            # answer every call with the limit error and end the turn.
            turn.closing_at_limit = True
            plans = plans_over_limit(reply.tool_calls, parsed, limit)
            async for event in answer_calls(plans, self.toolbox, conversation, before):
                yield event
            yield self._limit_ends_turn(turn)
            return
        plans, turn.tool_calls_run, newly_over = plan_calls(
            reply.tool_calls, parsed, turn.tool_calls_run, self.options, self._is_write
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
        async for event in answer_calls(plans, self.toolbox, conversation, before):
            yield event

    def _limit_ends_turn(self, turn: TurnProgress) -> LimitReached:
        limit = self.options.max_tool_calls
        turn.reason = "tool_call_limit"
        text = texts.LIMIT_MESSAGE_FOR_CUSTOMER.format(limit=limit)
        return LimitReached("tool_calls", limit, text)

    async def _before_call(self, plan: Plan) -> AsyncIterator[AgentEvent]:
        """The hooks' part before a planned call; if they replaced its arguments, the
        call runs with those (an edited write is asked about again when approvals are
        asked, and refused when writes are switched off)."""
        conversation = self.conversation
        write = self._is_write(plan.call.name)
        outgoing = OutgoingCall(conversation, plan, write)
        async for event in self.hooks.before_call(outgoing):
            yield event
        if outgoing.arguments is None:
            return
        edit = ArgumentsEdit(
            conversation.requests,
            plan.call.call_id,
            plan.call.name,
            plan.call.arguments,
            outgoing.arguments,
        )
        conversation.adopt_arguments_edit(edit)
        plan.edit, plan.arguments = edit, hist.parse_arguments(outgoing.arguments)
        plan.will_run, plan.error = True, None
        if write and self.options.approval == "deny":
            plan.will_run, plan.error = False, texts.writes_switched_off()
        elif write and self.options.approval == "ask":
            async for event in ask_approval(
                [plan], conversation.requests, self.toolbox, conversation, self._is_write
            ):
                yield event

    def _is_write(self, name: str) -> bool:
        return name in self._tool_names and self.toolbox.is_write(name)


def _close_open_calls(conversation: Conversation) -> None:
    hist.close_open_calls(conversation.history, lambda call: json.dumps(texts.interrupted()))


def _settle(conversation: Conversation, turn: TurnProgress) -> None:
    """Leave a valid history whatever ended the turn (error, cancel, limit)."""
    _close_open_calls(conversation)
    conversation.open_turn = None
    if len(conversation.history) == turn.start + 1 and not turn.history_edited:
        # Nothing came back from the model: take the customer's message back, so that
        # sending it again gives exactly the same request.
        conversation.take_back_customer_message()
