"""The loop's events as the chat shows them: the reply (streamed as it comes), the model's
reasoning in one line before it, one line per tool call, warnings, errors (on stderr),
and a usage line per turn with, per request, the time to the first token and the speed
of generation where they were measured.

Everything goes through `Output`, redacted; a value is redacted before it is shortened,
so that a shortened secret is never shown either.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from airline_agent.agent import events as ev
from airline_agent.agent.prefix import PrefixInfo
from airline_agent.agent.texts import replaced_call_id
from airline_agent.agent.usage import describe_cost, describe_usage
from airline_agent.commands.chat.output import Output

REASONING_WIDTH = 160
ARGUMENTS_WIDTH = 100
ENDED_BY_LIMIT = ("tool_call_limit", "request_limit", "budget")


@dataclass
class _TurnView:
    """What the printer has shown of the running turn."""

    requests: list[ev.UsageReported] = field(default_factory=list)
    last_limit: str | None = None
    reasoning: dict[int, str] = field(default_factory=dict)  # by request, streamed so far
    reasoning_shown: set[int] = field(default_factory=set)
    text_streamed: set[int] = field(default_factory=set)  # requests whose reply streamed in
    printed: dict[int, str] = field(default_factory=dict)  # by request, the text on screen
    # A retried request: the text its new attempt has sent so far, while it only repeats
    # what is already on screen (printed once, never twice).
    retried: dict[int, str] = field(default_factory=dict)
    prefix: PrefixInfo | None = None  # the turn's last prompt prefix (agent/prefix.py)
    prefix_changed: bool = False  # some request of the turn sent another prefix


class Printer:
    """Renders events as compact lines on `out`; errors and hints on `err`."""

    def __init__(self, out: Output, err: Output) -> None:
        self.out, self.err = out, err
        self.view = _TurnView()
        self.streaming = False  # inside an "agent> " line being streamed

    def end_stream(self) -> None:
        if self.streaming:
            self.out.end_pieces()
            self.out.write("\n")
            self.streaming = False

    def show(self, event: ev.AgentEvent) -> None:
        match event:
            case ev.TurnStarted():
                self.view = _TurnView()
            case ev.ReasoningDelta(request=request, text=text):
                self.view.reasoning[request] = self.view.reasoning.get(request, "") + text
            case ev.TextDelta(request=request, text=text) if request in self.view.retried:
                self._stream_retried(request, text)
            case ev.TextDelta(request=request, text=text):
                self._stream_text(request, text)
            case ev.ToolCallDelta(request=request):
                self._show_reasoning(request, self.view.reasoning.get(request))
            case ev.AssistantMessage() as message:
                self._show_message(message)
            case ev.UsageReported() as usage:
                self.view.requests.append(usage)
            case ev.ToolCallsRecovered(calls=calls):
                names = ", ".join(call.name for call in calls)
                self._line(f"  ↻ recovered from text: {names} (the model wrote the call as text)")
            case ev.CustomerBound(customer=customer, tool=tool):
                self._line(f"  ✓ acting for {customer} (confirmed by {tool})")
            case ev.ToolFinished() as done:
                self._show_tool(done)
            case ev.LimitReached(message=message, kind=kind):
                self.view.last_limit = message
                self._line(f"  ! {kind} limit: {message}")
            case ev.RequestSent(prefix=prefix) if prefix is not None:
                self.view.prefix = prefix
                self.view.prefix_changed = self.view.prefix_changed or prefix.unchanged is False
            case ev.GroundingWarning() as warning:
                self._line(f"  ! grounding: {warning.describe()}")
            case ev.ResponseStalled() as stalled:
                self._line(f"  … {stalled.describe()}")
            case ev.RetryScheduled(attempt=attempt, delay_s=delay, reason=reason) as retry:
                self._line(f"  … retry {attempt} in {delay:.1f} s: {reason}")
                self._retrying(retry)
            case ev.ErrorOccurred(message=message, hint=hint):
                self.end_stream()
                self.err.line(f"error: {message}")
                if hint:
                    self.err.line(f"  hint: {hint}")
            case ev.TurnFinished() as finished:
                self._show_end(finished)

    def ask(self, call: ev.PendingWrite) -> None:
        """The approval question for one write call (the answer is read by the chat)."""
        arguments = self._short(json.dumps(call.arguments, ensure_ascii=False), ARGUMENTS_WIDTH)
        self.end_stream()
        self.out.write(f"  ? {call.name} {arguments}\n    {call.preview}\n    approve? [y/N] ")

    # -- pieces -------------------------------------------------------------------------

    def _line(self, text: str) -> None:
        self.end_stream()
        self.out.line(text)

    def _short(self, text: str, limit: int) -> str:
        """One line of at most `limit` characters, redacted first."""
        text = " ".join(self.out.redactor.redact(text).split())
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def _stream_text(self, request: int, text: str) -> None:
        self._show_reasoning(request, self.view.reasoning.get(request))
        if not self.streaming:
            # "…": the reply goes on from the line above (a notice came in between).
            self.out.write("agent> …" if request in self.view.text_streamed else "agent> ")
            self.streaming = True
        self.view.text_streamed.add(request)
        self.view.printed[request] = self.view.printed.get(request, "") + text
        self.out.piece(text)

    def _retrying(self, retry: ev.RetryScheduled) -> None:
        """The failed attempt's pieces are void; what the new one sends from its start is
        compared with what is on screen, and only what goes beyond it is printed."""
        request = retry.request
        if request is None or not retry.pieces_shown:
            return
        if request not in self.view.reasoning_shown:
            self.view.reasoning.pop(request, None)  # not shown yet: gathered again
        if request in self.view.printed:
            self.view.retried[request] = ""

    def _stream_retried(self, request: int, text: str) -> None:
        again = self.view.retried[request] + text
        shown = self.view.printed[request]
        if shown.startswith(again):
            self.view.retried[request] = again  # on screen already
            return
        del self.view.retried[request]
        if again.startswith(shown):
            self._stream_text(request, again[len(shown) :])
            return
        self._restart(request, "differs from")
        self._stream_text(request, again)

    def _restart(self, request: int, how: str) -> None:
        """The retried answer is not the one partly shown: say so, and show it whole."""
        self.view.printed.pop(request, None)
        self.view.text_streamed.discard(request)
        self._line(f"  … the retried answer {how} the part shown above; here it is whole:")

    def _show_reasoning(self, request: int, reasoning: str | None) -> None:
        """The model's reasoning, once per request, before its reply or tool calls."""
        if not reasoning or request in self.view.reasoning_shown:
            return
        self.view.reasoning_shown.add(request)
        self._line(f"  (reasoning) {self._short(reasoning, REASONING_WIDTH)}")

    def _show_message(self, message: ev.AssistantMessage) -> None:
        self._show_reasoning(message.request, message.reasoning)
        # A retry that sent less than was shown of the failed attempt.
        retried = self.view.retried.pop(message.request, None) is not None
        if retried and (message.content or "") != self.view.printed.get(message.request, ""):
            self._restart(message.request, "is shorter than")
        if message.content and message.request not in self.view.text_streamed:
            self._line(f"agent> {message.content}")  # it arrived whole, not streamed
        self.end_stream()
        for position, call in enumerate(message.tool_calls, start=1):
            if call.sent_id is not None:
                self._line(f"  ! {replaced_call_id(position, call)}")

    def _show_tool(self, done: ev.ToolFinished) -> None:
        verdict = "ok" if done.error is None else f"error {done.error}"
        arguments = self._short(json.dumps(done.arguments, ensure_ascii=False), ARGUMENTS_WIDTH)
        self._line(f"  → {done.name} {arguments} {verdict} {done.elapsed_ms:.0f} ms")

    def _show_end(self, finished: ev.TurnFinished) -> None:
        self.end_stream()
        if finished.reason == "cancelled":
            self.out.line("  (turn cancelled; the conversation goes on)")
        if finished.reason in ENDED_BY_LIMIT and self.view.last_limit:
            self.out.line(f"agent> {self.view.last_limit}")
        line = usage_line(finished, self.view.requests, self._prefix_note())
        if line:
            self.out.line(line)

    def _prefix_note(self) -> str:
        """', prefix 2,284 tokens (cl100k) unchanged': whether prompt caches can hit."""
        prefix = self.view.prefix
        if prefix is None:
            return ""
        state = "CHANGED" if self.view.prefix_changed else "unchanged"
        if prefix.unchanged is None and len(self.view.requests) <= 1:
            state = "first request"
        return f", prefix {prefix.size.label} {state}"


