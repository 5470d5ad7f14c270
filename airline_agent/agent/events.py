"""The typed events the agent loop yields. Front ends, the recorder and tests consume them.

Every event is a small frozen dataclass; a consumer `match`es the ones it cares about
and ignores the rest, so adding an event never breaks a front end. Each also names its
kind in `type` (its class name in snake_case, as the Agents SDK's stream events carry
one): a class attribute, not a field, so it is never compared, copied or repeated in
`asdict`; writers of JSON lines (`mcp_server/event_log.py`) name events by it, and a
reader of such a line dispatches on it.
"""

from __future__ import annotations

import asyncio
import difflib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

# A reply's parts are defined with the reply (agent/model_reply.py), and named here too:
# the events carry them, and their consumers import them from here.
from airline_agent.agent.model_reply import HistoryEntry
from airline_agent.agent.model_reply import ReceivedMessage as ReceivedMessage
from airline_agent.agent.model_reply import ToolCall as ToolCall
from airline_agent.agent.model_reply import Usage as Usage
from airline_agent.agent.model_reply import received_message as received_message
from airline_agent.tools.untrusted import JsonObject, UnusableJson, parse_json

if TYPE_CHECKING:
    # Only annotations here: a front end that imports the events (the TUI's first screen
    # does) need not import the prefix's hashing and JSON, the findings or the row changes.
    from airline_agent.agent.findings import Finding
    from airline_agent.agent.prefix import PrefixInfo
    from airline_agent.agent.raw_response import RawResponse
    from airline_agent.choices import Api
    from airline_agent.tools.outcome import RowChange

# Who produced a piece of the conversation (the seed article's table); "you": the person
# at the debugger, who edited a request body or a tool call's arguments before it went on.
Producer = Literal["developer", "customer", "model", "framework", "api", "you"]

# Why the loop holds before a step (agent/debugger.py's breakpoints): stepping, before every
# request, before a write tool, after a grounding finding, after an error result.
HoldReason = Literal["step", "request", "write", "finding", "error"]


@dataclass(frozen=True, slots=True)
class RequestEdit:
    """A request body you changed at the debugger before it was sent: the body as the
    framework assembled it (as the client sends it: `extra_body` merged in), the body as
    you left it, and the bytes that went on the wire (exactly yours)."""

    request: int
    original: dict[str, Any]
    edited: dict[str, Any]
    wire: bytes = field(repr=False)
    by: Producer = "you"

    def changed_messages(self) -> tuple[int, ...]:
        """The positions of the edited body's messages that are not the original's (the
        trace labels them "you")."""
        before = self.original.get("messages") or []
        after = self.edited.get("messages") or []
        return tuple(
            position
            for position, message in enumerate(after)
            if position >= len(before) or before[position] != message
        )

    def diff(self) -> str:
        """The original against the edited body, as a unified diff of indented JSON."""
        return _json_diff(self.original, self.edited, f"request #{self.request}")


@dataclass(frozen=True, slots=True)
class ArgumentsEdit:
    """A tool call's arguments you changed at the debugger before it ran: the model's call
    stays in the history as it was sent; the tool ran with `edited`."""

    request: int
    call_id: str
    name: str
    original: str  # the arguments as the model sent them
    edited: str  # as they ran
    by: Producer = "you"

    def diff(self) -> str:
        return _json_diff(_loaded(self.original), _loaded(self.edited), f"{self.name} arguments")


def _loaded(text: str) -> object:
    parsed = parse_json(text)
    if isinstance(parsed, UnusableJson):
        return text  # the model's unusable arguments, shown as the text they were
    return parsed.safe_value()


def _json_diff(original: object, edited: object, what: str) -> str:
    def lines(value: object) -> list[str]:
        text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
        return text.splitlines(keepends=True)

    return "".join(
        difflib.unified_diff(
            lines(original), lines(edited), f"{what} (original)", f"{what} (edited: you)"
        )
    )


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A turn begins with the customer's message."""

    type: ClassVar[Literal["turn_started"]] = "turn_started"

    turn: int  # 1-based index of the turn in the conversation
    user_text: str
    # The step it is: the customer's message appended (agent/steps.py numbers the steps).
    step: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class TurnResumed:
    """A turn that a fork cut in the middle goes on (`AgentSession.resume_turn`), after
    step `step` of the conversation: its open tool calls are answered, then requests go on."""

    type: ClassVar[Literal["turn_resumed"]] = "turn_resumed"

    turn: int
    step: int


