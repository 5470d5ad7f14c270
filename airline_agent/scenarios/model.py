"""The scenario file format (`data/scenarios/*.yaml`): one conversation, replayable offline.

A scenario names its dataset and customer, the settings that matter, and its turns. A turn
is the customer's message, the model's scripted responses in order, and what must happen:
the tools called (with checks on their results), the warnings raised, how the turn ends.
The final database expectation is in the `export --format tau2` shape.

Every model forbids unknown keys, so a typo in a file is an error, not a silent no-op.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from airline_agent.agent.findings import FindingKind
from airline_agent.tools.outcome import ERROR_CODES

Dataset = Literal["sample", "tau2"]
Approval = Literal["auto", "ask-accept", "ask-decline", "deny"]
# The customer's answer to an approval question under each setting that asks one.
DEFAULT_ANSWER: dict[str, bool] = {"ask-accept": True, "ask-decline": False}
Warning = Literal["grounding", "limit"]
TurnEnd = Literal["answered", "tool_call_limit", "request_limit", "budget", "error", "cancelled"]
RecordKind = Literal["users", "reservations", "flights"]

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TokenUsage(Strict):
    prompt_tokens: int = Field(0, ge=0)
    completion_tokens: int = Field(0, ge=0)
    cached_tokens: int = Field(0, ge=0)
    reasoning_tokens: int = Field(0, ge=0)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class ScriptedCall(Strict):
    """One tool call the model makes. A string `arguments` is sent as is (malformed on purpose).

    `name` may be "": a model can send a call without a name (`""` or `null`), and a
    recording keeps it as it came (the loop answers it UNKNOWN_TOOL).
    `approve` is the customer's answer if approval is asked for this call (a write, under
    `approval: ask-accept | ask-decline`); unset: the answer of `settings.approval`.
    """

    name: str
    arguments: dict[str, object] | str = Field(default_factory=dict)
    id: str | None = None
    approve: bool | None = None


class RequestFailure(Strict):
    """A request that failed: the failure the loop reported (its kind, e.g. `auth`,
    `server`, `timeout`; its message and hint; the HTTP status), said again on replay."""

    kind: str = Field("server", min_length=1)
    message: str = Field(min_length=1)
    hint: str | None = None
    status: int | None = None


class ModelResponse(Strict):
    """One response of the model, as the backend will return it; or, with `error`, a
    request that failed (as one did when the conversation was recorded)."""

    content: str | None = None
    tool_calls: list[ScriptedCall] = Field(default_factory=list)
    reasoning: str | None = None
    usage: TokenUsage | None = None
    finish_reason: str | None = None
    error: RequestFailure | None = None

    @model_validator(mode="after")
    def _says_something(self) -> ModelResponse:
        if self.error is not None:
            said = [name for name in self.model_fields_set if name != "error"]
            if said:
                listed = ", ".join(f"`{name}`" for name in sorted(said))
                raise ValueError(f"a failed request (`error`) has no reply: remove {listed}")
        elif self.content is None and not self.tool_calls:
            raise ValueError("a response needs `content`, `tool_calls`, or both (or `error`)")
        return self


class CallCheck(Strict):
    """What one tool call of the turn must give: its tool, ok or an error code, fields.

    `has` lists dotted paths that must exist in the result; `equals` maps dotted paths to
    the values they must hold. `recorded` is the whole result as it was when the file was
    written: a different result now is reported as drift.
    """

    tool: str  # "" for a call the model sent without a name
    ok: bool | None = None
    error: str | None = None
    has: list[str] = Field(default_factory=list)
    equals: dict[str, object] = Field(default_factory=dict)
    recorded: object = None

    @field_validator("error")
    @classmethod
    def _known_code(cls, code: str | None) -> str | None:
        if code is not None and code not in ERROR_CODES:
            known = ", ".join(ERROR_CODES)
            raise ValueError(f"unknown error code {code!r}; expected one of {known}")
        return code

    @model_validator(mode="after")
    def _ok_or_error(self) -> CallCheck:
        if self.ok is True and self.error is not None:
            raise ValueError("`ok: true` and an `error` code contradict each other")
        return self

    @property
    def has_recording(self) -> bool:
        return "recorded" in self.model_fields_set


class FindingCheck(Strict):
    """A grounding finding the turn must raise: its kind, the value or claim as written, or both."""

    kind: FindingKind | None = None
    value: str | None = Field(None, min_length=1)

    @model_validator(mode="after")
    def _names_something(self) -> FindingCheck:
        if self.kind is None and self.value is None:
            raise ValueError("a finding needs `kind`, `value`, or both")
        return self


class TurnExpectations(Strict):
    """What must happen in a turn. `tools` alone checks names; `calls` checks results too.

    `findings` lists grounding findings that must be among those the turn raised (so it
    needs `warnings: [grounding]`)."""

    tools: list[str] | None = None
    calls: list[CallCheck] | None = None
    warnings: list[Warning] = Field(default_factory=list)
    findings: list[FindingCheck] = Field(default_factory=list)
    end: TurnEnd | None = "answered"

    @model_validator(mode="after")
    def _findings_are_grounding_warnings(self) -> TurnExpectations:
        if self.findings and "grounding" not in self.warnings:
            raise ValueError("`findings` are grounding findings: add `warnings: [grounding]`")
        return self

    @model_validator(mode="after")
    def _tools_agree_with_calls(self) -> TurnExpectations:
        if self.tools is not None and self.calls is not None:
            names = [call.tool for call in self.calls]
            if names != self.tools:
                raise ValueError(f"`tools` {self.tools} and the tools of `calls` {names} disagree")
        return self

    @property
    def tool_names(self) -> list[str] | None:
        if self.calls is not None:
            return [call.tool for call in self.calls]
        return self.tools


class Turn(Strict):
    """The customer's message, the model's responses, what must happen.

    `cancelled: true`: the customer cancelled the turn (esc, Ctrl-C) after the responses
    listed (maybe none). It replays up to where the recording ends — the first request,
    approval question or tool call it has nothing for — and is cancelled there; it is
    expected to end `cancelled`.
    """

    customer: str = Field(min_length=1)
    responses: list[ModelResponse] = Field(default_factory=list)
    cancelled: bool = False
    expect: TurnExpectations = Field(default_factory=TurnExpectations)

    @model_validator(mode="after")
    def _cancelled_or_answered(self) -> Turn:
        if self.cancelled:
            if "end" not in self.expect.model_fields_set:
                self.expect.end = "cancelled"
            elif self.expect.end not in ("cancelled", None):
                raise ValueError("a cancelled turn ends `cancelled`, not `" + self.expect.end + "`")
        elif not self.responses:
            raise ValueError("a turn needs at least one response (or `cancelled: true`)")
        elif self.expect.end == "cancelled":
            raise ValueError(
                "a turn ends `cancelled` when the customer cancels it: add `cancelled: true`"
            )
        return self


class ScenarioSettings(Strict):
    guard: bool = True
    approval: Approval = "auto"
    max_tool_calls: int = Field(default=8, ge=1)
    max_requests: Annotated[int, Field(ge=1)] | None = None  # per turn; None: the loop's
    model: str = "scripted"  # the name used for pricing
    now: str | None = None  # the domain clock; None: the default (policy C1)
    # "tau2": the tools answered as τ²'s where ours differ (search_direct_flight's dates
    # null), as `eval --like tau2` runs them; None: ours.
    tool_results: Literal["tau2"] | None = None

    @field_validator("now")
    @classmethod
    def _an_iso_date_time(cls, now: str | None) -> str | None:
        # Checked here so that a bad clock is reported with file:line, not when replayed.
        if now is not None:
            try:
                datetime.fromisoformat(now)
            except ValueError:
                raise ValueError("not an ISO date and time, e.g. 2024-05-15T15:00:00") from None
        return now


# `{kind: {id: {dotted.path: value}}}`: the records that must have changed, and how;
# `{kind: {id: null}}`: the record must be gone.
RecordExpectations = dict[RecordKind, dict[str, dict[str, object] | None]]


class Scenario(Strict):
    name: str
    description: str = ""
    dataset: Dataset = "sample"
    customer: str | None = None
    settings: ScenarioSettings = Field(default_factory=ScenarioSettings)
    turns: list[Turn] = Field(min_length=1)
    # "unchanged" unless said otherwise; an explicit `null` checks nothing.
    database: Literal["unchanged"] | RecordExpectations | None = "unchanged"
    _source: Path | None = PrivateAttr(None)  # the file it was read from, if any

    @property
    def source(self) -> Path | None:
        return self._source

    @field_validator("name")
    @classmethod
    def _slug(cls, name: str) -> str:
        if not NAME_PATTERN.match(name):
            raise ValueError("a name is lower-case letters, digits and dashes, e.g. cancel-ehglp3")
        return name

    @model_validator(mode="after")
    def _answers_are_asked_for(self) -> Scenario:
        """`approve` under `auto` or `deny` would be ignored: an error, not a silent no-op."""
        approval = self.settings.approval
        if approval in DEFAULT_ANSWER:
            return self
        misplaced = [
            InitErrorDetails(
                type=PydanticCustomError(
                    "approve_not_asked",
                    "`approve` answers an approval question, and with `settings.approval: "
                    "{approval}` none is asked; use ask-accept or ask-decline, or remove it",
                    {"approval": approval},
                ),
                loc=("turns", t, "responses", r, "tool_calls", c, "approve"),
                input=call.approve,
            )
            for t, turn in enumerate(self.turns)
            for r, response in enumerate(turn.responses)
            for c, call in enumerate(response.tool_calls)
            if call.approve is not None
        ]
        if misplaced:
            # Raised as a ValidationError so that each error keeps its own location (the
            # loader turns it into the line of the `approve` key).
            raise ValidationError.from_exception_data(type(self).__name__, misplaced)
        return self

    @property
    def tool_call_count(self) -> int:
        return sum(len(r.tool_calls) for t in self.turns for r in t.responses)

    @property
    def tokens(self) -> int:
        return sum(r.usage.total_tokens for t in self.turns for r in t.responses if r.usage)
