"""Transcripts of a conversation, from the loop's events.

- JSONL: one line per model request, in Chat Completions shape: the exact request body
  (`model`, `messages`, `tools` and the parameters), the response (`choices[0].message`,
  `finish_reason`, `usage`), and the tool results the response led to. A request on the
  Responses wire (`--api responses`) has its own exact body (`instructions`, `input`, …)
  and the `response` object the server sent (or that was generated for it offline).
- Markdown: the same conversation for reading.

The events never carry the API key, but a customer may type one or a model repeat it:
both files are redacted (`airline_agent.redaction`; by default with the settings of the
environment). What a terminal would obey (escape sequences, C1 controls, bidi overrides:
`airline_agent.terminal_text`) is written as its escape in both, so that `cat` shows it and
runs nothing: in the Markdown as visible text, in the JSONL as JSON's own `\\u` escapes
(the values read back the same). A request's time to the first token and generation speed
are written where they were measured (a streamed answer), never as 0.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Literal, NotRequired, TypedDict

from airline_agent.agent.events import (
    AgentEvent,
    AssistantMessage,
    ErrorOccurred,
    GroundingWarning,
    LimitReached,
    RequestSent,
    ToolFinished,
    TurnFinished,
    TurnStarted,
    Usage,
    UsageReported,
)
from airline_agent.agent.model_reply import ReceivedMessage, ReportedUsage
from airline_agent.output_files import OutputPermissions
from airline_agent.redaction import REDACTED, Redactor, as_redactor
from airline_agent.terminal_text import escape_controls

Secrets = Redactor | Sequence[str] | None
__all__ = [
    "REDACTED",
    "to_jsonl",
    "to_markdown",
    "transcript_files",
    "transcript_lines",
    "write_transcript",
]
MARKDOWN_RESULT_LIMIT = 1500  # characters of a tool result shown in Markdown; JSONL has all


class TranscriptToolResult(TypedDict):
    """A tool's result in a transcript line: the `role: tool` message, timed."""

    role: Literal["tool"]
    tool_call_id: str
    name: str
    content: str
    error: str | None
    elapsed_ms: float


class TranscriptLine(TypedDict):
    """One line of a transcript's JSONL: a request's body, its response in the wire's
    shape, the tool results that followed, what it cost and how long it took."""

    turn: int
    request: int
    body: dict[str, object]
    response: dict[str, object] | None
    tool_results: list[TranscriptToolResult]
    cost: NotRequired[float | None]
    first_token_ms: NotRequired[float]
    tokens_per_second: NotRequired[float]
    latency_ms: NotRequired[float]
    grounding: NotRequired[list[dict[str, object]]]


def usage_body(usage: Usage | None) -> ReportedUsage | None:
    return None if usage is None else usage.as_reported()


def message_body(message: AssistantMessage) -> ReceivedMessage:
    return message.as_received()


def transcript_lines(events: Iterable[AgentEvent]) -> list[TranscriptLine]:
    """One line per request, in the order they were sent. A request's usage is reported
    just before its message: it is kept until the message comes."""
    lines: list[TranscriptLine] = []
    by_request: dict[int, TranscriptLine] = {}
    usage: dict[int, UsageReported] = {}
    for event in events:
        match event:
            case RequestSent():
                by_request[event.request] = line = _request_line(event)
                lines.append(line)
            case UsageReported() if event.request in by_request:
                usage[event.request] = event
                line = by_request[event.request]
                line["cost"] = event.cost
                if event.first_token_ms is not None:
                    line["first_token_ms"] = round(event.first_token_ms, 1)
                if event.tokens_per_second is not None:
                    line["tokens_per_second"] = round(event.tokens_per_second, 1)
                response = line["response"]
                if response is not None and "output" not in response:
                    response["usage"] = usage_body(event.usage)
            case AssistantMessage() if event.request in by_request:
                line = by_request[event.request]
                reported = usage.get(event.request)
                line["response"] = _response_body(line, event, reported)
                line["latency_ms"] = round(event.latency_ms, 1)
            case ToolFinished() if lines:
                lines[-1]["tool_results"].append(
                    {
                        "role": "tool",
                        "tool_call_id": event.call_id,
                        "name": event.name,
                        "content": _content(event.result),
                        "error": event.error,
                        "elapsed_ms": round(event.elapsed_ms, 2),
                    }
                )
            case GroundingWarning() if event.request in by_request:
                by_request[event.request]["grounding"] = [asdict(f) for f in event.findings]
    return lines


def _request_line(event: RequestSent) -> TranscriptLine:
    body: dict[str, object] = {
        "model": event.model,
        "messages": event.messages,
        "tools": event.tools,
    }
    return {
        "turn": event.turn,
        "request": event.request,
        "body": body | event.params if event.body is None else event.body,
        "response": None,
        "tool_results": [],
    }


def _response_body(
    line: TranscriptLine, event: AssistantMessage, usage: UsageReported | None
) -> dict[str, object]:
    if event.raw is not None and event.raw.api == "responses":
        return dict(event.raw.assembled)  # the `response` object, its usage in it
    return {
        "object": "chat.completion",
        "model": line["body"]["model"],
        "choices": [
            {"index": 0, "message": message_body(event), "finish_reason": event.finish_reason}
        ],
        "usage": usage_body(usage.usage) if usage is not None else None,
    }


