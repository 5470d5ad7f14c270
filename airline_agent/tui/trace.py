"""The trace's entries: who produced what, request by request, built from agent events.

One entry per model request and per tool call, in order, each labelled by its producer:
developer (system prompt and tool schemas), customer, model (tool calls, reasoning,
reply), framework (tool results, limits, errors) and api (the request itself).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from airline_agent.agent.events import (
    ApprovalRequested,
    AssistantMessage,
    CustomerBound,
    ErrorOccurred,
    GroundingWarning,
    LimitReached,
    PendingWrite,
    RequestSent,
    RetryScheduled,
    ToolFinished,
    TurnFinished,
    TurnStarted,
)
from airline_agent.tui.formatting import call_signature, first_line, fold, pretty_json
from airline_agent.tui.run import ScenarioDiverged, ShownEvent
from airline_agent.tui.session_state import CustomerBinding

EntryProducer = Literal["developer", "customer", "model", "framework", "api"]
RESULT_LINES = 6  # a tool result longer than this is folded; the details show it whole


@dataclass(frozen=True)
class TraceEntry:
    producer: EntryProducer
    title: str
    body: str = ""  # a few lines under the title
    meta: str = ""  # right-hand facts: "ok · 3 ms", "412 ms"
    error: bool = False
    warning: bool = False
    request: int | None = None  # the request it belongs to (opens the inspector)
    details: dict[str, Any] = field(default_factory=dict)  # everything, for the details screen


class TraceBuilder:
    """Turns the event stream into trace entries; remembers what the developer entry needs."""

    def __init__(self) -> None:
        self._developer_shown = False
        self._turn = 0

    def new_conversation(self) -> None:
        self._developer_shown = False

    def feed(self, event: ShownEvent) -> list[TraceEntry]:
        match event:
            case TurnStarted(turn=turn, user_text=text):
                self._turn = turn
                return [
                    TraceEntry(
                        "customer",
                        f"turn {turn} · customer message",
                        body=fold(text, 3),
                        details={"turn": turn, "content": text},
                    )
                ]
            case RequestSent() as sent:
                return [*self._developer(sent), self._request(sent)]
            case AssistantMessage() as message:
                return [self._model(message)]
            case ToolFinished() as finished:
                return [self._tool(finished)]
            case TurnFinished(reason="answered"):
                return []
        framework = _framework_entry(event)
        return [framework] if framework is not None else []

    def _developer(self, sent: RequestSent) -> list[TraceEntry]:
        if self._developer_shown:
            return []
        self._developer_shown = True
        system = next((m.get("content") for m in sent.messages if m.get("role") == "system"), "")
        names = [tool.get("function", {}).get("name", "?") for tool in sent.tools]
        return [
            TraceEntry(
                "developer",
                f"system prompt + {len(sent.tools)} tool schemas",
                body=f"{len(system or ''):,} characters of instructions\n"
                + first_line(", ".join(names), 100),
                request=sent.request,
                details={"system_prompt": system, "tools": sent.tools},
            )
        ]

    @staticmethod
    def _request(sent: RequestSent) -> TraceEntry:
        params = ", ".join(f"{key}={value}" for key, value in sent.params.items())
        return TraceEntry(
            "api",
            f"request #{sent.request} → {sent.model}",
            body=f"{len(sent.messages)} messages · {len(sent.tools)} tools"
            + (f"\n{params}" if params else ""),
            request=sent.request,
            details={"model": sent.model, "params": sent.params, "messages": len(sent.messages)},
        )

    @staticmethod
    def _model(message: AssistantMessage) -> TraceEntry:
        lines = [call_signature(call.name, None, call.arguments) for call in message.tool_calls]
        if message.content:
            lines.append("reply: " + first_line(message.content, 120))
        if message.reasoning:
            lines.insert(0, "reasoning: " + first_line(message.reasoning, 120))
        kind = (
            f"{len(message.tool_calls)} tool call{'s' * (len(message.tool_calls) != 1)}"
            if message.tool_calls
            else "reply"
        )
        return TraceEntry(
            "model",
            f"response #{message.request} · {kind}",
            body="\n".join(lines),
            meta=f"{message.finish_reason or '—'} · {message.latency_ms:,.0f} ms",
            error=message.finish_reason == "length",
            request=message.request,
            details={
                "content": message.content,
                "reasoning": message.reasoning,
                "tool_calls": [
                    {"id": c.call_id, "name": c.name, "arguments": c.arguments}
                    for c in message.tool_calls
                ],
                "finish_reason": message.finish_reason,
                "latency_ms": message.latency_ms,
            },
        )

    @staticmethod
    def _tool(finished: ToolFinished) -> TraceEntry:
        status = finished.error or "ok"
        body = [call_signature(finished.name, finished.arguments)]
        body.append(fold(pretty_json(finished.result), RESULT_LINES))
        for change in finished.changes:
            body.append(f"{change.table} {change.key}: {_change_kind(change.before, change.after)}")
        return TraceEntry(
            finished.producer if finished.producer != "api" else "framework",
            f"tool {finished.name}",
            body="\n".join(body),
            meta=f"{status} · {finished.elapsed_ms:,.0f} ms",
            error=finished.error is not None,
            details={
                "call_id": finished.call_id,
                "name": finished.name,
                "arguments": finished.arguments,
                "result": finished.result,
                "error": finished.error,
                "elapsed_ms": finished.elapsed_ms,
                "changes": [
                    {"table": c.table, "key": c.key, "before": c.before, "after": c.after}
                    for c in finished.changes
                ],
            },
        )


def _change_kind(before: dict | None, after: dict | None) -> str:
    if before is None:
        return "inserted"
    if after is None:
        return "deleted"
    changed = [key for key in after if before.get(key) != after.get(key)]
    return "changed " + ", ".join(changed) if changed else "unchanged"


def _framework_entry(event: ShownEvent) -> TraceEntry | None:
    """What the framework did or said (approvals, bindings, limits, warnings, errors,
    divergences, how a turn ended), as one entry; None for an event it has none for."""
    match event:
        case ApprovalRequested(request=request, calls=calls):
            return TraceEntry(
                "framework",
                f"approval asked · {len(calls)} write call{'s' * (len(calls) != 1)}",
                body=", ".join(call.name for call in calls),
                warning=True,
                request=request,
                details={"calls": [_pending(call) for call in calls]},
            )
        case CustomerBound(customer=customer, call_id=call_id, tool=tool):
            how = CustomerBinding("stated", tool).describe()
            return TraceEntry(
                "framework",
                f"customer bound: {customer} — {how}",
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
