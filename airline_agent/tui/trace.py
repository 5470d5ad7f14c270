"""The trace's entries: who produced what, request by request, built from agent events.

One entry per model request and per tool call, in the order the round is built (the
articles' STEP A to D): the developer's part (system prompt and tool schemas) before the
customer's message, then the request (api), the model's response, each tool call's
`role: tool` result (framework), linked to its call by `tool_call_id`; and the
framework's own entries: approvals and their answers, bindings, limits, warnings, errors,
divergences and how a turn ended. Rows a write changed are told in words ("reservation
EHGLP3: status active → cancelled"), each value as the approval preview words it
(tools/describe.py); an inserted row says what it is ("… inserted, refund $523 to …").

What you changed at the debugger is yours ("you"): an entry before the request you edited
(marked "edited"), or before the tool call that ran with your arguments (the model's call
stays in its entry as the model made it). Every entry knows the step it shows or follows
(agent/steps.py), where `f` forks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from airline_agent.agent.events import (
    ApprovalRequested,
    ArgumentsEdit,
    AssistantMessage,
    CustomerBound,
    ErrorOccurred,
    GroundingWarning,
    LimitReached,
    PendingWrite,
    RequestEdit,
    RequestHeld,
    RequestSent,
    RetryScheduled,
    ToolCallHeld,
    ToolCallsRecovered,
    ToolFinished,
    TurnEndHeld,
    TurnFinished,
    TurnStarted,
)
from airline_agent.agent.responses_wire import input_parts, reasoning_fate, reasoning_item_ids
from airline_agent.tools.describe import describe_row_change, value_words
from airline_agent.tui.feed import ScenarioDiverged
from airline_agent.tui.formatting import call_signature, first_line, fold, latency, pretty_json

if TYPE_CHECKING:
    from airline_agent.tools.outcome import ColumnValue, RowChange
    from airline_agent.tui.feed import ShownEvent

EntryProducer = Literal["developer", "customer", "model", "framework", "api", "you"]
RESULT_LINES = 6  # a tool result longer than this is folded; the details show it whole
DIFF_LINES = 6  # the changed lines of an edit shown in the trace; the inspector has them all
VALUE_CHARS = 40  # a long changed value (a list of flights) is cut; the details show it
# What an `api` entry is, said on the first one of a conversation (where the label is met).
API_MEANS = "api: the request the framework sent to the model's API (enter: exactly as sent)"
STATED = "named by the customer, confirmed by"  # how a CustomerBound came to be
_ABSENT = object()


@dataclass(frozen=True)
class TraceEntry:
    """One entry of the trace: who produced it, what it says, what it links to."""

    producer: EntryProducer
    title: str
    body: str = ""  # a few lines under the title
    meta: str = ""  # right-hand facts: "ok · 3 ms", "412 ms"
    error: bool = False
    warning: bool = False
    request: int | None = None  # the request it belongs to (opens the inspector)
    details: dict[str, object] = field(default_factory=dict)  # everything, for the details screen
    # The tool_call_ids it carries: a model's calls, a call's `role: tool` result, an
    # approval of calls. Entries sharing one are linked (the trace highlights them together).
    call_ids: tuple[str, ...] = ()
    # The step it shows, or the one it follows (None: the events carry no steps); a fork
    # made at this entry is the conversation right after it.
    step: int | None = None


class TraceBuilder:
    """Turns the event stream into trace entries; remembers what later entries need: whether
    the developer entry was shown, the prefix's history, reasoning not sent back yet, an
    approval waiting for its answer."""

    def __init__(self) -> None:
        self.new_conversation()

    def new_conversation(self) -> None:
        self._developer_shown = False
        self._api_explained = False  # the first request says what its `api` label means
        self._held_customer: TraceEntry | None = None  # until the developer entry is out
        self._prefix_since: int | None = None  # the first request of the current prefix
        self._reasoned: list[int] = []  # responses with reasoning since the last request
        # On the Responses wire, their reasoning items' ids (which go back, and which not).
        self._reasoning_items: dict[int, tuple[str, ...]] = {}
        self._asked: ApprovalRequested | None = None
        self._step: int | None = None  # the last step the events said

    def feed(self, event: ShownEvent) -> list[TraceEntry]:
        if isinstance(event, RequestHeld | ToolCallHeld | TurnEndHeld):
            return []  # a question of the moment (the status line's), not a record
        step = getattr(event, "step", 0)
        if step:
            self._step = step
        entries = self._entries(event)
        if self._step is None:
            return entries
        return [
            entry if entry.step is not None else replace(entry, step=self._step)
            for entry in entries
        ]

    def _entries(self, event: ShownEvent) -> list[TraceEntry]:
        entries = self._answered_approval()
        match event:
            case TurnStarted(turn=turn, user_text=text):
                customer = TraceEntry(
                    "customer",
                    f"turn {turn} · customer message",
                    body=fold(text, 3),
                    details={"turn": turn, "content": text},
                    step=self._step,  # shown later (after the developer's part): its own
                )
                if not self._developer_shown:
                    self._held_customer = customer  # STEP A: the developer's part first
                    return entries
                return [*entries, customer]
            case RequestSent() as sent:
                yours = [request_edit_entry(sent.edit)] if sent.edit is not None else []
                developer = self._developer(sent)
                return [*entries, *developer, *self._held(), *yours, self._request(sent)]
        entries += self._held()
        match event:
            case AssistantMessage() as message:
                if message.reasoning:
                    self._reasoned.append(message.request)
                if message.raw is not None and message.raw.api == "responses":
                    ids = reasoning_item_ids(message.raw.assembled)
                    self._reasoning_items[message.request] = ids
                return [*entries, _model(message)]
            case ToolFinished() as finished:
                yours = [arguments_edit_entry(finished.edit)] if finished.edit is not None else []
                return [*entries, *yours, _tool(finished)]
            case TurnFinished(reason="answered"):
                return entries
            case ApprovalRequested() as asked:
                self._asked = asked
        framework = framework_entry(event)
        return [*entries, framework] if framework is not None else entries

    def _held(self) -> list[TraceEntry]:
        held, self._held_customer = self._held_customer, None
        return [held] if held is not None else []

    def _answered_approval(self) -> list[TraceEntry]:
        if self._asked is None:
            return []
        answer = approval_answer(self._asked)
        if answer is not None:
            self._asked = None
        return [answer] if answer is not None else []

    def _developer(self, sent: RequestSent) -> list[TraceEntry]:
        if self._developer_shown:
            return []
        self._developer_shown = True
        system = next((m.get("content") for m in sent.messages if m.get("role") == "system"), "")
        names = [tool.get("function", {}).get("name", "?") for tool in sent.tools]
        size = f" · prefix {sent.prefix.size.label}" if sent.prefix is not None else ""
        return [
            TraceEntry(
                "developer",
                f"system prompt + {len(sent.tools)} tool schemas",
                body=f"{len(system or ''):,} characters of instructions{size}\n"
                + first_line(", ".join(names), 100),
                request=sent.request,
                details={"system_prompt": system, "tools": sent.tools},
                # As the conversation began: a fork here starts it anew.
                step=0 if self._step is not None else None,
            )
        ]

    def _request(self, sent: RequestSent) -> TraceEntry:
        params = ", ".join(f"{key}={value}" for key, value in sent.params.items())
        lines = [f"{len(sent.messages)} messages · {len(sent.tools)} tools"]
        if sent.body is not None:  # the Responses wire: its own body's parts
            lines = [f"Responses API: {input_parts(sent.body)} · {len(sent.tools)} tools"]
        if not self._api_explained:
            self._api_explained = True
            lines.insert(0, API_MEANS)
        lines += [params] if params else []
        lines += [self._prefix_line(sent)] if sent.prefix is not None else []
        lines += self._reasoning_left_out(sent)
        if sent.edit is not None:
            lines.insert(0, "edited: sent as you left it, byte for byte (enter: the diff)")
        return TraceEntry(
            "api",
            f"request #{sent.request} → {sent.model}" + (" · edited" if sent.edit else ""),
            body="\n".join(lines),
            request=sent.request,
            details={"model": sent.model, "params": sent.params, "messages": len(sent.messages)},
        )

    def _prefix_line(self, sent: RequestSent) -> str:
        """The prefix's size, and since when it is byte-identical (a prompt cache hits then)."""
        prefix = sent.prefix
        assert prefix is not None
        if prefix.unchanged and self._prefix_since is not None:
            return f"prefix {prefix.size.label}, unchanged since request #{self._prefix_since}"
        changed = prefix.unchanged is False
        self._prefix_since = sent.request
        return f"prefix {prefix.size.label}" + (", CHANGED: no cache hit" if changed else "")

    def _reasoning_left_out(self, sent: RequestSent) -> list[str]:
        """The articles' point: reasoning_content is shown, not sent back. (The Responses
        wire sends reasoning items back: which did go, and which could not.)"""
        reasoned, self._reasoned = self._reasoned, []
        if sent.body is not None:
            items, self._reasoning_items = self._reasoning_items, {}
            return reasoning_fate(sent.body, {n: items.get(n, ()) for n in reasoned})
        if any(m.get("reasoning_content") for m in sent.messages):
            return []
        return [f"reasoning_content of response #{n} not sent back" for n in reasoned]