@dataclass(frozen=True, slots=True)
class RequestSent:
    """The exact body of one request (never the API key).

    On Chat Completions `messages`, `tools` and `params` are the body. On the Responses
    wire `body` is the body, exactly as sent, and `messages` and `tools` are what it was
    made from: the loop's history and tool schemas in Chat Completions' form, which every
    front end reads (agent/responses_wire.py maps one to the other); `params` are its own.
    """

    type: ClassVar[Literal["request_sent"]] = "request_sent"

    turn: int
    request: int  # 1-based index of the request in the conversation
    model: str
    messages: list[HistoryEntry]
    tools: list[dict[str, Any]]
    params: dict[str, Any]  # tool_choice, temperature, stream, …
    # The fixed prefix (system message + tools): its size in tokens, and whether it is
    # byte-identical to the previous request's (prompt caches hit only then).
    prefix: PrefixInfo | None = None
    step: int = field(default=0, compare=False)
    # You edited the body at the debugger: what was sent is `edit.wire`, byte for byte
    # (`messages`, `tools` and `params` above are the edited body's).
    edit: RequestEdit | None = field(default=None, compare=False)
    # The Responses wire's body as sent (None: Chat Completions, whose body is the above).
    body: dict[str, Any] | None = None

    @property
    def api(self) -> Api:
        return "chat" if self.body is None else "responses"


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the reply's text, as it streams."""

    type: ClassVar[Literal["text_delta"]] = "text_delta"

    request: int
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of the model's reasoning (`reasoning_content`), as it streams."""

    type: ClassVar[Literal["reasoning_delta"]] = "reasoning_delta"

    request: int
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of a streamed tool call's arguments (for showing them as they arrive)."""

    type: ClassVar[Literal["tool_call_delta"]] = "tool_call_delta"

    request: int
    index: int
    call_id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True, slots=True)
class PromptProgress:
    """While the server reads the prompt, before the answer starts: llama-server reports
    it when the request asks (`return_progress: true`, e.g. through `extra_body`)."""

    type: ClassVar[Literal["prompt_progress"]] = "prompt_progress"

    request: int
    processed: int  # prompt tokens read so far
    total: int  # prompt tokens in all
    cached: int  # of `total`, taken from the server's cache


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """One complete model response, as appended to the history."""

    type: ClassVar[Literal["assistant_message"]] = "assistant_message"

    request: int
    content: str | None
    tool_calls: tuple[ToolCall, ...]
    reasoning: str | None
    finish_reason: str | None
    latency_ms: float
    # What came back, in the server's shape (a completion, or the stream's chunks); None
    # when unknown. Offline it is generated from the script and marked so.
    raw: RawResponse | None = None
    # A scripted reply: no network, so `latency_ms` times only the loop and the front end
    # taking its events (a paced playback's pauses included): show "scripted" instead.
    scripted: bool = False
    step: int = field(default=0, compare=False)

    def as_received(self) -> ReceivedMessage:
        return received_message(self.content, self.tool_calls, self.reasoning)


@dataclass(frozen=True, slots=True)
class ToolCallsRecovered:
    """The model wrote tool calls as text (`text`, its whole reply) and the framework made
    them (`--recover-text-tool-calls`): the `AssistantMessage` that follows carries them,
    with the framework's ids. The model did not call them: a front end says so."""

    type: ClassVar[Literal["tool_calls_recovered"]] = "tool_calls_recovered"

    request: int
    calls: tuple[ToolCall, ...]
    text: str


@dataclass(frozen=True, slots=True)
class UsageReported:
    """The tokens, cost and timing of one request."""

    type: ClassVar[Literal["usage_reported"]] = "usage_reported"

    request: int
    usage: Usage | None  # None: the server reported no usage at all
    cost: float | None  # None: no price known for the model
    model: str
    latency_ms: float
    context_window: int | None = None
    # Measured from the stream (None without one): the wait for the first piece of the
    # answer (on a local model, mostly prompt processing), and completion tokens per
    # second after it.
    first_token_ms: float | None = None
    tokens_per_second: float | None = None
    # A scripted reply (offline): no network time to report. `latency_ms` then times only
    # the loop and the front end taking its events, and the two stream figures are None;
    # show "scripted", not a latency.
    scripted: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """The customer's answer for each pending write call, by call id."""

    approved: dict[str, bool]


@dataclass(frozen=True, slots=True)
class PendingWrite:
    """One write call of a response, with what it would change."""

    call_id: str
    name: str
    arguments: JsonObject
    preview: str  # what it will change, in words


