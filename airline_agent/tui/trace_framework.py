"""The framework's trace entries: approvals and their answers, bindings, limits, warnings,
errors, divergences and how a turn ended (trace.py builds the rest)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from airline_agent.agent.events import (
    ApprovalRequested,
    CustomerBound,
    ErrorOccurred,
    GroundingWarning,
    LimitReached,
    PendingWrite,
    RetryScheduled,
    ToolCallsRecovered,
    TurnFinished,
)
from airline_agent.tui.run import ScenarioDiverged, ShownEvent
from airline_agent.tui.session_state import CustomerBinding
from airline_agent.tui.trace_entry import TraceEntry


def approval_answer(asked: ApprovalRequested) -> TraceEntry | None:
    """What the customer answered to `asked`, once answered (None while it waits)."""
    if not asked.decision.done():
        return None
    names = {call.call_id: call.name for call in asked.calls}
    if asked.decision.cancelled():
        title, approved = "approval not answered: the turn ended first", {}
    else:
        approved = asked.decision.result().approved
        yes = [names[i] for i in names if approved.get(i, False)]
        no = [names[i] for i in names if not approved.get(i, False)]
        answers = [f"approved {', '.join(yes)}"] if yes else []
        answers += [f"declined {', '.join(no)}"] if no else []
        title = "approval · " + " · ".join(answers)
    return TraceEntry(
        "customer",
        title,
        warning=not approved or not all(approved.values()),
        request=asked.request,
        call_ids=tuple(names),
        details={"approved": {i: approved.get(i, False) for i in names}},
    )


def framework_entry(event: ShownEvent) -> TraceEntry | None:
    """What the framework did or said (approvals, bindings, limits, warnings, errors,
    divergences, how a turn ended), as one entry; None for an event it has none for."""
    match event:
        case ApprovalRequested(request=request, calls=calls):
            return TraceEntry(
                "framework",
                f"approval asked · {len(calls)} write call{'s' * (len(calls) != 1)}",
                body="\n".join(f"{c.name} · id {c.call_id}: {c.preview}" for c in calls),
                warning=True,
                request=request,
                call_ids=tuple(call.call_id for call in calls),
                details={"calls": [_pending(call) for call in calls]},
            )
        case CustomerBound(customer=customer, call_id=call_id, tool=tool):
            how = CustomerBinding("stated", tool).describe()
            return TraceEntry(
                "framework",
                f"customer bound: {customer} — {how}",
                call_ids=(call_id,),
                details={"customer": customer, "call_id": call_id, "tool": tool},
            )
        case LimitReached(kind=kind, limit=limit, message=text):
            return TraceEntry(
                "framework",
                f"limit reached · {kind} ({limit:g})",
                body=text,
                error=True,
                details={"kind": kind, "limit": limit, "message": text},
            )
        case GroundingWarning(request=request, unsupported=values, findings=findings):
            return TraceEntry(
                "framework",
                "grounding warning",
                body=event.describe()
                if findings
                else "not found in any tool result: " + ", ".join(values),
                warning=True,
                request=request,
                details={
                    "unsupported": list(values),
                    "findings": [asdict(finding) for finding in findings],
                },
            )
        case ToolCallsRecovered(request=request, calls=calls, text=text):
            names = ", ".join(call.name for call in calls)
            return TraceEntry(
                "framework",
                f"recovered from text · {names}",
                body="The model wrote the call as text; the framework made it "
                "(--recover-text-tool-calls).\n" + text,
                warning=True,
                request=request,
                call_ids=tuple(call.call_id for call in calls),
                details={"calls": [asdict(call) for call in calls], "text": text},
            )
        case ScenarioDiverged(where=where, findings=lines) as diverged:
            return TraceEntry(
                "framework",
                diverged.summary(),
                body=where + "\n" + "\n".join(lines),
                error=True,
                details={"where": where, "findings": list(lines)},
            )
    return _trouble_entry(event)


def _trouble_entry(event: ShownEvent) -> TraceEntry | None:
    """A retry, an error, a turn that ended otherwise than answered."""
    match event:
        case RetryScheduled(attempt=attempt, delay_s=delay, reason=reason):
            return TraceEntry(
                "framework",
                f"retry {attempt} in {delay:.1f} s",
                body=reason,
                warning=True,
                details={"attempt": attempt, "delay_s": delay, "reason": reason},
            )
        case ErrorOccurred(kind=kind, message=text, hint=hint, status=status):
            return TraceEntry(
                "framework",
                f"error · {kind}" + (f" ({status})" if status else ""),
                body=text + (f"\n{hint}" if hint else ""),
                error=True,
                details={"kind": kind, "message": text, "hint": hint, "status": status},
            )
        case TurnFinished(turn=turn, reason=reason):
            return TraceEntry(
                "framework",
                f"turn {turn} ended · {reason}",
                error=reason == "error",
                warning=reason != "error",
                details={"turn": turn, "reason": reason},
            )
    return None


def _pending(call: PendingWrite) -> dict[str, Any]:
    return {
        "call_id": call.call_id,
        "name": call.name,
        "arguments": call.arguments,
        "preview": call.preview,
    }
