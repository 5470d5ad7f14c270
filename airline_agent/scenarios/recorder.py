"""From a live session's events to a scenario file that replays it.

The model's responses are kept exactly as they came (content, tool calls with their ids
and arguments, reasoning, usage, finish reason); the expectations are filled from what
actually happened: the tools called and their results, the warnings, how each turn
ended, and the records the conversation changed. The customer's answers to approval
questions are kept call by call: the most frequent answer becomes `settings.approval`
and a call answered otherwise carries its own `approve`. Replaying the file gives the same tool
results and the same final database, or says where it no longer does.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

import yaml

from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessage,
    GroundingWarning,
    LimitReached,
    ToolFinished,
    TurnFinished,
    TurnStarted,
    UsageReported,
)
from airline_agent.scenarios.dbdiff import MISSING, RecordChange, flatten, get_path
from airline_agent.scenarios.model import (
    DEFAULT_ANSWER,
    Approval,
    CallCheck,
    Dataset,
    ModelResponse,
    RecordExpectations,
    Scenario,
    ScenarioSettings,
    ScriptedCall,
    TokenUsage,
    Turn,
    TurnExpectations,
)


def record_scenario(
    events: Sequence[AgentEvent],
    *,
    name: str,
    description: str = "",
    dataset: Dataset = "sample",
    customer: str | None = None,
    settings: ScenarioSettings | None = None,
    changes: Sequence[RecordChange] | None = (),
) -> Scenario:
    """A scenario from the events of one conversation (all its turns, in order).

    `changes` is what the conversation changed in the database (`dbdiff.diff_databases`);
    None when it could not be known, which leaves the final database unchecked.
    """
    settings = settings or ScenarioSettings()
    answers = recorded_answers(events)
    default = settings_answer(answers.values())
    if default is not None:
        settings = settings.model_copy(update={"approval": default})
    # Only the calls answered otherwise than the scenario's default say so.
    fallback = DEFAULT_ANSWER.get(settings.approval)
    exceptions = {key: answer for key, answer in answers.items() if answer != fallback}
    turns: list[Turn] = []
    current: dict[str, Any] | None = None
    usage_by_request: dict[int, TokenUsage] = {
        event.request: _usage(event) for event in events if isinstance(event, UsageReported)
    }
    for event in events:
        match event:
            case TurnStarted():
                if current is not None:
                    turns.append(_turn(current))
                current = {
                    "customer": event.user_text,
                    "responses": [],
                    "calls": [],
                    "warnings": [],
                    "end": None,
                }
            case AssistantMessage() if current is not None:
                usage = usage_by_request.get(event.request)
                current["responses"].append(_response(event, usage, exceptions))
            case ToolFinished() if current is not None:
                current["calls"].append(_call_check(event))
            case GroundingWarning() if current is not None:
                current["warnings"].append("grounding")
            case LimitReached() if current is not None:
                current["warnings"].append("limit")
            case TurnFinished() if current is not None:
                current["end"] = event.reason
    if current is not None:
        turns.append(_turn(current))
    return Scenario(
        name=name,
        description=description,
        dataset=dataset,
        customer=customer,
        settings=settings,
        turns=turns,
        database=None if changes is None else database_expectation(changes),
    )


def recorded_answers(events: Sequence[AgentEvent]) -> dict[tuple[int, str], bool]:
    """The customer's answer to each approval question, by (request, call id).

    The request number tells the responses apart when a server reuses call ids.
    """
    return {
        (event.request, call_id): approved
        for event in events
        if isinstance(event, ApprovalRequested) and event.decision.done()
        for call_id, approved in event.decision.result().approved.items()
    }


def settings_answer(answers: Iterable[bool]) -> Approval | None:
    """The scenario-level approval for these answers: the most frequent (a tie: the first
    given); None when no question was asked."""
    counted = Counter(answers).most_common(1)
    if not counted:
        return None
    return "ask-accept" if counted[0][0] else "ask-decline"


def database_expectation(
    changes: Sequence[RecordChange],
) -> Literal["unchanged"] | RecordExpectations:
    """Every changed field of every changed record, by dotted path; a new record whole."""
    if not changes:
        return "unchanged"
    expected: dict[str, dict[str, Any]] = {}
    for change in changes:
        records = expected.setdefault(change.kind, {})
        if change.after is None:
            records[change.key] = None
        elif change.before is None:
            records[change.key] = dict(change.after)
        else:
            records[change.key] = _changed_fields(change)
    return expected  # type: ignore[return-value]


def scenario_to_yaml(scenario: Scenario) -> str:
    body = scenario.model_dump(mode="json", exclude_defaults=True)
    ordered = {
        "name": body.pop("name"),
        "description": scenario.description.strip(),
        "dataset": scenario.dataset,
        "customer": scenario.customer,
        "settings": scenario.settings.model_dump(mode="json", exclude_none=True),
        "turns": body.pop("turns"),
        "database": scenario.database,
    }
    return yaml.dump(ordered, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def save_scenario(scenario: Scenario, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(scenario_to_yaml(scenario), encoding="utf-8")
    return path


class _Dumper(yaml.SafeDumper):
    """Multi-line text as `|` blocks, so that replies read like replies."""


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _represent_text)


def _turn(current: dict[str, Any]) -> Turn:
    return Turn(
        customer=current["customer"],
        responses=current["responses"] or [ModelResponse(content="")],
        expect=TurnExpectations(
            calls=current["calls"],
            warnings=sorted(set(current["warnings"])),
            end=current["end"],
        ),
    )


def _response(
    event: AssistantMessage,
    usage: TokenUsage | None,
    exceptions: dict[tuple[int, str], bool],
) -> ModelResponse:
    calls = [
        ScriptedCall(
            name=call.name,
            arguments=_arguments(call.arguments),
            id=call.call_id,
            approve=exceptions.get((event.request, call.call_id)),
        )
        for call in event.tool_calls
    ]
    return ModelResponse(
        content=event.content if event.content or not calls else None,
        tool_calls=calls,
        reasoning=event.reasoning,
        usage=usage,
        finish_reason=event.finish_reason,
    )


def _arguments(text: str) -> dict[str, Any] | str:
    """An object when the model sent valid JSON for one; otherwise the raw text, as sent."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return text
    return value if isinstance(value, dict) else text