def _model(message: AssistantMessage) -> TraceEntry:
    lines = [
        f"{call_signature(call.name, None, call.arguments)} · id {call.call_id}"
        for call in message.tool_calls
    ]
    if message.content:
        lines.append("reply: " + first_line(message.content, 120))
    if message.reasoning:
        lines.insert(0, "reasoning: " + first_line(message.reasoning, 120))
    count = len(message.tool_calls)
    kind = f"{count} tool call{'s' * (count != 1)}" if count else "reply"
    return TraceEntry(
        "model",
        f"response #{message.request} · {kind}",
        body="\n".join(lines),
        meta=f"{message.finish_reason or '—'} · {latency(message.latency_ms, message.scripted)}",
        error=message.finish_reason == "length",
        request=message.request,
        call_ids=tuple(call.call_id for call in message.tool_calls),
        details={
            "content": message.content,
            "reasoning_content": message.reasoning,  # the wire's name for it
            "tool_calls": [
                {"id": c.call_id, "name": c.name, "arguments": c.arguments}
                for c in message.tool_calls
            ],
            "finish_reason": message.finish_reason,
            "latency_ms": "scripted" if message.scripted else round(message.latency_ms),
        },
    )


def request_edit_entry(edit: RequestEdit) -> TraceEntry:
    """Your edit of a request's body, before it was sent: what changed, its first lines."""
    changed = [f"messages #{position}" for position in edit.changed_messages()]
    before, after = edit.original, edit.edited
    if len(after.get("messages") or []) < len(before.get("messages") or []):
        changed.append(f"messages cut to {len(after.get('messages') or [])}")
    changed += [
        f'"{name}"'
        for name in sorted({*before, *after} - {"messages"})
        if before.get(name, _ABSENT) != after.get(name, _ABSENT)
    ]
    lines = [f"changed: {', '.join(changed) or 'the layout only'}"]
    lines += _changed_lines(edit.diff())
    return TraceEntry(
        "you",
        f"request #{edit.request} edited before it was sent",
        body="\n".join(lines),
        warning=True,
        request=edit.request,
        details={"request": edit.request, "diff": edit.diff()},
    )


