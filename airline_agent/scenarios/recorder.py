"""From a live session's events to a scenario file that replays it.

The model's responses are kept exactly as they came (content, tool calls with their ids
and arguments, reasoning, usage, finish reason); the expectations are filled from what
actually happened: the tools called and their results, the warnings, how each turn
ended, and the records the conversation changed. The customer's answers to approval
questions are kept call by call: the most frequent answer becomes `settings.approval`
and a call answered otherwise carries its own `approve`. Replaying the file gives the same tool
results and the same final database, or says where it no longer does.

A turn the customer cancelled (esc, Ctrl-C; a turn whose events end without
`TurnFinished`, or with `TurnFinished(cancelled)`) is written as cancelled: the responses
that came before the cancel (maybe none), and its calls — a call that was under way, and
so ran, though its result was never shown, with its tool name alone. What is written is
redacted (`airline_agent.redaction`) and valid text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessage,
    ErrorOccurred,
    GroundingWarning,
    LimitReached,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    UsageReported,
)
from airline_agent.output_files import OutputPermissions
from airline_agent.redaction import Redactor, as_redactor
from airline_agent.scenarios import yaml_text
from airline_agent.scenarios.dbdiff import MISSING, RecordChange, flatten, get_path
from airline_agent.scenarios.model import (
    DEFAULT_ANSWER,
    Approval,
    CallCheck,
    Dataset,
    ModelResponse,
    RecordExpectations,
    RequestFailure,
    Scenario,
    ScenarioSettings,
    ScriptedCall,
    TokenUsage,
    Turn,
    TurnEnd,
    TurnExpectations,
)
from airline_agent.tools.untrusted import ParsedJson, parse_json


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
    usage_by_request: dict[int, TokenUsage | None] = {
        event.request: _usage(event) for event in events if isinstance(event, UsageReported)
    }
    turns: list[Turn] = []
    current: _TurnRecord | None = None
    for event in events:
        match event:
            case TurnStarted():
                if current is not None:
                    turns.append(current.turn())
                current = _TurnRecord(event.user_text)
            case AssistantMessage() if current is not None:
                usage = usage_by_request.get(event.request)
                current.responses.append(_response(event, usage, exceptions))
            case ToolStarted() if current is not None:
                current.started[event.call_id] = event.name
            case ToolFinished() if current is not None:
                current.started.pop(event.call_id, None)
                current.calls.append(_call_check(event))
            case GroundingWarning() if current is not None:
                current.warnings.add("grounding")
            case LimitReached() if current is not None:
                current.warnings.add("limit")
            case ErrorOccurred() if current is not None:
                # The request failed: recorded as a failure, so that the replay fails there.
                current.responses.append(ModelResponse(error=_failure(event)))
            case TurnFinished() if current is not None:
                current.end = event.reason
    if current is not None:
        turns.append(current.turn())
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
    expected: RecordExpectations = {}
    for change in changes:
        records = expected.setdefault(change.kind, {})
        if change.after is None:
            records[change.key] = None
        elif change.before is None:
            records[change.key] = dict(change.after)
        else:
            records[change.key] = _changed_fields(change)
    return expected


def scenario_to_yaml(scenario: Scenario, redactor: Redactor | None = None) -> str:
    """The scenario as a file, redacted (by default with the environment's settings)."""
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
    ordered = as_redactor(redactor).redact_json(ordered)
    return _dump(ordered)


def replay_refusal(path: Path, scenario: Scenario) -> str | None:
    """Why `replay` (and the TUI) will refuse this saved recording: a file over the limits
    of what is read (yaml_text); None when it will read it. The file stays as saved, whole:
    the session is not lost, only its replay."""
    size, limit = path.stat().st_size, yaml_text.MAX_FILE_BYTES
    if size > limit:
        what = f"is {yaml_text.size_text(size)}, more than the {yaml_text.size_text(limit)}"
    elif len(scenario.turns) > yaml_text.MAX_TURNS:
        what = f"has {len(scenario.turns):,} turns, more than the {yaml_text.MAX_TURNS:,}"
    else:
        return None
    return (
        f"the recording {path} {what} a scenario file may hold: it is saved whole, but "
        "`replay` and the TUI will refuse it; record shorter sessions"
    )


def save_scenario(
    scenario: Scenario,
    path: str | Path,
    redactor: Redactor | None = None,
    *,
    outputs: OutputPermissions | None = None,
) -> Path:
    """Write the scenario file (beside, then renamed into place); an existing file only
    where `outputs` allows it (by default: never). OSError (OutputRefused) when refused."""
    return (outputs or OutputPermissions()).write_text(
        Path(path), scenario_to_yaml(scenario, redactor)
    )


class _Dumper(yaml.SafeDumper):
    """Multi-line text as `|` blocks, so that replies read like replies."""


def _represent_text(dumper: yaml.representer.SafeRepresenter, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _represent_text)

# libyaml's emitter writes the same documents about 5× faster (`eval` writes a scenario
# for every trial). It refuses text holding a lone surrogate (which JSON from a model may
# carry), which the pure emitter above escapes: such a document is written by that one.
_FastDumper: type[yaml.CSafeDumper] | None = None
if getattr(yaml, "__with_libyaml__", False):

    class _LibyamlDumper(yaml.CSafeDumper):
        """Multi-line text as `|` blocks, written by libyaml's emitter."""

    _LibyamlDumper.add_representer(str, _represent_text)
    _FastDumper = _LibyamlDumper


def _dump(document: dict[str, object]) -> str:
    if _FastDumper is not None:
        try:
            return yaml.dump(
                document, Dumper=_FastDumper, sort_keys=False, allow_unicode=True, width=100
            )
        except UnicodeEncodeError:
            pass
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


@dataclass
class _TurnRecord:
    """One turn as its events come."""

    customer: str
    responses: list[ModelResponse] = field(default_factory=list)
    calls: list[CallCheck] = field(default_factory=list)
    started: dict[str, str] = field(default_factory=dict)  # call id -> tool, not finished
    warnings: set[str] = field(default_factory=set)
    end: TurnEnd | None = None  # None: the events stop before the turn finished

    def turn(self) -> Turn:
        cancelled = self.end in (None, "cancelled")
        # A call under way at the cancel ran (the loop waits for it), unseen: its name.
        calls = self.calls + [CallCheck(tool=tool) for tool in self.started.values()]
        if not self.responses and not cancelled:
            # Ended before any request (a budget already spent): the format needs a reply.
            self.responses.append(ModelResponse(content=""))
        return Turn(
            customer=self.customer,
            responses=self.responses,
            cancelled=cancelled,
            expect=TurnExpectations(
                calls=calls,
                warnings=sorted(self.warnings),  # type: ignore[arg-type]
                end="cancelled" if cancelled else self.end,
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
            # As the model sent it: a blank or repeated id is replaced again on replay.
            id=call.id_as_sent,
            approve=exceptions.get((event.request, call.call_id)),
        )
        for call in event.tool_calls
    ]
    # A reply with neither text nor calls (cut off by max_tokens, reasoning only) is
    # written with the "" the history holds for it: the format needs one or the other.
    content = (event.content or None) if calls else (event.content or "")
    return ModelResponse(
        content=content,
        tool_calls=calls,
        reasoning=event.reasoning,
        usage=usage,
        finish_reason=event.finish_reason,
    )


def _arguments(text: str) -> dict[str, object] | str:
    """An object when the model sent usable JSON for one (`untrusted.parse_json`);
    otherwise the raw text, as sent (also for JSON nested too deeply to be arguments,
    which YAML could not write)."""
    parsed = parse_json(text)
    if isinstance(parsed, ParsedJson) and isinstance(parsed.value, dict):
        arguments: dict[str, object] = dict(parsed.value)
        return arguments
    return text


def _failure(event: ErrorOccurred) -> RequestFailure:
    return RequestFailure(
        kind=event.kind or "server",
        message=event.message or "the request failed",
        hint=event.hint,
        status=event.status,
    )


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


def _changed_fields(change: RecordChange) -> dict[str, object]:
    """The new value of each changed leaf; where a leaf disappeared (a list emptied, a key
    removed), the new value of its nearest ancestor that still exists, whole."""
    assert change.after is not None
    leaves = flatten(change.after)
    fields: dict[str, object] = {}
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
