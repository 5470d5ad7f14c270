"""One trial: the agent and the simulated customer on one task, on its own database copy.

Each customer message is one turn of the agent's loop (approvals answered yes: the
customer consents in words, as in τ²). As this project runs it (`--like ours`): our system
prompt, tools and customer, the guard as chosen; the customer speaks first, and the call
ends when the customer writes a stop signal, when the agent has transferred it to a human
(`transfer_to_human_agents` succeeded), after `max_turns` customer messages, or on a
failure. As τ²'s runner runs it (`--like tau2`, evaluation/like_tau2.py): τ²'s agent and
customer, τ²'s greeting first, and τ²'s ends (steps, tool errors, the customer's stop).
Then the final database is compared with the task's reference end state and the agent's
messages with `communicate_info`.

What a trial leaves: its record (`TrialResult`, a line of results.json), its log (every
customer message and agent event, for tau2_results.json) and its scenario file (the
customer's messages and the agent model's responses as they happened, the final
database as the expectation: `replay` reproduces the run offline).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, cast

from airline_agent.agent.events import (
    AgentEvent,
    AssistantMessage,
    ErrorOccurred,
    GroundingWarning,
    LimitReached,
    ToolCallsRecovered,
    ToolFinished,
    TurnStarted,
    Usage,
)
from airline_agent.agent.options import LoopOptions
from airline_agent.agent.prompt import TAU2_GREETING
from airline_agent.agent.usage import Spend
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.evaluation.customer import (
    CustomerMessage,
    CustomerSimulator,
    CustomerUnavailable,
    StopSignal,
)
from airline_agent.evaluation.customer_check import CustomerCheck, InventedFact
from airline_agent.evaluation.like_tau2 import TEMPERATURE, StepCount, Tau2Setting
from airline_agent.evaluation.reward import (
    CommunicateCheck,
    DatabaseCheck,
    EndStates,
    ReferenceStates,
    agent_messages,
    communicate_check,
    database_check,
    reward_of,
    touched,
)
from airline_agent.evaluation.tasks import EvalTask, file_stem
from airline_agent.scenarios.model import ScenarioSettings
from airline_agent.scenarios.recorder import record_scenario, scenario_to_yaml
from airline_agent.stack import EvalBackends, Stack, live_stack
from airline_agent.tools.untrusted import JsonValue

if TYPE_CHECKING:
    from airline_agent.config import Settings
    from airline_agent.redaction import Redactor

T = TypeVar("T")

# How a trial ended (results.json's `termination`), and τ²'s TerminationReason for it.
Termination = Literal[
    "customer_stop",
    "customer_transfer",
    "customer_out_of_scope",
    "agent_transfer",
    "max_turns",
    "max_steps",
    "too_many_errors",
    "customer_silent",
    "agent_silent",
    "infrastructure_error",
    "context_window_exceeded",
    "unexpected_error",
]
TAU2_TERMINATION: dict[Termination, str] = {
    "customer_stop": "user_stop",
    "customer_transfer": "user_stop",
    "customer_out_of_scope": "user_stop",
    # τ²'s simulated customer answers a transfer with ###TRANSFER###: its user_stop.
    "agent_transfer": "user_stop",
    "max_turns": "max_steps",
    "max_steps": "max_steps",
    "too_many_errors": "too_many_errors",
    "customer_silent": "user_error",
    # τ²'s orchestrator refuses an empty message (its run fails); said as the agent's error.
    "agent_silent": "agent_error",
    "infrastructure_error": "infrastructure_error",
    "context_window_exceeded": "context_window_exceeded",
    "unexpected_error": "unexpected_error",
}
# τ² evaluates a trial only when it ended by a stop (every other ending scores 0).
EVALUATED = frozenset(t for t, reason in TAU2_TERMINATION.items() if reason == "user_stop")
_BY_SIGNAL: dict[StopSignal, Termination] = {
    "stop": "customer_stop",
    "transfer": "customer_transfer",
    "out_of_scope": "customer_out_of_scope",
}
_CONTEXT_MARKERS = ("context_length", "context length", "maximum context", "context window")


@dataclass(frozen=True)
class TrialSettings:
    """What every trial of a run shares."""

    agent: Settings  # the agent's settings (model, server, prompt, limits, clock)
    customer_model: str
    guard: bool
    max_turns: int
    tau2: Tau2Setting | None = None  # run as τ²'s runner runs it (`--like tau2`)
    # What the scenario files are redacted with: the run's (None: the environment's, made
    # again for every file).
    redactor: Redactor | None = None

    def agent_options(self, seed: int | None) -> LoopOptions | None:
        """The loop's options for a trial as τ² runs it: its request parameters and no
        limit of ours (τ²'s end the call); None: the settings' own."""
        if self.tau2 is None:
            return None
        return LoopOptions(
            model=self.agent.model,
            tool_choice="auto",
            temperature=TEMPERATURE,
            seed=seed,
            stream=False,
            max_tool_calls=self.tau2.max_steps,
            max_requests=self.tau2.max_steps,
            approval="auto",
            stall_notice=self.agent.stall_notice,
        )


@dataclass(frozen=True)
class CustomerSaid:
    """A customer message, in the trial's log (between the agent's events)."""

    turn: int
    message: CustomerMessage
    invented: tuple[InventedFact, ...]
    at: str  # ISO time


@dataclass
class TrialLog:
    """Everything that was said and done, in order."""

    entries: list[CustomerSaid | AgentEvent] = field(default_factory=list)
    event_times: dict[int, str] = field(default_factory=dict)  # id(event) -> ISO time

    @property
    def events(self) -> list[AgentEvent]:
        return [entry for entry in self.entries if not isinstance(entry, CustomerSaid)]


class TrialJson(TypedDict):
    """A trial's line of results.json: `TrialResult.to_json`, each field by its name."""

    task_id: str
    trial: int
    reward: float
    db_match: bool | None
    db_diff: list[dict[str, JsonValue]]
    communicate: dict[str, list[str]]
    termination: Termination
    turns: int
    agent_tokens: dict[str, int]
    user_tokens: dict[str, int]
    cost: dict[str, float | None]
    findings: list[dict[str, str]]
    scenario: str | None
    customer_error: bool
    infra_error: bool
    error: str | None
    seed: int | None
    recovered_tool_calls: int
    nl_assertions: list[str]
    started_at: str
    ended_at: str
    duration_s: float
    attempt: int


