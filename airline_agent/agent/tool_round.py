"""The tool calls of one model reply: give each an id of its own, decide each (run it, or
answer it with an error), ask the customer about the writes, run the calls, and answer
each by its `tool_call_id`.

An approval, a result and a history entry belong to one call, so before anything is asked
or run every call of the reply gets an id no other call of it has (`own_call_ids`): the
model's own where it gave a usable one, else one the framework makes (and says so).

Tool calls and previews run in a worker thread (`asyncio.to_thread`) when the toolbox
says its calls block (`calls_block`: the real one waits on its database): a slow write
never freezes a front end's event loop. A toolbox whose calls never wait (one in memory)
is called on the event loop: the hop to a thread and back costs more than such a call. A
call under way when the turn is cancelled still finishes, and its real result is written
to the history: a write that happened is never reported as "not run".
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

from airline_agent.agent import history as hist
from airline_agent.agent import texts
from airline_agent.agent.conversation import Conversation
from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    CustomerBound,
    PendingWrite,
    ToolCall,
    ToolFinished,
    ToolStarted,
)
from airline_agent.agent.options import LoopOptions
from airline_agent.agent.turn import Plan
from airline_agent.tools.outcome import ToolOutcome
from airline_agent.tools.toolbox import Toolbox

# Before each planned call: the hooks' part (agent/hooks.py), maybe an edit (agent/loop.py).
BeforeCall = Callable[[Plan], AsyncIterator[AgentEvent]]


def own_call_ids(calls: tuple[ToolCall, ...], request: int) -> tuple[ToolCall, ...]:
    """The calls of one reply, each under an id no other of them has.

    A blank id (none, "", spaces) or one an earlier call of the reply already has is
    replaced by `call_<request>_<position>` (made unique against every id of the reply);
    the call keeps what the model sent in `sent_id`. Approvals are answered by call id,
    so two calls under one id would share one answer: a "no" to the first would be
    overwritten by a "yes" to the second, and both would run. (The usual reply, whose
    ids are all its own already, comes back as it is: `calls` itself.)
    """
    taken = {call.call_id for call in calls}
    if len(taken) == len(calls) and all(call.call_id.strip() for call in calls):
        return calls
    used: set[str] = set()
    own: list[ToolCall] = []
    for position, call in enumerate(calls):
        if call.call_id.strip() and call.call_id not in used:
            used.add(call.call_id)
            own.append(call)
            continue
        fresh, suffix = f"call_{request}_{position}", 1
        while fresh in taken:
            fresh, suffix = f"call_{request}_{position}_{suffix}", suffix + 1
        taken.add(fresh)
        used.add(fresh)
        own.append(replace(call, call_id=fresh, sent_id=call.call_id))
    return tuple(own)


def plan_calls(
    calls: tuple[ToolCall, ...],
    parsed: tuple[hist.Arguments, ...],
    already_run: int,
    options: LoopOptions,
    is_write: Callable[[str], bool],
) -> tuple[list[Plan], int, bool]:
    """Each call run or answered with an error (limit, bad arguments, writes denied);
    the count of calls run in the turn so far; whether this reply went over the limit.
    `parsed`: the calls' arguments (`history.parsed_arguments`)."""
    plans: list[Plan] = []
    over = False
    for call, arguments in zip(calls, parsed, strict=True):
        if already_run >= options.max_tool_calls:
            over = True
            plans.extend(plans_over_limit((call,), (arguments,), options.max_tool_calls))
            continue
        already_run += 1
        if arguments is None:
            plans.append(Plan(call, None, will_run=False, error=texts.invalid_arguments(call)))
        elif options.approval == "deny" and is_write(call.name):
            plans.append(Plan(call, arguments, will_run=False, error=texts.writes_switched_off()))
        else:
            plans.append(Plan(call, arguments))
    return plans, already_run, over


def plans_over_limit(
    calls: tuple[ToolCall, ...], parsed: tuple[hist.Arguments, ...], limit: int
) -> list[Plan]:
    return [
        Plan(call, arguments, will_run=False, error=texts.over_limit(limit))
        for call, arguments in zip(calls, parsed, strict=True)
    ]


