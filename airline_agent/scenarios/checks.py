"""A scenario's expectations checked against what happened: one function per turn and per
tool call, shared by `replay` (runner.py, which gathers every finding into a report) and
the TUI's playback (which says at once, where it happens, that a playback diverged).

A finding is a `Failure` (an expectation that did not hold: a tool ok where an error was
expected, another error code, a field's value, the turn's warnings or end) or a `Drift`
(a tool result other than the one recorded in the file).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from airline_agent.agent.events import (
    AgentEvent,
    ErrorOccurred,
    GroundingWarning,
    LimitReached,
    ToolFinished,
    TurnFinished,
)
from airline_agent.scenarios.dbdiff import MISSING, changed_paths, get_path
from airline_agent.scenarios.model import CallCheck, FindingCheck, Turn


@dataclass(frozen=True)
class Failure:
    """One expectation that did not hold."""

    where: str  # "turn 1, call 2 (get_reservation_details)", "database", …
    what: str  # the expectation, e.g. "error code", "field status"
    expected: object
    actual: object

    def __str__(self) -> str:
        return f"{self.where}: {self.what}: expected {show(self.expected)}, got {show(self.actual)}"

    def brief(self) -> str:
        """What was expected and what came, in words: 'expected POLICY_VIOLATION, got ok'."""
        return f"expected {plain(self.expected)}, got {plain(self.actual)}"


@dataclass(frozen=True)
class Drift:
    """A tool result that differs from the one recorded in the file."""

    where: str
    differences: tuple[str, ...]  # "path: recorded → now"

    def __str__(self) -> str:
        return f"{self.where}: result differs from the recording: {'; '.join(self.differences)}"

    def brief(self) -> str:
        first = self.differences[0] if self.differences else ""
        more = f" (and {len(self.differences) - 1} more)" if len(self.differences) > 1 else ""
        return f"the result differs from the recording: {first}{more}"


Finding = Failure | Drift


def call_where(turn: int, index: int, tool: str) -> str:
    return f"turn {turn}, call {index} ({tool})"


def check_call(where: str, check: CallCheck, event: ToolFinished) -> list[Finding]:
    """What of `check` the tool call `event` did not give (nothing: it did)."""
    if event.name != check.tool:
        return []  # reported once, as a different sequence of tools (check_turn)
    found: list[Finding] = []
    if check.ok is True and event.error is not None:
        message = event.result.get("message") if isinstance(event.result, dict) else None
        came = f"error {event.error}" + (f" ({message})" if message else "")
        found.append(Failure(where, "result", "ok", came))
    if check.ok is False and event.error is None:
        found.append(Failure(where, "result", "an error", "ok"))
    if check.error is not None and event.error != check.error:
        found.append(Failure(where, "error code", check.error, event.error or "ok"))
    for path in check.has:
        if get_path(event.result, path) is MISSING:
            found.append(Failure(where, f"field {path}", "present", "missing"))
    for path, value in check.equals.items():
        actual = get_path(event.result, path)
        if not same(value, actual):
            found.append(Failure(where, f"field {path}", value, actual))
    if check.has_recording and check.recorded != event.result:
        found.append(Drift(where, tuple(differences(check.recorded, event.result))))
    return found


def check_calls(number: int, turn: Turn, finished: Sequence[ToolFinished]) -> list[Finding]:
    """Each tool call of the turn against its check, in order; a missing call too."""
    found: list[Finding] = []
    for index, check in enumerate(turn.expect.calls or [], start=1):
        where = call_where(number, index, check.tool)
        if index > len(finished):
            found.append(Failure(where, "call made", check.tool, "no such call"))
        else:
            found.extend(check_call(where, check, finished[index - 1]))
    return found


def check_turn(number: int, turn: Turn, events: Sequence[AgentEvent], unused: int) -> list[Finding]:
    """Everything the turn was expected to do, against its events: the tools called and
    their results, the warnings and grounding findings, how it ended, and every scripted
    response used
    (`unused`: how many were left)."""
    where = f"turn {number}"
    finished = [e for e in events if isinstance(e, ToolFinished)]
    expect = turn.expect
    found: list[Finding] = []
    names = [e.name for e in finished]
    if expect.tool_names is not None and names != expect.tool_names:
        found.append(Failure(where, "tools called", expect.tool_names, names))
    found.extend(check_calls(number, turn, finished))
    warnings = sorted(
        {"grounding" for e in events if isinstance(e, GroundingWarning)}
        | {"limit" for e in events if isinstance(e, LimitReached)}
    )
    if warnings != sorted(set(expect.warnings)):
        unsupported = [v for e in events if isinstance(e, GroundingWarning) for v in e.unsupported]
        actual: object = warnings
        if unsupported:
            actual = f"{warnings} (unsupported: {', '.join(unsupported)})"
        found.append(Failure(where, "warnings", sorted(set(expect.warnings)), actual))
    found.extend(check_findings(where, expect.findings, events))
    end = next((e.reason for e in events if isinstance(e, TurnFinished)), None)
    if expect.end is not None and end != expect.end:
        errors = [e.message for e in events if isinstance(e, ErrorOccurred)]
        actual = f"{end} ({errors[0]})" if errors else end
        found.append(Failure(where, "turn ended", expect.end, actual))
    if unused:
        used = len(turn.responses) - unused
        found.append(Failure(where, "scripted responses used", len(turn.responses), used))
    return found


def check_findings(
    where: str, expected: Sequence[FindingCheck], events: Sequence[AgentEvent]
) -> list[Finding]:
    """Each grounding finding the turn was expected to raise (by kind and/or value)."""
    raised = [f for e in events if isinstance(e, GroundingWarning) for f in e.findings]
    missing: list[Finding] = []
    for check in expected:
        if not any(check.kind in (None, f.kind) and check.value in (None, f.value) for f in raised):
            wanted = ": ".join(part for part in (check.kind, check.value) if part)
            actual = "; ".join(f"{f.kind}: {f.value}" for f in raised) or "none"
            missing.append(Failure(where, "grounding finding", wanted, actual))
    return missing


def same(expected: object, actual: object) -> bool:
    """Equal as JSON values; `null` also matches a field that is absent."""
    if expected is None and actual is MISSING:
        return True
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    return expected == actual


def differences(recorded: object, now: object, limit: int = 6) -> list[str]:
    if not isinstance(recorded, dict | list) or not isinstance(now, dict | list):
        return [f"{show(recorded)} → {show(now)}"]
    paths = changed_paths(recorded, now)
    shown = [
        f"{path}: {show(get_path(recorded, path))} → {show(get_path(now, path))}"
        for path in paths[:limit]
    ]
    if len(paths) > limit:
        shown.append(f"… {len(paths) - limit} more")
    return shown


def show(value: object, limit: int = 120) -> str:
    """A value as JSON, cut at `limit` characters."""
    if value is MISSING:
        return "<missing>"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plain(value: object, limit: int = 80) -> str:
    """A value for a sentence: text as it is, anything else as JSON."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[: limit - 1] + "…"
    return show(value, limit)