@dataclass
class TrialResult:
    """One trial's line of results.json (docs/eval.md documents each field)."""

    task_id: str
    trial: int
    reward: float
    db_match: bool | None  # None: not evaluated
    db_diff: list[dict[str, JsonValue]]  # FieldDifference.to_json's
    communicate: dict[str, list[str]]
    termination: Termination
    turns: int
    agent_tokens: dict[str, int]
    user_tokens: dict[str, int]
    cost: dict[str, float | None]
    findings: list[dict[str, str]]  # who, kind, value, why
    scenario: str | None  # the scenario file, relative to the run folder (None: no turn ran)
    customer_error: bool = False
    infra_error: bool = False
    error: str | None = None
    # `--like tau2`: τ²'s seed of the trial (a re-run after a customer error sends it plus
    # 1000 per attempt before, as τ²'s re-runs do); None: no seed sent.
    seed: int | None = None
    recovered_tool_calls: int = 0
    nl_assertions: list[str] = field(default_factory=list)
    started_at: str = ""
    ended_at: str = ""
    duration_s: float = 0.0
    attempt: int = 1  # >1: re-run after customer errors (--rerun-customer-errors)

    @property
    def counted(self) -> bool:
        """Whether pass^k counts it (infrastructure and customer errors are left out)."""
        return not (self.infra_error or self.customer_error)

    @property
    def success(self) -> bool:
        return abs(self.reward - 1.0) <= 1e-6

    @property
    def strict_success(self) -> bool:
        """Without the framework's help: a trial that needed a recovered call fails."""
        return self.success and self.recovered_tool_calls == 0

    def to_json(self) -> TrialJson:
        # TrialJson names the same fields in the same order (a test holds them together).
        return cast(TrialJson, {name: getattr(self, name) for name in self.__dataclass_fields__})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrialResult:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


@dataclass
class TrialRun:
    record: TrialResult
    log: TrialLog
    scenario_yaml: str | None  # None when the agent never had a turn (nothing to replay)
    write_tools: frozenset[str]
    system_prompt: str
    greeting: str | None = None  # what the agent said before the customer (`--like tau2`)

    @property
    def like_tau2(self) -> bool:
        """Run as τ²'s runner runs it (`--like tau2`), which opens with τ²'s greeting."""
        return self.greeting is not None


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def scenario_name(task_id: str, trial: int) -> str:
    """The name of a trial's files: one to one with (task id, trial), safe for any id."""
    return f"task-{file_stem(task_id)}-trial-{trial}"


