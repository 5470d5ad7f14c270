"""The agent loop: request → read `finish_reason` and `tool_calls` → run tools → answer
each call by `tool_call_id` → request again, until the model answers the customer, a
limit is reached, or a failure cannot be recovered from.

`AgentSession.run_turn` is an async generator of typed events (agent/events.py). The
history it keeps is always a valid Chat Completions history (agent/history.py): after an
error, a cancellation or a limit, every tool call is answered exactly once, so the next
turn — or the same turn sent again — works.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from airline_agent.agent import history as hist
from airline_agent.agent.errors import NotACompletion, backoff_delay, classify
from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessage,
    ErrorOccurred,
    GroundingWarning,
    LimitReached,
    PendingWrite,
    ReasoningDelta,
    RequestSent,
    RetryScheduled,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolFinished,
    ToolStarted,
    TurnEnd,
    TurnFinished,
    TurnStarted,
    Usage,
    UsageReported,
)
from airline_agent.agent.grounding import Evidence, unsupported_values
from airline_agent.agent.prompt import build_system_prompt
from airline_agent.agent.streaming import ModelReply, ReasoningPiece, TextPiece
from airline_agent.agent.usage import add_cost, context_window, cost_of
from airline_agent.tools.outcome import error_result

if TYPE_CHECKING:
    from airline_agent.agent.backends import ChatBackend
    from airline_agent.config import Settings
    from airline_agent.tools.toolbox import Toolbox

Approval = Literal["ask", "auto", "deny"]

LIMIT_EXCEEDED_FOR_MODEL = (
    "Tool call limit for this turn reached ({limit}); this call was not run. "
    "Answer the customer now from the information you already have."
)
LIMIT_MESSAGE_FOR_CUSTOMER = (
    "I'm sorry, I could not finish this within the limit of {limit} tool calls for one "
    "turn. Please tell me how you would like to continue, or ask again step by step."
)
REQUEST_LIMIT_MESSAGE = (
    "I'm sorry, I could not finish this within the limit of {limit} model requests for one "
    "turn. Please tell me how you would like to continue."
)
BUDGET_MESSAGE = (
    "This conversation has used its {what} budget ({limit}); start a new conversation "
    "or raise the budget to continue."
)


@dataclass
class LoopOptions:
    model: str | None = None  # None: the backend's model
    tool_choice: str | dict[str, Any] = "auto"  # auto | none | required | a tool's name
    parallel_tool_calls: bool | None = None  # None: not sent (the server's default)
    temperature: float | None = None
    max_tokens: int | None = None
    stop: str | list[str] | None = None
    stream: bool = True
    max_tool_calls: int = 8  # per turn
    max_requests: int = 16  # per turn
    token_budget: int | None = None  # per conversation, prompt + completion tokens
    cost_budget: float | None = None  # per conversation, US dollars
    approval: Approval = "auto"
    send_reasoning: bool = False  # send reasoning back in later requests
    retries: int = 3  # per request, for retryable failures (429, 5xx, timeout, cut stream)
    retry_base_delay: float = 0.5  # seconds; doubled each attempt unless the server says
    retry_max_delay: float = 30.0
    grounding: bool = True
    one_call_at_a_time: bool = True  # policy C4 in the system prompt
    extra_body: dict[str, Any] = field(default_factory=dict)  # sent as is (server-specific)

    @classmethod
    def from_settings(cls, settings: Settings) -> LoopOptions:
        return cls(
            model=settings.model,
            stream=settings.stream,
            max_tool_calls=settings.max_tool_calls,
            max_requests=settings.max_requests,
            approval=settings.approve,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            tool_choice=settings.tool_choice,
            parallel_tool_calls=settings.parallel_tool_calls,
            token_budget=settings.token_budget,
            cost_budget=settings.cost_budget,
        )


@dataclass
class _Plan:
    """What will happen to one tool call of a reply."""

    call: ToolCall
    arguments: dict[str, Any] | None
    run: bool = True
    error: dict[str, Any] | None = None  # a loop-made error result, when not run


class AgentSession:
    def __init__(
        self,
        backend: ChatBackend,
        toolbox: Toolbox,
        options: LoopOptions | None = None,
        *,
        system_prompt: str | None = None,
    ) -> None:
        self.backend = backend
        self.toolbox = toolbox
        self.options = options or LoopOptions()
        self._initial_user = toolbox.acting_user
        self._custom_prompt = system_prompt
        self._tools = toolbox.schemas()
        self._tool_names = frozenset(toolbox.names())
        self.new_conversation()

    # -- conversation state -------------------------------------------------------------

    @property
    def model(self) -> str:
        return self.options.model or self.backend.model

    def new_conversation(self) -> None:
        self.toolbox.acting_user = self._initial_user
        self.system_prompt = self._custom_prompt or build_system_prompt(
            self.toolbox.clock,
            self._initial_user,
            one_call_at_a_time=self.options.one_call_at_a_time,
        )
        self.history: list[dict[str, Any]] = [{"role": "system", "content": self.system_prompt}]
        self.usage = Usage()  # summed over requests that reported usage
        self.usage_complete = True  # False once a server reported no usage
        self.cost: float | None = 0.0  # None once any request's cost is unknown
        self.turns = 0
        self.requests = 0
        # What the grounding check accepts as given: the rules, customer, tool results.
        self._evidence = Evidence([self.system_prompt])

    # -- the request --------------------------------------------------------------------

    def request_body(self) -> dict[str, Any]:
        """The exact Chat Completions body of the next request."""
        o = self.options
        body: dict[str, Any] = {"model": self.model, "messages": list(self.history)}
        if self._tools:
            body["tools"] = self._tools
            choice = o.tool_choice
            if isinstance(choice, str) and choice not in ("auto", "none", "required"):
                choice = {"type": "function", "function": {"name": choice}}
            body["tool_choice"] = choice
            if o.parallel_tool_calls is not None:
                body["parallel_tool_calls"] = o.parallel_tool_calls
        if o.temperature is not None:
            body["temperature"] = o.temperature
        if o.max_tokens is not None:
            body["max_tokens"] = o.max_tokens
        if o.stop is not None:
            body["stop"] = o.stop
        if o.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        if o.extra_body:
            body["extra_body"] = o.extra_body
        return body

    # -- the turn -----------------------------------------------------------------------

    async def run_turn(self, user_text: str) -> AsyncIterator[AgentEvent]:
        self.turns += 1
        turn = self.turns
        start = len(self.history)
        self.history.append({"role": "user", "content": user_text})
        self._evidence.add(user_text)
        turn_usage, turn_cost, turn_requests = Usage(), None, 0
        reason: TurnEnd = "cancelled"
        tool_calls_run = 0
        over_limit = False  # a reply of this turn already went past the tool-call limit
        yield TurnStarted(turn, user_text)
        try:
            while True:
                stop = self._budget_exceeded()
                if stop is not None:
                    yield stop
                    reason = "budget"
                    break
                if turn_requests >= self.options.max_requests:
                    limit = self.options.max_requests
                    yield LimitReached("requests", limit, REQUEST_LIMIT_MESSAGE.format(limit=limit))
                    reason = "request_limit"
                    break
                turn_requests += 1
                reply: ModelReply | None = None
                async for event in self._request():
                    if isinstance(event, ModelReply):
                        reply = event
                    else:
                        yield event
                if reply is None:
                    reason = "error"
                    break
                usage_event = self._reported
                turn_usage = turn_usage + (usage_event.usage or Usage())
                turn_cost = add_cost(turn_cost, usage_event.cost, first=turn_requests == 1)
                yield usage_event
                self.history.append(
                    hist.assistant_entry(
                        reply.content,
                        reply.tool_calls,
                        reasoning=reply.reasoning,
                        send_reasoning=self.options.send_reasoning,
                    )
                )
                yield AssistantMessage(
                    request=self.requests,
                    content=reply.content,
                    tool_calls=reply.tool_calls,
                    reasoning=reply.reasoning,
                    finish_reason=reply.finish_reason,
                    latency_ms=usage_event.latency_ms,
                    raw=reply.raw,
                )
                if reply.content and self.options.grounding:
                    unsupported = unsupported_values(reply.content, self._evidence)
                    if unsupported:
                        yield GroundingWarning(self.requests, unsupported, reply.content)
                if not reply.tool_calls:
                    reason = "answered"
                    break
                if over_limit:
                    # The seed's rule: the model was told to answer and still asks for
                    # tools; answer every call with the limit error and end the turn.
                    for plan in self._plans_over_limit(reply.tool_calls):
                        yield self._answer_without_running(plan)
                    limit = self.options.max_tool_calls
                    yield LimitReached(
                        "tool_calls", limit, LIMIT_MESSAGE_FOR_CUSTOMER.format(limit=limit)
                    )
                    reason = "tool_call_limit"
                    break
                plans, tool_calls_run, newly_over = self._plan(reply.tool_calls, tool_calls_run)
                if newly_over:
                    over_limit = True
                    limit = self.options.max_tool_calls
                    yield LimitReached(
                        "tool_calls", limit, LIMIT_EXCEEDED_FOR_MODEL.format(limit=limit)
                    )
                async for event in self._approve(plans):
                    yield event
                for plan in plans:
                    if plan.run:
                        call = plan.call
                        yield ToolStarted(call.call_id, call.name, plan.arguments, call.arguments)
                        yield self._run_tool(plan)
                    else:
                        yield self._answer_without_running(plan)
        finally:
            self._settle(start)
        yield TurnFinished(turn, reason, turn_usage, turn_cost)

    def _settle(self, start: int) -> None:
        """Leave a valid history whatever ended the turn (error, cancel, limit)."""
        hist.close_open_calls(
            self.history,
            lambda call: json.dumps(
                error_result(
                    "INTERNAL_ERROR",
                    "This call was not run: the turn was interrupted before it.",
                )
            ),
        )
        if len(self.history) == start + 1:
            # Nothing came back from the model: take the customer's message back, so
            # that sending it again gives exactly the same request.
            self.history.pop()
            self._evidence.pop()

    def _budget_exceeded(self) -> LimitReached | None:
        o = self.options
        if o.token_budget is not None and self.usage.total_tokens >= o.token_budget:
            text = BUDGET_MESSAGE.format(what="token", limit=f"{o.token_budget} tokens")
            return LimitReached("tokens", o.token_budget, text)
        if o.cost_budget is not None and self.cost is not None and self.cost >= o.cost_budget:
            text = BUDGET_MESSAGE.format(what="cost", limit=f"${o.cost_budget:.2f}")
            return LimitReached("cost", o.cost_budget, text)
        return None

    async def _request(self) -> AsyncIterator[AgentEvent | ModelReply]:
        """One model request with its retries; yields events, then the reply (or nothing)."""
        body = self.request_body()
        self.requests += 1
        number = self.requests
        params = {k: v for k, v in body.items() if k not in ("model", "messages", "tools")}
        yield RequestSent(
            turn=self.turns,
            request=number,
            model=body["model"],
            messages=body["messages"],
            tools=body.get("tools", []),
            params=params,
        )
        attempt = 0
        reply: ModelReply | None = None
        while True:
            started = time.perf_counter()
            try:
                async for piece in self.backend.reply(body):
                    if isinstance(piece, ModelReply):
                        reply = piece
                    elif isinstance(piece, TextPiece):
                        yield TextDelta(number, piece.text)
                    elif isinstance(piece, ReasoningPiece):
                        yield ReasoningDelta(number, piece.text)
                    else:
                        yield ToolCallDelta(
                            number, piece.index, piece.call_id, piece.name, piece.arguments
                        )
                if reply is None:
                    raise NotACompletion("The backend ended without a reply.")
                break
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # every failure becomes a plain event, never a crash
                failure = classify(exc, model=self.model, base_url=self.backend.base_url)
                attempt += 1
                if failure.retryable and attempt <= self.options.retries:
                    delay = backoff_delay(
                        attempt,
                        failure,
                        base=self.options.retry_base_delay,
                        cap=self.options.retry_max_delay,
                    )
                    yield RetryScheduled(attempt, delay, failure.message)
                    await asyncio.sleep(delay)
                    continue
                yield ErrorOccurred(failure.kind, failure.message, failure.hint, failure.status)
                return
        latency_ms = (time.perf_counter() - started) * 1000
        cost = cost_of(self.model, reply.usage)
        if cost is None and reply.usage is not None and reply.model:
            cost = cost_of(reply.model, reply.usage)
        if reply.usage is None:
            self.usage_complete = False
        else:
            self.usage = self.usage + reply.usage
        self.cost = add_cost(self.cost, cost, first=False)
        self._reported = UsageReported(
            request=number,
            usage=reply.usage,
            cost=cost,
            model=reply.model or self.model,
            latency_ms=latency_ms,
            context_window=context_window(self.model) or context_window(reply.model),
        )
        yield reply

    # -- tool calls ---------------------------------------------------------------------

    def _plan(self, calls: tuple[ToolCall, ...], already_run: int) -> tuple[list[_Plan], int, bool]:
        """Decide each call: run it, or answer it with an error (limit, bad arguments)."""
        limit = self.options.max_tool_calls
        plans: list[_Plan] = []
        over = False
        for call in calls:
            arguments = hist.parse_arguments(call.arguments)
            if already_run >= limit:
                over = True
                plans.extend(self._plans_over_limit((call,)))
                continue
            already_run += 1
            if arguments is None:
                plans.append(_Plan(call, None, run=False, error=_invalid_arguments(call)))
            elif self.options.approval == "deny" and self._is_write(call.name):
                plans.append(
                    _Plan(
                        call,
                        arguments,
                        run=False,
                        error=error_result(
                            "PERMISSION_DENIED",
                            "Changes are switched off in this session (approval policy "
                            "'deny'); nothing was written. Tell the customer this change "
                            "cannot be made here.",
                        ),
                    )
                )
            else:
                plans.append(_Plan(call, arguments))
        return plans, already_run, over

    def _plans_over_limit(self, calls: tuple[ToolCall, ...]) -> list[_Plan]:
        limit = self.options.max_tool_calls
        return [
            _Plan(
                call,
                hist.parse_arguments(call.arguments),
                run=False,
                error=error_result(
                    "TOOL_CALL_LIMIT_EXCEEDED", LIMIT_EXCEEDED_FOR_MODEL.format(limit=limit)
                ),
            )
            for call in calls
        ]

    def _is_write(self, name: str) -> bool:
        return name in self._tool_names and self.toolbox.is_write(name)

    async def _approve(self, plans: list[_Plan]) -> AsyncIterator[AgentEvent]:
        """With approval 'ask': all write calls of one reply in one ApprovalRequested."""
        if self.options.approval != "ask":
            return
        writes = [p for p in plans if p.run and self._is_write(p.call.name)]
        if not writes:
            return
        pending = tuple(
            PendingWrite(
                call_id=p.call.call_id,
                name=p.call.name,
                arguments=p.arguments or {},
                preview=self.toolbox.preview(p.call.name, p.arguments or {}),
            )
            for p in writes
        )
        decision = asyncio.get_running_loop().create_future()
        event = ApprovalRequested(self.requests, pending, decision)
        yield event
        answer = await decision
        for plan in writes:
            if not answer.approved.get(plan.call.call_id, False):
                plan.run = False
                plan.error = error_result(
                    "PERMISSION_DENIED",
                    "The customer declined this change; nothing was written. Ask the "
                    "customer what they would like to do instead.",
                )

    def _run_tool(self, plan: _Plan) -> ToolFinished:
        call = plan.call
        outcome = self.toolbox.call(call.name, plan.arguments)
        content = outcome.content()
        self.history.append(hist.tool_entry(call.call_id, content))
        self._evidence.add(content)
        return ToolFinished(
            call_id=call.call_id,
            name=call.name,
            arguments=plan.arguments,
            result=outcome.result,
            error=outcome.error,
            elapsed_ms=outcome.elapsed_ms,
            changes=tuple(outcome.changes),
        )

    def _answer_without_running(self, plan: _Plan) -> ToolFinished:
        result = plan.error or error_result("INTERNAL_ERROR", "The call was not run.")
        self.history.append(
            hist.tool_entry(plan.call.call_id, json.dumps(result, ensure_ascii=False))
        )
        return ToolFinished(
            call_id=plan.call.call_id,
            name=plan.call.name,
            arguments=plan.arguments,
            result=result,
            error=result["error"],
            elapsed_ms=0.0,
        )


def _invalid_arguments(call: ToolCall) -> dict[str, Any]:
    shown = call.arguments if len(call.arguments) <= 200 else call.arguments[:200] + "…"
    return error_result(
        "INVALID_ARGUMENTS",
        f"The arguments of {call.name} were not a complete JSON object ({shown!r}); the "
        "reply may have been cut off by max_tokens. Call the tool again with complete "
        "JSON arguments.",
    )