def arguments_edit_entry(edit: ArgumentsEdit) -> TraceEntry:
    """Your arguments for a tool call, before it ran (the model's call stays as it was)."""
    return TraceEntry(
        "you",
        f"{edit.name} ({edit.call_id}) arguments edited before it ran",
        body="\n".join(
            [
                f"the model's: {first_line(edit.original, 100)}",
                f"yours: {first_line(edit.edited, 100)}",
                "the model's call stays in the history as it made it",
            ]
        ),
        warning=True,
        call_ids=(edit.call_id,),
        details={
            "call_id": edit.call_id,
            "original": edit.original,
            "edited": edit.edited,
            "diff": edit.diff(),
        },
    )


def _changed_lines(diff: str) -> list[str]:
    lines = [
        line
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    if len(lines) > DIFF_LINES:
        lines = [*lines[: DIFF_LINES - 1], f"… {len(lines) - DIFF_LINES + 1} more changed lines"]
    return lines


def _tool(finished: ToolFinished) -> TraceEntry:
    status = finished.error or "ok"
    body = [
        call_signature(finished.name, finished.arguments),
        f"role: tool · tool_call_id {finished.call_id}",
        fold(pretty_json(finished.result), RESULT_LINES),
    ]
    body += [describe_change(change) for change in finished.changes]
    if finished.edit is not None:
        body.insert(1, "ran with your arguments (the model's call is unchanged)")
    return TraceEntry(
        finished.producer if finished.producer != "api" else "framework",
        f"tool {finished.name}",
        body="\n".join(body),
        meta=f"{status} · {finished.elapsed_ms:,.0f} ms",
        error=finished.error is not None,
        call_ids=(finished.call_id,),
        details={
            "call_id": finished.call_id,
            "name": finished.name,
            "arguments": finished.arguments,
            "result": finished.result,
            "error": finished.error,
            "elapsed_ms": round(finished.elapsed_ms, 1),
            "changes": [
                {"table": c.table, "key": c.key, "before": c.before, "after": c.after}
                for c in finished.changes
            ],
        },
    )


# -- the framework's entries ------------------------------------------------------------


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
            return TraceEntry(
                "framework",
                f"customer bound: {customer} — {STATED} {tool}",
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


def _pending(call: PendingWrite) -> dict[str, object]:
    return {
        "call_id": call.call_id,
        "name": call.name,
        "arguments": call.arguments,
        "preview": call.preview,
    }


# -- rows a write changed -------------------------------------------------------------------


def describe_change(change: RowChange) -> str:
    """One line per changed row: the table, the key and each field before → after."""
    where = f"{change.table} {change.key}"
    if change.before is None:
        words = describe_row_change(change)
        return f"{where}: inserted" + (f", {words}" if words else "")
    if change.after is None:
        return f"{where}: deleted"
    fields = [
        f"{name} {_value(change, name, change.before)} → {_value(change, name, change.after)}"
        for name in _changed_fields(change.before, change.after)
    ]
    return f"{where}: " + ("; ".join(fields) if fields else "unchanged")


def _changed_fields(before: Mapping[str, object], after: Mapping[str, object]) -> list[str]:
    names = list(before) + [name for name in after if name not in before]
    return [name for name in names if before.get(name, _ABSENT) != after.get(name, _ABSENT)]


def _value(change: RowChange, name: str, row: Mapping[str, ColumnValue]) -> str:
    if name not in row:
        return "(new)" if row is change.before else "(removed)"
    text = value_words(change.table, name, row[name])
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"