async def run_trial(
    task: EvalTask,
    trial: int,
    settings: TrialSettings,
    backends: EvalBackends,
    references: ReferenceStates,
    *,
    attempt: int = 1,
) -> TrialRun:
    """Run one trial to its end; a failure of either model ends it as an error trial
    (never raises for one). Cancellation (Ctrl-C) propagates, leaving nothing behind."""
    started, clock = now_iso(), time.perf_counter()
    name = scenario_name(task.id, trial)
    try:
        reference, reference_touched, (copy, database) = await off_loop(
            lambda: (*references.of(task), references.trial_database(name)),
            undo=lambda made: references.give_back(*made[2]),
        )
    except DatabaseUnavailable as exc:  # a database server that went away (eval --db)
        return _database_failed(task, trial, str(exc), attempt, started, clock)
    try:
        tau2 = settings.tau2
        seed = None if tau2 is None else tau2.trial_seed(trial, attempt)
        stack = live_stack(
            settings.agent,
            guard=settings.guard,
            database=database,
            backend=backends.agent,
            options=settings.agent_options(seed),
            texts=None if tau2 is None else tau2.runner.agent,
        )
        customer = CustomerSimulator(
            backends.customer,
            task.instructions,
            model=settings.customer_model,
            temperature=None if tau2 is None else TEMPERATURE,
            seed=None if tau2 is None else seed,
            system_prompt=None if tau2 is None else tau2.runner.user_prompts[task.id],
        )
        check = CustomerCheck(task.instructions.texts())
        log = TrialLog()
        write_tools = frozenset(n for n in stack.toolbox.names() if stack.toolbox.is_write(n))
        try:
            if tau2 is None:
                termination, error, turns = await _converse(stack, customer, check, log, settings)
            else:
                termination, error, turns = await _converse_as_tau2(
                    stack, customer, check, log, tau2
                )
            keys = set(reference_touched) | touched(
                c for e in log.events if isinstance(e, ToolFinished) for c in e.changes
            )
            try:  # read from the trial's database while it is open
                states = await off_loop(lambda: references.end_states(reference, database, keys))
            except DatabaseUnavailable as exc:
                return _database_failed(task, trial, str(exc), attempt, started, clock)
        finally:
            await off_loop(stack.close)
        record, scenario_yaml = await off_loop(lambda: _score(task, trial, settings, states, log))
    finally:
        # Also when cancelled: nothing of an unfinished trial stays.
        await off_loop(lambda: references.give_back(copy, database))
    record.termination, record.error, record.turns = termination, error, turns
    _settle_reward(task, record, termination)
    record.user_tokens = _tokens(customer.spend.usage)
    record.cost["user"] = customer.spend.cost if customer.spend.complete else None
    record.cost["total"] = _total(record.cost["agent"], record.cost["user"])
    record.started_at, record.ended_at = started, now_iso()
    record.duration_s = round(time.perf_counter() - clock, 3)
    record.attempt = attempt
    record.seed = None if tau2 is None else tau2.trial_seed(trial)
    greeting = None if tau2 is None else TAU2_GREETING
    return TrialRun(record, log, scenario_yaml, write_tools, stack.session.system_prompt, greeting)


async def off_loop(work: Callable[[], T], *, undo: Callable[[T], None] | None = None) -> T:
    """`work()` in a worker thread, off the event loop. A trial's databases and files wait on
    the disk (a copy made, SQLite's sync when a database closes, a file synced before it is
    renamed into place); done on the loop, every other trial's requests waited too, longer
    than for anything else a trial does. Cancelled meanwhile (Ctrl-C), the work is let end,
    and what it made is undone (`undo`), before the cancellation goes on: nothing is left
    half made."""
    running = asyncio.ensure_future(asyncio.to_thread(work))
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        await asyncio.wait([running])
        if undo is not None and not running.cancelled() and running.exception() is None:
            undo(running.result())
        raise