@dataclass(frozen=True, slots=True)
class ApprovalRequested:
    """All write calls of one response, waiting for the customer's yes or no.

    The consumer answers with `decide(...)`; the loop waits for it after yielding.
    """

    type: ClassVar[Literal["approval_requested"]] = "approval_requested"

    request: int
    calls: tuple[PendingWrite, ...]
    decision: asyncio.Future[ApprovalDecision] = field(compare=False, repr=False)

    def decide(self, approved: dict[str, bool] | bool | None) -> None:
        """The answers by call id, or one for all. Fails closed: a call without an answer
        of `True` is declined, and so is every call when the answer is None (a question
        closed without one)."""
        if not isinstance(approved, dict):
            approved = {call.call_id: approved is True for call in self.calls}
        if not self.decision.done():
            self.decision.set_result(ApprovalDecision(approved))


@dataclass(frozen=True, slots=True)
class RequestRelease:
    """How a held request goes on: as assembled, or as you edited it."""

    edited: dict[str, Any] | None = None  # None: sent as assembled
    wire: bytes | None = field(default=None, repr=False)  # the edited body, byte for byte


@dataclass(frozen=True, slots=True)
class RequestHeld:
    """The next request, assembled and not sent (a breakpoint, or stepping): nothing
    reaches the server until the consumer answers with `go()` (or an edit, through
    `edits.go_on_edited`); the loop waits for it after yielding."""

    type: ClassVar[Literal["request_held"]] = "request_held"

    turn: int
    request: int  # the number it will have
    step: int  # the step it will be
    body: dict[str, Any]  # exactly what the framework would send
    reasons: tuple[HoldReason, ...]
    release: asyncio.Future[RequestRelease] = field(compare=False, repr=False)

    @property
    def next(self) -> str:
        return f"send request #{self.request}"

    def go(self, release: RequestRelease | None = None) -> None:
        """Send it as assembled, or as `release` says: an edit, checked by
        `edits.go_on_edited`, which makes it."""
        if not self.release.done():
            self.release.set_result(release or RequestRelease())


@dataclass(frozen=True, slots=True)
class CallRelease:
    """How a held tool call goes on: with the model's arguments, or with yours."""

    arguments: str | None = None  # None: the model's


@dataclass(frozen=True, slots=True)
class ToolCallHeld:
    """The next tool call, not run yet (a breakpoint, or stepping): it runs when the
    consumer answers with `go()` (or an edit, through `edits.go_on_edited`). `refusal` is
    the error code it will be answered with instead of running (declined, writes switched
    off, over the limit, unusable arguments); its arguments can be edited when it runs, or
    when they were unusable. An edited write is asked about again when approvals are asked."""

    type: ClassVar[Literal["tool_call_held"]] = "tool_call_held"

    request: int
    step: int  # the step it will be
    call: ToolCall  # as the model sent it (with the framework's id where it gave none)
    write: bool
    refusal: str | None
    reasons: tuple[HoldReason, ...]
    release: asyncio.Future[CallRelease] = field(compare=False, repr=False)

    @property
    def editable(self) -> bool:
        return self.refusal in (None, "INVALID_ARGUMENTS")

    @property
    def next(self) -> str:
        what = f"{self.call.name or '(no name)'} ({self.call.call_id})"
        if self.refusal is None:
            return f"run {what}"
        return f"answer {what} without running it: {self.refusal}"

    def go(self, release: CallRelease | None = None) -> None:
        """Run it with the model's arguments, or as `release` says: your arguments,
        checked by `edits.go_on_edited`, which makes it."""
        if not self.release.done():
            self.release.set_result(release or CallRelease())


@dataclass(frozen=True, slots=True)
class TurnEndHeld:
    """The turn is about to end, held for a finding or an error result of its last steps
    (breakpoints): it ends when the consumer answers with `go()`."""

    type: ClassVar[Literal["turn_end_held"]] = "turn_end_held"

    turn: int
    step: int  # its last step
    reasons: tuple[HoldReason, ...]
    release: asyncio.Future[None] = field(compare=False, repr=False)

    @property
    def next(self) -> str:
        return f"end turn {self.turn}"

    def go(self) -> None:
        if not self.release.done():
            self.release.set_result(None)


# The loop's holds: each waits for its `go()` (or an edit) before the step it names.
Held = RequestHeld | ToolCallHeld | TurnEndHeld


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """A tool call starts to run."""

    type: ClassVar[Literal["tool_started"]] = "tool_started"

    call_id: str
    name: str
    arguments: JsonObject | None  # None when the JSON could not be parsed
    raw_arguments: str  # as it runs: the model's text, or yours (`edit`)
    edit: ArgumentsEdit | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """One per tool call, in call order; `result` is what the model will see."""

    type: ClassVar[Literal["tool_finished"]] = "tool_finished"

    call_id: str
    name: str
    arguments: JsonObject | None
    result: Any
    error: str | None  # error code, or None
    elapsed_ms: float
    changes: tuple[RowChange, ...] = ()
    producer: Producer = "framework"
    # The step it is: the call run by the framework (or answered without running), its
    # result appended under its tool_call_id.
    step: int = field(default=0, compare=False)
    edit: ArgumentsEdit | None = field(default=None, compare=False)  # it ran with your arguments