async def ask_approval(
    plans: list[Plan],
    request: int,
    toolbox: Toolbox,
    conversation: Conversation,
    is_write: Callable[[str], bool],
) -> AsyncIterator[AgentEvent]:
    """All write calls of one reply in one ApprovalRequested; declined ones are not run."""
    writes = [p for p in plans if p.will_run and is_write(p.call.name)]
    if not writes:
        return
    previews = [
        await asyncio.to_thread(toolbox.preview, p.call.name, p.arguments or {}, conversation)
        if toolbox.calls_block
        else toolbox.preview(p.call.name, p.arguments or {}, conversation)
        for p in writes
    ]
    pending = tuple(
        PendingWrite(p.call.call_id, p.call.name, p.arguments or {}, preview)
        for p, preview in zip(writes, previews, strict=True)
    )
    decision = asyncio.get_running_loop().create_future()
    yield ApprovalRequested(request, pending, decision)
    answer = await decision
    for plan in writes:
        # Fails closed: only an explicit True approves (no answer, None, "yes" as text: no).
        if answer.approved.get(plan.call.call_id) is not True:
            plan.will_run, plan.error = False, texts.declined_by_customer()


async def answer_calls(
    plans: list[Plan],
    toolbox: Toolbox,
    conversation: Conversation,
    before: BeforeCall | None = None,
) -> AsyncIterator[AgentEvent]:
    """Run (or answer without running) each planned call, in order; `before` (the
    debugger's) may hold each first, and take your edit of its arguments."""
    keep_pending = conversation.timeline is not None and conversation.open_turn is not None
    for index, plan in enumerate(plans):
        if keep_pending:
            conversation.open_turn.pending = plans[index + 1 :]  # type: ignore[union-attr]
        if before is not None:
            async for event in before(plan):
                yield event
        if not plan.will_run:
            yield answer_without_running(plan, conversation)
            continue
        call = plan.call
        yield ToolStarted(call.call_id, call.name, plan.arguments, plan.raw_arguments, plan.edit)
        if toolbox.calls_block:
            outcome, step = await _run_in_thread(toolbox, plan, conversation)
        else:
            outcome = toolbox.call(call.name, plan.arguments, conversation)
            step = _record(plan, outcome, conversation)
        yield _finished(plan, outcome, step)
        if outcome.bound_customer is not None:
            yield CustomerBound(outcome.bound_customer, call.call_id, call.name)


async def _run_in_thread(
    toolbox: Toolbox, plan: Plan, conversation: Conversation
) -> tuple[ToolOutcome, int]:
    running = asyncio.ensure_future(
        asyncio.to_thread(toolbox.call, plan.call.name, plan.arguments, conversation)
    )
    try:
        outcome = await asyncio.shield(running)
    except asyncio.CancelledError:
        # The call cannot be stopped half-way (a write is one transaction): wait for it,
        # and let the history say what it really did before the turn ends.
        _record(plan, await running, conversation)
        raise
    return outcome, _record(plan, outcome, conversation)


def _record(plan: Plan, outcome: ToolOutcome, conversation: Conversation) -> int:
    """The result appended under the call's id: the call's step (its number)."""
    content = outcome.content()
    conversation.history.append(hist.tool_entry(plan.call.call_id, content))
    conversation.evidence.add_tool_result(plan.call.name, content, ok=outcome.error is None)
    conversation.record_write(plan.call.name, plan.arguments, outcome.changes)
    return _take_tool_step(plan, conversation)


def _take_tool_step(plan: Plan, conversation: Conversation) -> int:
    return conversation.take_step(
        "tool", request=conversation.requests, call_id=plan.call.call_id, name=plan.call.name
    )


def _finished(plan: Plan, outcome: ToolOutcome, step: int) -> ToolFinished:
    return ToolFinished(
        call_id=plan.call.call_id,
        name=plan.call.name,
        arguments=plan.arguments,
        result=outcome.result,
        error=outcome.error,
        elapsed_ms=outcome.elapsed_ms,
        changes=tuple(outcome.changes),
        step=step,
        edit=plan.edit,
    )


def answer_without_running(plan: Plan, conversation: Conversation) -> ToolFinished:
    result = plan.error or texts.not_run()
    content = json.dumps(result, ensure_ascii=False)
    conversation.history.append(hist.tool_entry(plan.call.call_id, content))
    return ToolFinished(
        call_id=plan.call.call_id,
        name=plan.call.name,
        arguments=plan.arguments,
        result=result,
        error=result["error"],
        elapsed_ms=0.0,
        step=_take_tool_step(plan, conversation),
        edit=plan.edit,
    )