def _database_failed(
    task: EvalTask, trial: int, message: str, attempt: int, started: str, clock: float
) -> TrialRun:
    """A trial that could not have (or read) its database: an infrastructure error, run
    again by --resume (the server may be back)."""
    record = TrialResult(
        task_id=task.id,
        trial=trial,
        reward=0.0,
        db_match=None,
        db_diff=[],
        communicate={"expected": list(task.communicate_info), "missing": []},
        termination="infrastructure_error",
        turns=0,
        agent_tokens=_tokens(Usage()),
        user_tokens=_tokens(Usage()),
        cost={"agent": None, "user": None, "total": None},
        findings=[],
        scenario=None,
        infra_error=True,
        error=f"the trial's database: {message}",
        nl_assertions=list(task.nl_assertions),
        started_at=started,
        ended_at=now_iso(),
        duration_s=round(time.perf_counter() - clock, 3),
        attempt=attempt,
    )
    return TrialRun(record, TrialLog(), None, frozenset(), system_prompt="")


async def _converse(
    stack: Stack,
    customer: CustomerSimulator,
    check: CustomerCheck,
    log: TrialLog,
    settings: TrialSettings,
) -> tuple[Termination, str | None, int]:
    """The call, message by message: (how it ended, the error if any, agent turns)."""
    agent_said: str | None = None
    turns = 0
    while True:
        try:
            message = await customer.speak(agent_said)
        except CustomerUnavailable as exc:
            return "infrastructure_error", str(exc), turns
        invented = check.said(message.said) if message.said else ()
        log.entries.append(CustomerSaid(turns + 1, message, invented, now_iso()))
        if message.stop is not None:
            return _BY_SIGNAL[message.stop], None, turns
        if not message.said:
            return "customer_silent", "the simulated customer sent an empty message", turns
        if turns >= settings.max_turns:
            return "max_turns", None, turns
        turns += 1
        replies: list[str] = []
        failure: ErrorOccurred | None = None
        transferred = False
        async for event in stack.session.run_turn(message.said):
            log.entries.append(event)
            log.event_times[id(event)] = now_iso()
            match event:
                case AssistantMessage(content=content) if content and content.strip():
                    replies.append(content)
                case LimitReached(message=text):
                    replies.append(text)
                case ToolFinished(name="transfer_to_human_agents", error=None):
                    transferred = True
                case ErrorOccurred() as failure:
                    pass
        if failure is not None:
            return _failure_termination(failure), failure.message, turns
        agent_said = "\n\n".join(replies) or "…"
        for reply in replies:
            check.heard(reply)
        if transferred:
            return "agent_transfer", None, turns


async def _converse_as_tau2(
    stack: Stack,
    customer: CustomerSimulator,
    check: CustomerCheck,
    log: TrialLog,
    tau2: Tau2Setting,
) -> tuple[Termination, str | None, int]:
    """The call as τ²'s orchestrator runs it: the agent's greeting first, then message by
    message, counting its steps and tool errors (evaluation/like_tau2.py)."""
    count = StepCount(tau2.max_steps, tau2.max_errors)
    agent_said = TAU2_GREETING
    turns = 0
    while True:
        try:
            message = await customer.speak(agent_said)
        except CustomerUnavailable as exc:
            return "infrastructure_error", str(exc), turns
        invented = check.said(message.said) if message.said else ()
        log.entries.append(CustomerSaid(turns + 1, message, invented, now_iso()))
        ending = count.step()
        if message.stop is not None:
            return ending or _BY_SIGNAL[message.stop], None, turns
        if not message.said:
            return "customer_silent", "the simulated customer sent an empty message", turns
        if ending is not None:
            return ending, None, turns
        turns += 1
        reply: str | None = None
        failure: ErrorOccurred | None = None
        waiting: set[str] = set()  # the calls of the agent's last message not answered yet
        errors = 0
        async with aclosing(stack.session.run_turn(message.said)) as events:
            async for event in events:
                log.entries.append(event)
                log.event_times[id(event)] = now_iso()
                match event:
                    case AssistantMessage(tool_calls=calls) if calls:
                        waiting, errors = {call.call_id for call in calls}, 0
                        count.step(to_tools=True)
                    case AssistantMessage(content=content):
                        reply = content
                        ending = count.step()
                    case ToolFinished(call_id=call_id, error=error) if call_id in waiting:
                        waiting.discard(call_id)
                        errors += error is not None
                        if not waiting:
                            ending = count.step(errors=errors)
                    case ErrorOccurred() as failure:
                        pass
                if ending is not None:
                    break  # τ² sends nothing more: the turn is left where it is
        if ending is not None:
            return ending, None, turns
        if failure is not None:
            return _failure_termination(failure), failure.message, turns
        if not (reply and reply.strip()):
            return "agent_silent", "the agent sent an empty message", turns
        agent_said = reply
        check.heard(reply)


