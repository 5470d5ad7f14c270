"""A run in τ²-bench's own results format (its `Results` model), so that τ²'s tools read it
and its evaluator can check every trial.

Each trial is a `SimulationRun`: τ²'s message shapes (`user`, `assistant` with
`tool_calls`, `tool` answering each call by id, each with `turn_idx`, `timestamp`,
`usage`, `cost`), `termination_reason` from τ²'s enum, `reward_info` as τ²'s evaluator
makes it, and `trial`. τ²'s evaluator replays every write of a trajectory in its own
environment and compares the result with the recorded tool message (strictly, as JSON).

One representation is ours, and docs/eval.md says why: **a write that failed here** (the
guard refused it, or the tools answered an error; either way nothing changed) **is left
out of the replayable trajectory**: its call and its answer are kept in the assistant
message's `raw_data` (`airline_agent.not_replayed`). τ² has no way to say "refused before
the environment": its replay would run a call the guard refused (and change the database
where ours did not), or compare our error text with its own exception's text. Left out,
τ²'s replay changes exactly what ours did. Reads and unknown tools are kept: τ² never
replays them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Literal, NotRequired, TypedDict

from airline_agent.agent.events import (
    AssistantMessage,
    ToolCallsRecovered,
    ToolFinished,
    UsageReported,
)
from airline_agent.evaluation.customer import SYSTEM_PROMPT, CustomerMessage
from airline_agent.evaluation.like_tau2 import (
    AGENT_IMPLEMENTATION,
    TEMPERATURE,
    USER_IMPLEMENTATION,
    Tau2Setting,
)
from airline_agent.evaluation.tasks import EvalTask
from airline_agent.evaluation.trial import TAU2_TERMINATION, CustomerSaid, TrialRun
from airline_agent.tools.outcome import result_text
from airline_agent.tools.untrusted import JsonObject, JsonValue

NOT_REPLAYED_WHY = (
    "a write that failed here and changed nothing (the guard refused it, or the tools "
    "answered an error); τ²'s replay would run it, so it is left out of the trajectory"
)


# -- τ²'s shapes (its pydantic models, as JSON) -----------------------------------------


class Tau2UserUsage(TypedDict):
    prompt_tokens: int
    completion_tokens: int


class Tau2Usage(Tau2UserUsage):
    cached_tokens: int


class Tau2ToolCall(TypedDict):
    id: str
    name: str
    arguments: JsonObject
    requestor: Literal["assistant"]


class NotReplayedCall(TypedDict):
    """A failed write kept aside (see the module's docstring)."""

    id: str
    name: str
    arguments: JsonObject | str  # the text when it was no JSON object
    result: JsonValue
    error: str | None


class NotReplayed(TypedDict):
    why: str
    calls: list[NotReplayedCall]


class OurRawData(TypedDict, total=False):
    """What an assistant message's `raw_data.airline_agent` may carry."""

    unreadable_arguments: dict[str, str]  # call id -> its arguments' text
    not_replayed: NotReplayed
    reasoning_content: str
    recovered_from_text: str


class RawData(TypedDict):
    airline_agent: OurRawData


class Tau2AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: str | None
    tool_calls: list[Tau2ToolCall] | None
    timestamp: str | None
    usage: Tau2Usage | None
    cost: float | None
    raw_data: NotRequired[RawData]
    turn_idx: NotRequired[int]  # set as it joins the trajectory


class Tau2UserMessage(TypedDict):
    role: Literal["user"]
    content: str
    timestamp: str
    usage: Tau2UserUsage | None
    cost: float | None
    turn_idx: NotRequired[int]


class Tau2ToolMessage(TypedDict):
    role: Literal["tool"]
    id: str
    content: str
    requestor: Literal["assistant"]
    error: bool
    timestamp: str | None
    turn_idx: NotRequired[int]


Tau2Message = Tau2AssistantMessage | Tau2UserMessage | Tau2ToolMessage


class DbCheck(TypedDict):
    db_match: bool
    db_reward: float


class CommunicateCheck(TypedDict):
    info: str
    met: bool
    justification: str


class OurRewardInfo(TypedDict):
    db_diff: list[dict[str, JsonValue]]


class RewardInfoInfo(TypedDict, total=False):
    note: str  # a trial that ended prematurely
    airline_agent: OurRewardInfo


class RewardInfo(TypedDict):
    """τ²'s `RewardInfo`; a trial that ended prematurely has only the first three keys."""

    reward: float
    db_check: NotRequired[DbCheck]
    communicate_checks: NotRequired[list[CommunicateCheck]]
    nl_assertions: NotRequired[None]
    reward_basis: list[str] | None
    reward_breakdown: NotRequired[dict[str, float]]
    info: RewardInfoInfo


class HallucinationError(TypedDict):
    reasoning: str
    user_message: str


class HallucinationCheck(TypedDict):
    hallucination_found: bool
    errors: list[HallucinationError]
    summary: str


class OurSimulationInfo(TypedDict):
    termination: str
    customer_error: bool
    recovered_tool_calls: int
    scenario: str | None
    error: str | None


class SimulationInfo(TypedDict):
    airline_agent: OurSimulationInfo


class Simulation(TypedDict):
    """τ²'s `SimulationRun`: one trial."""

    id: str
    task_id: str
    timestamp: str
    start_time: str
    end_time: str
    duration: float
    termination_reason: str
    agent_cost: float | None
    user_cost: float | None
    reward_info: RewardInfo
    messages: list[Tau2Message]
    trial: int
    seed: int | None
    mode: Literal["half_duplex"]
    hallucination_check: HallucinationCheck
    hallucination_retries_used: int
    info: SimulationInfo


class UserInfo(TypedDict):
    implementation: str
    llm: str
    llm_args: dict[str, float]
    global_simulation_guidelines: str


class AgentInfo(TypedDict):
    implementation: str
    llm: str
    llm_args: dict[str, float]


class EnvironmentInfo(TypedDict):
    domain_name: str
    policy: str
    tool_defs: None


class RunInfo(TypedDict):
    """τ²'s `Info` of a run."""

    git_commit: str
    num_trials: int
    max_steps: int
    max_errors: int
    user_info: UserInfo
    agent_info: AgentInfo
    environment_info: EnvironmentInfo
    seed: int | None


class Tau2Results(TypedDict):
    """τ²'s `Results`: tau2_results.json."""

    timestamp: str
    info: RunInfo
    tasks: list[JsonObject]
    simulations: list[Simulation]


def _arguments(text: str) -> tuple[JsonObject, bool]:
    """The call's arguments as an object, and whether they were one."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return {}, False
    return (value, True) if isinstance(value, dict) else ({}, False)


def _usage_of(usage: UsageReported | None) -> Tau2Usage | None:
    if usage is None or usage.usage is None:
        return None
    return {
        "prompt_tokens": usage.usage.prompt_tokens,
        "completion_tokens": usage.usage.completion_tokens,
        "cached_tokens": usage.usage.cached_tokens,
    }


def simulation_messages(run: TrialRun) -> list[Tau2Message]:
    """The trial's messages in τ²'s shapes, in order."""
    events = run.log.events
    usage = {e.request: e for e in events if isinstance(e, UsageReported)}
    finished = {e.call_id: e for e in events if isinstance(e, ToolFinished)}
    recovered = {e.request: e.text for e in events if isinstance(e, ToolCallsRecovered)}
    messages: list[Tau2Message] = []

    def add(message: Tau2Message) -> None:
        message["turn_idx"] = len(messages)
        messages.append(message)

    if run.greeting is not None:  # τ²'s trajectory opens with its agent's greeting
        add(
            {
                "role": "assistant",
                "content": run.greeting,
                "tool_calls": None,
                "timestamp": run.record.started_at,
                "usage": None,
                "cost": 0.0,
            }
        )
    for entry in run.log.entries:
        if isinstance(entry, CustomerSaid):
            said = entry.message
            add(
                {
                    "role": "user",
                    "content": said.text,
                    "timestamp": entry.at,
                    "usage": _user_usage(said),
                    "cost": said.cost,
                }
            )
        elif isinstance(entry, AssistantMessage):
            message = _assistant(entry, usage.get(entry.request), finished, run)
            if entry.request in recovered:  # the framework made these calls from the text
                raw = message.setdefault("raw_data", {"airline_agent": {}})["airline_agent"]
                raw["recovered_from_text"] = recovered[entry.request]
            add(message)
        elif isinstance(entry, ToolFinished) and entry.call_id not in _left_out(run, finished):
            add(
                {
                    "role": "tool",
                    "id": entry.call_id,
                    "content": result_text(entry.result, tau2=run.like_tau2),
                    "requestor": "assistant",
                    "error": entry.error is not None,
                    "timestamp": run.log.event_times.get(id(entry)),
                }
            )
    return messages


def _user_usage(said: CustomerMessage) -> Tau2UserUsage | None:
    if said.usage is None:
        return None
    return {
        "prompt_tokens": said.usage.prompt_tokens,
        "completion_tokens": said.usage.completion_tokens,
    }


def _left_out(run: TrialRun, finished: dict[str, ToolFinished]) -> set[str]:
    """The ids of the writes that failed here (see the module's docstring)."""
    return {
        call_id
        for call_id, event in finished.items()
        if event.error is not None and event.name in run.write_tools
    }


def _assistant(
    event: AssistantMessage,
    usage: UsageReported | None,
    finished: dict[str, ToolFinished],
    run: TrialRun,
) -> Tau2AssistantMessage:
    left_out = _left_out(run, finished)
    calls: list[Tau2ToolCall] = []
    kept_aside: list[NotReplayedCall] = []
    unreadable: dict[str, str] = {}
    raw_data: OurRawData = {}
    for call in event.tool_calls:
        arguments, readable = _arguments(call.arguments)
        if call.call_id in left_out:
            done = finished[call.call_id]
            kept_aside.append(
                {
                    "id": call.call_id,
                    "name": call.name,
                    "arguments": arguments if readable else call.arguments,
                    "result": done.result,
                    "error": done.error,
                }
            )
            continue
        if not readable:
            unreadable[call.call_id] = call.arguments
        calls.append(
            {
                "id": call.call_id,
                "name": call.name,
                "arguments": arguments,
                "requestor": "assistant",
            }
        )
    if unreadable:
        raw_data["unreadable_arguments"] = unreadable
    if kept_aside:
        raw_data["not_replayed"] = {"why": NOT_REPLAYED_WHY, "calls": kept_aside}
    if event.reasoning:
        raw_data["reasoning_content"] = event.reasoning
    message: Tau2AssistantMessage = {
        "role": "assistant",
        "content": event.content,
        "tool_calls": calls or None,
        "timestamp": run.log.event_times.get(id(event)),
        "usage": _usage_of(usage),
        "cost": usage.cost if usage is not None else None,
    }
    if raw_data:
        message["raw_data"] = {"airline_agent": raw_data}
    return message


def reward_info(task: EvalTask, run: TrialRun) -> RewardInfo:
    """τ²'s `RewardInfo` for the trial, as its evaluator makes it."""
    record = run.record
    reason = TAU2_TERMINATION[record.termination]
    if reason not in ("user_stop", "agent_stop"):
        return {
            "reward": 0.0,
            "reward_basis": None,
            "info": {"note": f"Simulation terminated prematurely. Termination reason: {reason}"},
        }
    missing = set(record.communicate["missing"])
    checks: list[CommunicateCheck] = [
        {
            "info": info,
            "met": info not in missing,
            "justification": f"Information '{info}' "
            + ("not communicated." if info in missing else "communicated."),
        }
        for info in record.communicate["expected"]
    ]
    db_reward = 1.0 if record.db_match else 0.0
    breakdown: dict[str, float] = {}
    if "DB" in task.reward_basis:
        breakdown["DB"] = db_reward
    if "COMMUNICATE" in task.reward_basis:
        breakdown["COMMUNICATE"] = 0.0 if missing else 1.0
    return {
        "reward": record.reward,
        "db_check": {"db_match": bool(record.db_match), "db_reward": db_reward},
        "communicate_checks": checks,
        "nl_assertions": None,  # τ² needs an LLM judge for them: reported, not scored
        "reward_basis": list(task.reward_basis),
        "reward_breakdown": breakdown,
        "info": {"airline_agent": {"db_diff": record.db_diff}},
    }


def simulation(task: EvalTask, run: TrialRun, run_id: str) -> Simulation:
    record = run.record
    invented = [f for f in record.findings if f["who"] == "customer"]
    return {
        "id": f"{run_id}-task-{task.id}-trial-{record.trial}",
        "task_id": task.id,
        "timestamp": record.started_at,
        "start_time": record.started_at,
        "end_time": record.ended_at,
        "duration": record.duration_s,
        "termination_reason": TAU2_TERMINATION[record.termination],
        "agent_cost": record.cost.get("agent"),
        "user_cost": record.cost.get("user"),
        "reward_info": reward_info(task, run),
        "messages": simulation_messages(run),
        "trial": record.trial,
        "seed": record.seed,
        "mode": "half_duplex",
        # τ²'s own record of a user simulator that invented facts (it re-runs such trials).
        "hallucination_check": {
            "hallucination_found": bool(invented),
            "errors": [{"reasoning": f["why"], "user_message": f["value"]} for f in invented],
            "summary": "; ".join(f["why"] for f in invented),
        },
        "hallucination_retries_used": record.attempt - 1,
        "info": {
            "airline_agent": {
                "termination": record.termination,
                "customer_error": record.customer_error,
                "recovered_tool_calls": record.recovered_tool_calls,
                "scenario": record.scenario,
                "error": record.error,
            }
        },
    }


def run_info(
    tau2: Tau2Setting | None,
    *,
    trials: int,
    max_turns: int | None,
    agent_model: str,
    customer_model: str,
    system_prompt: str,
    commit: str,
) -> RunInfo:
    """τ²'s `Info` of the run. As τ²'s runner runs it (`tau2`): τ²'s own, its agent and
    customer by the names τ² registers them under, their llm args, its limits and seed,
    its policy and guidelines; ours: our loop and customer, our prompt."""
    if tau2 is None:
        return {
            "git_commit": commit,
            "num_trials": trials,
            "max_steps": max_turns or 0,
            "max_errors": 0,
            "user_info": {
                "implementation": "airline_agent.evaluation.customer",
                "llm": customer_model,
                "llm_args": {},
                "global_simulation_guidelines": SYSTEM_PROMPT,
            },
            "agent_info": {
                "implementation": "airline_agent.agent.loop",
                "llm": agent_model,
                "llm_args": {},
            },
            "environment_info": {
                "domain_name": "airline",
                "policy": system_prompt,
                "tool_defs": None,
            },
            "seed": None,
        }
    runner = tau2.runner
    return {
        "git_commit": commit,
        "num_trials": trials,
        "max_steps": tau2.max_steps,
        "max_errors": tau2.max_errors,
        "user_info": {
            "implementation": USER_IMPLEMENTATION,
            "llm": customer_model,
            "llm_args": {"temperature": TEMPERATURE},
            "global_simulation_guidelines": runner.guidelines,
        },
        "agent_info": {
            "implementation": AGENT_IMPLEMENTATION,
            "llm": agent_model,
            "llm_args": {"temperature": TEMPERATURE},
        },
        "environment_info": {"domain_name": "airline", "policy": runner.policy, "tool_defs": None},
        "seed": tau2.seed,
    }


def results_document(
    tasks: Iterable[EvalTask],
    simulations: list[Simulation],
    info: RunInfo,
    *,
    timestamp: str,
) -> Tau2Results:
    """τ²'s `Results`: `info`, the tasks as τ² wrote them, and the simulations."""
    return {
        "timestamp": timestamp,
        "info": info,
        "tasks": [task.source for task in tasks],
        "simulations": simulations,
    }