@dataclass(frozen=True, slots=True)
class CustomerBound:
    """The conversation now acts for this customer: the user id the customer gave, confirmed
    by the tool call `call_id` (I1). Writes and private reads follow from it."""

    type: ClassVar[Literal["customer_bound"]] = "customer_bound"

    customer: str
    call_id: str
    tool: str


@dataclass(frozen=True, slots=True)
class LimitReached:
    """A limit of the turn was reached (`kind`); the loop stops there."""

    type: ClassVar[Literal["limit_reached"]] = "limit_reached"

    kind: Literal["tool_calls", "requests", "tokens", "cost"]
    limit: float
    message: str


@dataclass(frozen=True, slots=True)
class GroundingWarning:
    """A reply states what nothing in the conversation supports (agent/grounding.py)."""

    type: ClassVar[Literal["grounding_warning"]] = "grounding_warning"

    request: int
    unsupported: tuple[str, ...]  # the values and claims of `findings`, as written
    text: str
    findings: tuple[Finding, ...] = ()  # each with its kind and why it is unsupported

    @classmethod
    def of(cls, request: int, text: str, findings: tuple[Finding, ...]) -> GroundingWarning:
        return cls(request, tuple(finding.value for finding in findings), text, findings)

    def describe(self) -> str:
        """One line for a person: each value or claim with why it is unsupported."""
        if not self.findings:
            return "not found in any tool result or customer message: " + ", ".join(
                self.unsupported
            )
        return "; ".join(finding.describe() for finding in self.findings)


@dataclass(frozen=True, slots=True)
class ResponseStalled:
    """Nothing has come from the server for `silent_s` seconds while a request waits for
    its answer (said again each `LoopOptions.stall_notice` seconds while it lasts)."""

    type: ClassVar[Literal["response_stalled"]] = "response_stalled"

    request: int
    silent_s: float
    received: int  # pieces of the answer this attempt received before the silence (0: none)

    def describe(self) -> str:
        """'no data for 20 s, after 3 pieces of the answer; still waiting…'."""
        silent = f"{self.silent_s:.0f}" if self.silent_s >= 1 else f"{self.silent_s:.2g}"
        if self.received == 0:
            what = ": nothing of the answer yet (a local model may still be reading the prompt)"
        else:
            plural = "s" if self.received != 1 else ""
            what = f", after {self.received} piece{plural} of the answer"
        return f"no data for {silent} s{what}; still waiting…"


@dataclass(frozen=True, slots=True)
class RetryScheduled:
    """A failed request is tried again after `delay_s` seconds."""

    type: ClassVar[Literal["retry_scheduled"]] = "retry_scheduled"

    attempt: int
    delay_s: float
    reason: str
    request: int | None = None  # the request retried
    # Pieces of the failed attempt already yielded: void now. The next attempt's pieces are
    # the answer from its start (a front end shows only what goes beyond what it showed).
    pieces_shown: int = 0


@dataclass(frozen=True, slots=True)
class ErrorOccurred:
    """A failure the turn could not recover from; `message` is one plain sentence."""

    type: ClassVar[Literal["error_occurred"]] = "error_occurred"

    kind: str  # "auth", "not_found", "rate_limit", "server", "timeout", "connection", …
    message: str
    hint: str | None = None
    status: int | None = None


TurnEnd = Literal["answered", "tool_call_limit", "request_limit", "budget", "error", "cancelled"]


@dataclass(frozen=True, slots=True)
class TurnFinished:
    """The turn is over: why, and what it used."""

    type: ClassVar[Literal["turn_finished"]] = "turn_finished"

    turn: int
    reason: TurnEnd
    usage: Usage
    cost: float | None


AgentEvent = (
    TurnStarted
    | TurnResumed
    | RequestHeld
    | RequestSent
    | TextDelta
    | ReasoningDelta
    | ToolCallDelta
    | PromptProgress
    | AssistantMessage
    | ToolCallsRecovered
    | UsageReported
    | ApprovalRequested
    | ToolCallHeld
    | ToolStarted
    | ToolFinished
    | CustomerBound
    | LimitReached
    | GroundingWarning
    | ResponseStalled
    | RetryScheduled
    | ErrorOccurred
    | TurnEndHeld
    | TurnFinished
)