def _failure_termination(failure: ErrorOccurred) -> Termination:
    text = f"{failure.kind} {failure.message}".lower()
    if any(marker in text for marker in _CONTEXT_MARKERS):
        return "context_window_exceeded"
    if failure.kind == "internal":
        return "unexpected_error"
    return "infrastructure_error"  # the server: unreachable, 4xx/5xx after retries, …


def _score(
    task: EvalTask,
    trial: int,
    settings: TrialSettings,
    states: EndStates,
    log: TrialLog,
) -> tuple[TrialResult, str | None]:
    events = log.events
    database = database_check(states)
    communicate = communicate_check(task, agent_messages(events))
    spend = Spend.of(events)
    usage = spend.usage
    agent_cost = None if spend.cost is None else round(spend.cost, 6)
    findings: list[dict[str, str]] = []
    for entry in log.entries:
        if isinstance(entry, CustomerSaid):
            findings += [
                {"who": "customer", "kind": f.kind, "value": f.value, "why": f.describe()}
                for f in entry.invented
            ]
        elif isinstance(entry, GroundingWarning):
            findings += [
                {"who": "agent", "kind": f.kind, "value": f.value, "why": f.why}
                for f in entry.findings
            ]
    name = scenario_name(task.id, trial)
    scenario = None
    if any(isinstance(e, TurnStarted) for e in events):  # else the agent never had a turn
        scenario = record_scenario(
            events,
            name=name,
            description=f"τ² airline task {task.id}, trial {trial}, as `airline-agent eval` ran.",
            dataset="tau2",
            settings=_scenario_settings(settings),
            changes=states.changes(),
        )
    record = TrialResult(
        task_id=task.id,
        trial=trial,
        reward=0.0,
        db_match=database.match,
        db_diff=[d.to_json() for d in database.differences],
        communicate={"expected": list(communicate.expected), "missing": list(communicate.missing)},
        termination="customer_stop",
        turns=0,
        agent_tokens=_tokens(usage),
        user_tokens={},
        cost={"agent": agent_cost},
        findings=findings,
        scenario=f"scenarios/{name}.yaml" if scenario else None,
        customer_error=any(f["who"] == "customer" for f in findings),
        recovered_tool_calls=sum(len(e.calls) for e in events if isinstance(e, ToolCallsRecovered)),
        nl_assertions=list(task.nl_assertions),
    )
    return record, scenario_to_yaml(scenario, settings.redactor) if scenario else None


def _scenario_settings(settings: TrialSettings) -> ScenarioSettings:
    """How the trial's scenario replays as it ran: with τ²'s, its limits and the tools'
    answers as τ²'s (the agent's texts do not matter to a replay: its replies are scripted)."""
    tau2 = settings.tau2
    return ScenarioSettings(
        guard=settings.guard,
        approval="auto",
        max_tool_calls=settings.agent.max_tool_calls if tau2 is None else tau2.max_steps,
        max_requests=None if tau2 is None else tau2.max_steps,
        model=settings.agent.model or "scripted",
        now=settings.agent.now,
        tool_results=None if tau2 is None else "tau2",
    )


def _settle_reward(task: EvalTask, record: TrialResult, termination: Termination) -> None:
    """The reward once the ending is known: τ² scores only a trial that ended by a stop."""
    evaluated = termination in EVALUATED
    record.infra_error = termination == "infrastructure_error"
    if not evaluated:
        record.db_match = None
    database = DatabaseCheck(bool(record.db_match), ())
    communicate = CommunicateCheck(
        tuple(record.communicate["expected"]), tuple(record.communicate["missing"])
    )
    record.reward = reward_of(task, database, communicate, evaluated=evaluated)


def _tokens(usage: Usage) -> dict[str, int]:
    return {
        "prompt": usage.prompt_tokens,
        "completion": usage.completion_tokens,
        "cached": usage.cached_tokens,
        "total": usage.total_tokens,
    }


def _total(*costs: float | None) -> float | None:
    return None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 6)