def to_jsonl(events: Iterable[AgentEvent], secrets: Secrets = None) -> str:
    redactor = as_redactor(secrets)
    entries = redactor.redact_json(transcript_lines(events))
    lines = [escape_controls(json.dumps(entry, ensure_ascii=False)) for entry in entries]
    return "\n".join(lines) + "\n" if lines else ""


def to_markdown(events: Iterable[AgentEvent], title: str, secrets: Secrets = None) -> str:
    redactor = as_redactor(secrets)
    out: list[str] = [f"# {title}", ""]
    for event in events:
        match event:
            case TurnStarted():
                out += [f"## Turn {event.turn}", "", f"**Customer:** {event.user_text}", ""]
            case UsageReported():
                out += [f"_{_usage_line(event)}_", ""]
            case AssistantMessage():
                if event.reasoning:
                    out += ["> " + line for line in event.reasoning.splitlines()] + [""]
                for call in event.tool_calls:
                    out.append(f"**Tool call** `{call.name}` `{call.arguments}`")
                if event.tool_calls:
                    out.append("")
                if event.content:
                    out += [f"**Agent:** {event.content}", ""]
            case ToolFinished():
                verdict = f"error {event.error}" if event.error else "ok"
                # Redacted before it is cut: a secret across the cut leaves no start.
                text = redactor.redact(_content(event.result))
                if len(text) > MARKDOWN_RESULT_LIMIT:
                    text = text[:MARKDOWN_RESULT_LIMIT] + " …"
                out += [
                    f"**Result** of `{event.name}`: {verdict} ({event.elapsed_ms:.1f} ms)",
                    "",
                    "```json",
                    text,
                    "```",
                    "",
                ]
                for change in event.changes:
                    action = "inserted" if change.before is None else "updated"
                    if change.after is None:
                        action = "deleted"
                    out.append(f"- database: {change.table} `{change.key}` {action}")
                if event.changes:
                    out.append("")
            case GroundingWarning():
                out += [f"⚠ **Grounding:** {event.describe()}", ""]
            case LimitReached():
                out += [f"⚠ **Limit:** {event.message}", ""]
            case ErrorOccurred():
                out += [f"✖ **Error** ({event.kind}): {event.message}", ""]
            case TurnFinished():
                total = event.usage
                cost = f", ${event.cost:.6f}" if event.cost is not None else ""
                out += [
                    f"_Turn {event.turn} ended: {event.reason}; {total.prompt_tokens} prompt + "
                    f"{total.completion_tokens} completion tokens{cost}_",
                    "",
                ]
    return escape_controls(redactor.redact("\n".join(out).rstrip() + "\n"))


def transcript_files(directory: str | Path, name: str) -> tuple[Path, Path]:
    """The two files a transcript called `name` is written to in `directory`."""
    folder = Path(directory)
    return folder / f"{name}.jsonl", folder / f"{name}.md"


def write_transcript(
    events: Sequence[AgentEvent],
    directory: str | Path,
    name: str,
    secrets: Secrets = None,
    *,
    outputs: OutputPermissions | None = None,
) -> tuple[Path, Path]:
    """Write `<name>.jsonl` and `<name>.md` into `directory`; returns both paths.

    `secrets`: the redactor to use, or secrets to blank out besides the environment's.
    Both files are checked before either is written, each written beside and renamed
    into place; an existing file is replaced only where `outputs` allows it (by default:
    never). OSError (OutputRefused) when refused."""
    secrets = as_redactor(secrets)
    jsonl, markdown = transcript_files(directory, name)
    texts = [(jsonl, to_jsonl(events, secrets)), (markdown, to_markdown(events, name, secrets))]
    (outputs or OutputPermissions()).write_texts(texts)
    return jsonl, markdown


def _content(result: object) -> str:
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)


def _usage_line(event: UsageReported) -> str:
    if event.usage is None:
        return (
            f"request {event.request}: no usage reported ({event.latency_ms:.0f} ms)"
            f"{_timing_text(event)}"
        )
    u = event.usage
    parts = [f"{u.prompt_tokens} prompt", f"{u.completion_tokens} completion"]
    if u.cached_tokens:
        parts.append(f"{u.cached_tokens} cached")
    if u.reasoning_tokens:
        parts.append(f"{u.reasoning_tokens} reasoning")
    cost = f" · ${event.cost:.6f}" if event.cost is not None else " · cost unknown"
    return (
        f"request {event.request}: {' + '.join(parts)} tokens{cost} · "
        f"{event.latency_ms:.0f} ms{_timing_text(event)}"
    )


def _timing_text(event: UsageReported) -> str:
    return "".join(
        f" · {label}" for label in _timing_labels(event.first_token_ms, event.tokens_per_second)
    )


def _timing_labels(first_token_ms: float | None, tokens_per_second: float | None) -> list[str]:
    """`first token 310 ms`, `41.5 tokens/s`: each only when it was measured, never a 0."""
    labels = []
    if first_token_ms is not None:
        labels.append(f"first token {first_token_ms:.0f} ms")
    if tokens_per_second is not None:
        labels.append(f"{tokens_per_second:.1f} tokens/s")
    return labels
