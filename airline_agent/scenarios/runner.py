"""Replaying scenarios: the real loop, the real tools, a real database; only the model is
scripted. Each scenario runs on its own fresh copy of its dataset.

A report says, for every expectation that did not hold, which one it was, what was
expected and what happened. When the tools now return something other than the results
recorded in the file, that is reported as drift, with the difference.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from airline_agent.agent.cancelled import cancelled_turn
from airline_agent.agent.events import (
    AgentEvent,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    Usage,
)
from airline_agent.agent.loop import AgentSession
from airline_agent.agent.steps import describe_step
from airline_agent.choices import Api
from airline_agent.scenarios import datasets, tau2_runs
from airline_agent.scenarios.checks import Drift, Failure, check_turn, same, show
from airline_agent.scenarios.dbdiff import (
    MISSING,
    RecordChange,
    changed_paths,
    changed_records,
    covers,
    export_records,
    get_path,
)
from airline_agent.scenarios.model import Scenario, Turn
from airline_agent.scenarios.script import ScenarioScript
from airline_agent.stack import Stack, open_existing_database, scenario_stack, scripted_backend

__all__ = ["Drift", "Failure", "ScenarioReport", "replay_scenario", "replay_scenario_async"]

Status = Literal["passed", "failed", "drift", "skipped", "error"]


@dataclass
class ScenarioReport:
    name: str
    status: Status
    turns: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    cost: float | None = None
    elapsed_ms: float = 0.0
    failures: list[Failure] = field(default_factory=list)
    drift: list[Drift] = field(default_factory=list)
    reason: str | None = None  # why it was skipped or could not run
    changes: list[RecordChange] = field(default_factory=list)
    events: list[AgentEvent] = field(default_factory=list, repr=False)
    ends: list[str | None] = field(default_factory=list)  # how each turn ended, in order
    path: Path | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("passed", "skipped")

    @property
    def tokens(self) -> int:
        return self.usage.total_tokens

    def why(self) -> str:
        """The first reason it did not pass, in one line ('' when it passed)."""
        if self.reason:
            return self.reason
        first = [str(d) for d in self.drift] + [str(f) for f in self.failures]
        more = len(self.drift) + len(self.failures) - 1
        if not first:
            return ""
        return first[0] + (f" (and {more} more)" if more > 0 else "")

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "path": str(self.path) if self.path else None,
            "status": self.status,
            "turns": self.turns,
            "turn_ends": self.ends,
            "tool_calls": self.tool_calls,
            "tokens": self.tokens,
            "usage": {
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
                "cached_tokens": self.usage.cached_tokens,
                "reasoning_tokens": self.usage.reasoning_tokens,
            },
            "cost": self.cost,
            "elapsed_ms": round(self.elapsed_ms, 1),
            "reason": self.reason,
            "failures": [
                {
                    "where": f.where,
                    "what": f.what,
                    "expected": _json_safe(f.expected),
                    "actual": _json_safe(f.actual),
                }
                for f in self.failures
            ],
            "drift": [{"where": d.where, "differences": list(d.differences)} for d in self.drift],
            "changed_records": [f"{c.kind}/{c.key}" for c in self.changes],
        }


def replay_scenario(
    scenario: Scenario, *, path: Path | None = None, keep_events: bool = True, api: Api = "chat"
) -> ScenarioReport:
    """Replay one scenario on a fresh copy of its dataset and check its expectations.

    `keep_events=False` leaves `report.events` empty: each request's event holds the
    whole history so far, so keeping them all grows with the square of the turns. `api`:
    the wire its scripted answers are generated on (a scenario replays the same on either).
    """
    replayed = replay_scenario_async(scenario, path=path, keep_events=keep_events, api=api)
    return asyncio.run(replayed)


async def replay_scenario_async(
    scenario: Scenario,
    *,
    path: Path | None = None,
    keep_events: bool = True,
    api: Api = "chat",
) -> ScenarioReport:
    started = time.perf_counter()
    path = path or scenario.source
    try:
        copy, original = datasets.fresh_copy(scenario.dataset, scenario.name)
    except datasets.DatasetUnavailable as exc:
        return ScenarioReport(scenario.name, "skipped", reason=str(exc), path=path)
    report = ScenarioReport(scenario.name, "passed", path=path)
    try:
        await _converse(scenario, copy, report, keep_events=keep_events, api=api)
        _check_database(scenario, original, copy, report)
    except Exception as exc:  # reported, with its type, as this scenario's result
        report.status, report.reason = "error", f"{type(exc).__name__}: {exc}"
        return report
    finally:
        datasets.discard(copy)
    report.elapsed_ms = (time.perf_counter() - started) * 1000
    if report.drift:
        report.status = "drift"
    elif report.failures:
        report.status = "failed"
    return report


async def _converse(
    scenario: Scenario, copy: Path, report: ScenarioReport, *, keep_events: bool, api: Api
) -> None:

    stack = scenario_stack(scenario, open_existing_database(copy), api=api)
    try:
        backend = scripted_backend(stack)
        async for number, turn, events in play_turns(scenario, stack):
            if keep_events:
                report.events.extend(events)
            report.ends.append(_end_of(events))
            report.turns += 1
            report.tool_calls += sum(isinstance(e, ToolFinished) for e in events)
            for finding in check_turn(number, turn, events, backend.remaining):
                if isinstance(finding, Drift):
                    report.drift.append(finding)
                else:
                    report.failures.append(finding)
        report.usage = stack.session.spend.usage
        report.cost = stack.session.spend.cost
    finally:
        stack.close()


async def play_turns(
    scenario: Scenario, stack: Stack, *, stop_at: int | None = None
) -> AsyncIterator[tuple[int, Turn, list[AgentEvent]]]:
    """The scenario's turns played on `stack` (a scripted stack: its script loaded turn by
    turn, its approval questions answered as the scenario says, a cancelled turn
    cancelled where its recording ends): each turn's number, the turn and its events.
    `stop_at`: stop right after step `stop_at` (agent/steps.py), that turn cancelled
    there; nothing of the next step has happened."""
    script = ScenarioScript(scenario, scripted_backend(stack))
    for number, turn in enumerate(scenario.turns, start=1):
        script.load(turn)
        events = await _play_turn(stack.session, turn, script, stop_at)
        yield number, turn, events
        if stop_at is not None and stack.session.conversation.steps >= stop_at:
            return


async def _play_turn(
    session: AgentSession, turn: Turn, script: ScenarioScript, stop_at: int | None = None
) -> list[AgentEvent]:
    """The turn's events; a cancelled turn is cancelled where its recording ends (and any
    turn right after step `stop_at`)."""
    events: list[AgentEvent] = []
    playing = session.run_turn(turn.customer)
    try:
        async for event in playing:
            if script.cancels(event):
                if not isinstance(event, ToolStarted | ToolFinished):
                    events.append(event)  # a request or a question the customer saw
                break
            script.answer(event)  # an approval question gets the scenario's answer
            events.append(event)
            if stop_at is not None and getattr(event, "step", 0) == stop_at:
                break
    finally:
        await playing.aclose()  # the loop settles its history, as after esc or Ctrl-C
    if not any(isinstance(event, TurnFinished) for event in events):
        events.append(cancelled_turn(events))
    return events


@dataclass(frozen=True)
class StoppedReplay:
    """A scenario played up to a step, on a fresh copy of its dataset (`database`, closed:
    the caller takes it and removes it with `datasets.discard`)."""

    database: Path
    steps: int  # the steps played: `stop_at`, or fewer when the scenario has fewer
    last: str  # what the last step played was, in words ("" for none)


async def replay_to_step(scenario: Scenario, stop_at: int) -> StoppedReplay:
    """The scenario played on a fresh copy of its dataset up to step `stop_at`: the
    database as it was right after it. Raises DatasetUnavailable."""
    copy, _ = datasets.fresh_copy(scenario.dataset, scenario.name)
    last = ""
    try:
        stack = scenario_stack(scenario, open_existing_database(copy))
        try:
            if stop_at > 0:
                async for _, _, events in play_turns(scenario, stack, stop_at=stop_at):
                    last = next(
                        (describe_step(e) for e in reversed(events) if describe_step(e)), last
                    )
            steps = stack.session.conversation.steps
        finally:
            stack.close()  # the last connection folds the log into the file
    except BaseException:
        datasets.discard(copy)
        raise
    return StoppedReplay(copy, min(steps, stop_at), last)


def _end_of(events: list[AgentEvent]) -> str | None:
    return next((e.reason for e in events if isinstance(e, TurnFinished)), None)


def _check_database(scenario: Scenario, original: Path, copy: Path, report: ScenarioReport) -> None:
    expectation = scenario.database
    changed = changed_records(original, copy)
    expected_keys = (
        set()
        if not isinstance(expectation, dict)
        else {(kind, key) for kind, records in expectation.items() for key in records}
    )
    if not changed and not expected_keys:
        return
    before = export_records(original, changed)
    after = export_records(copy, changed | expected_keys)
    for key in sorted(changed):
        old, new = before.get(key), after.get(key)
        paths = tuple(changed_paths(old or {}, new or {}))
        if old is None or new is None or paths:
            report.changes.append(RecordChange(key[0], key[1], old, new, paths))
    if expectation is None:
        return
    if expectation == "unchanged":
        for change in report.changes:
            report.failures.append(
                Failure("database", f"{change.kind} {change.key}", "unchanged", _describe(change))
            )
        return
    for kind, records in expectation.items():
        for record_id, fields in records.items():
            record = after.get((kind, record_id))
            label = f"{kind} {record_id}"
            if fields is None:
                if record is not None:
                    report.failures.append(Failure("database", label, "removed", "still there"))
                continue
            if record is None:
                report.failures.append(Failure("database", label, "present", "no such record"))
                continue
            for path, value in fields.items():
                actual = get_path(record, path)
                if not same(value, actual):
                    report.failures.append(Failure("database", f"{label} {path}", value, actual))
    for change in report.changes:
        label = f"{change.kind} {change.key}"
        expected_records = expectation.get(change.kind, {})
        if change.key not in expected_records:
            report.failures.append(Failure("database", label, "unchanged", _describe(change)))
            continue
        fields = expected_records[change.key]
        if fields is not None and not change.created:
            for path in change.paths:
                if not any(covers(expected, path) for expected in fields):
                    was = get_path(change.before, path)
                    now = get_path(change.after, path)
                    report.failures.append(
                        Failure("database", f"{label} {path}", f"unchanged ({show(was)})", now)
                    )


def _describe(change: RecordChange) -> str:
    if change.created:
        return "created"
    if change.removed:
        return "removed"
    parts = [
        f"{p} {show(get_path(change.before, p))} → {show(get_path(change.after, p))}"
        for p in change.paths[:4]
    ]
    more = f", … {len(change.paths) - 4} more" if len(change.paths) > 4 else ""
    return "changed: " + ", ".join(parts) + more


def _json_safe(value: object) -> object:
    return "<missing>" if value is MISSING else value


def replay_tau2(
    directory: Path, *, verify: bool = False, keep_events: bool = False
) -> list[tau2_runs.TaskReport]:
    """The 50 τ² tasks' reference actions as scripted runs (see `tau2_runs`)."""
    return tau2_runs.replay_tau2(directory, verify=verify, keep_events=keep_events)