def _usage(event: UsageReported) -> TokenUsage | None:
    if event.usage is None:
        return None
    u = event.usage
    return TokenUsage(
        prompt_tokens=u.prompt_tokens,
        completion_tokens=u.completion_tokens,
        cached_tokens=u.cached_tokens,
        reasoning_tokens=u.reasoning_tokens,
    )


def _call_check(event: ToolFinished) -> CallCheck:
    if event.error:
        return CallCheck(tool=event.name, error=event.error, recorded=event.result)
    return CallCheck(tool=event.name, ok=True, recorded=event.result)


def _changed_fields(change: RecordChange) -> dict[str, Any]:
    """The new value of each changed leaf; where a leaf disappeared (a list emptied, a key
    removed), the new value of its nearest ancestor that still exists, whole."""
    assert change.after is not None
    leaves = flatten(change.after)
    fields: dict[str, Any] = {}
    for path in change.paths:
        if path in leaves:
            fields[path] = leaves[path]
            continue
        ancestor = path
        while ancestor and get_path(change.after, ancestor) is MISSING:
            ancestor = ancestor.rpartition(".")[0]
        # A top-level key that went away is stated as null (absent).
        fields[ancestor or path] = get_path(change.after, ancestor) if ancestor else None
    # An ancestor stated whole already says everything under it.
    return {
        path: value
        for path, value in fields.items()
        if not any(path.startswith(other + ".") for other in fields)
    }