def usage_line(
    finished: ev.TurnFinished, requests: list[ev.UsageReported], prefix_note: str = ""
) -> str | None:
    """`  [2100 in / 32 out tokens, 2 requests, $0.0004, first token 310 / 95 ms, 41.5 / 38.0
    tokens/s, prefix 2,279 tokens (cl100k) unchanged]`; None for a turn with no request."""
    if not requests:
        return None
    known = all(request.usage is not None for request in requests)
    tokens = describe_usage(finished.usage if known else None)
    plural = "s" if len(requests) != 1 else ""
    cost = describe_cost(finished.cost)
    measured = timing_note(requests)
    return f"  [{tokens}, {len(requests)} request{plural}, {cost}{measured}{prefix_note}]"


def timing_note(requests: list[ev.UsageReported]) -> str:
    """', first token 310 / 95 ms, 41.5 / 38.0 tokens/s': each request's figure in order,
    `–` for one not measured; a figure no request measured is not shown (never a 0)."""
    firsts = [request.first_token_ms for request in requests]
    speeds = [request.tokens_per_second for request in requests]
    note = ""
    if any(value is not None for value in firsts):
        note += f", first token {_each(firsts, '{:.0f}')} ms"
    if any(value is not None for value in speeds):
        note += f", {_each(speeds, '{:.1f}')} tokens/s"
    return note


def _each(values: list[float | None], style: str) -> str:
    return " / ".join("–" if value is None else style.format(value) for value in values)
