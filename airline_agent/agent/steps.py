"""Steps: the one numbering of what happens on the wire in a conversation, the same for the
debugger, `airline-agent replay --stop-at N` and the TUI.

A step is one of these, in the order they happen (the articles' order):

- `customer`: the customer's message appended to the history (`TurnStarted`);
- `request`: a request sent (`RequestSent`; assembled and held just before, when the
  debugger holds it);
- `response`: the model's response received and appended (`AssistantMessage`);
- `tool`: one tool call answered — run by the framework, or answered without running
  (declined, over the limit, unusable arguments) — its result appended under its
  `tool_call_id` (`ToolFinished`).

Steps are numbered from 1 across the whole conversation, not per turn; step 0 is the
conversation before anything happened. Each step's event carries its number
(`event.step`). What ends a turn (its `TurnFinished`, a limit, a grounding finding)
belongs to the step before it. A call under way when its turn is cancelled still runs to
its end and is a step too, though no event shows it. The database changes only at tool
steps: "the database after step N" is the database after the last tool step up to N.

A conversation with a timeline (the debugger's) keeps, for every step, a `Checkpoint` —
its state right after the step — and every write that changed the database, with the
rows it changed: what a fork at any step needs (agent/debugger.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from airline_agent.agent.events import (
    AgentEvent,
    ArgumentsEdit,
    AssistantMessage,
    RequestEdit,
    RequestSent,
    ToolFinished,
    TurnStarted,
)
from airline_agent.agent.grounding import Evidence
from airline_agent.agent.model_reply import HistoryEntry
from airline_agent.agent.turn import TurnProgress
from airline_agent.agent.usage import Spend
from airline_agent.tools.conversation import BindingSource
from airline_agent.tools.outcome import RowChange

StepKind = Literal["customer", "request", "response", "tool"]


class UnknownStep(LookupError):
    """A step the conversation does not have (or cannot go back to); says which it has."""


class Checkpoint(NamedTuple):
    """A conversation's state right after a step. The history, the evidence, the customer's
    words and the edits are kept by reference with their lengths then: the conversation
    only ever appends to them, and replaces a list it must shorten or change (see
    agent/conversation.py), so a prefix is exactly what it was. The rest is small, copied.
    (A tuple: one is made at every step, and a frozen dataclass of these many fields took
    as long to make as the rest of a step's bookkeeping.)"""

    steps: int
    history: list[HistoryEntry]
    history_length: int
    evidence: Evidence
    evidence_length: int
    customer_words: list[str]
    customer_words_length: int
    customer: str | None
    bound_by: BindingSource | None
    changed_reservations: frozenset[str]
    spend: Spend
    turns: int
    requests: int
    edits: list[RequestEdit | ArgumentsEdit]
    edits_length: int
    turn: TurnProgress | None  # a copy of the open turn's progress (None between turns)
    writes: int  # writes that changed the database, so far

    def __repr__(self) -> str:
        return f"Checkpoint(steps={self.steps}, history_length={self.history_length})"


@dataclass(frozen=True)
class Step:
    number: int
    kind: StepKind
    turn: int
    request: int | None = None  # the request it sent or answered (tool: the reply's)
    call_id: str | None = None  # tool steps
    name: str | None = None  # tool steps: the tool's name
    checkpoint: Checkpoint | None = field(default=None, repr=False, compare=False)

    def describe(self) -> str:
        """'request #2 sent', 'get_reservation_details (call_1) answered', …"""
        match self.kind:
            case "customer":
                return f"customer message (turn {self.turn})"
            case "request":
                return f"request #{self.request} sent"
            case "response":
                return f"response #{self.request} received"
        return f"{self.name or '(no name)'} ({self.call_id}) answered"


@dataclass(frozen=True)
class RecordedWrite:
    """A tool call that changed the database: what ran (your arguments, when you edited
    them) and the rows it changed, to be replayed on a copy and checked."""

    step: int
    name: str
    arguments: dict[str, Any]
    changes: tuple[RowChange, ...] = field(repr=False)


@dataclass
class Timeline:
    """A conversation's steps with their checkpoints, and its writes, in order."""

    origin: Checkpoint  # step 0: the conversation before anything happened
    steps: list[Step] = field(default_factory=list)
    writes: list[RecordedWrite] = field(default_factory=list)

    @property
    def last(self) -> int:
        return self.steps[-1].number if self.steps else self.origin.steps

    def step(self, number: int) -> Step:
        first = self.steps[0].number if self.steps else self.origin.steps + 1
        index = number - first
        if 0 <= index < len(self.steps) and self.steps[index].number == number:
            return self.steps[index]
        raise UnknownStep(
            f"there is no step {number}: the conversation has steps {self.origin.steps} "
            f"to {self.last}"
        )

    def checkpoint(self, number: int) -> Checkpoint:
        if number == self.origin.steps:
            return self.origin
        checkpoint = self.step(number).checkpoint
        if checkpoint is None:
            raise UnknownStep(f"step {number} was not recorded")
        return checkpoint

    def until(self, number: int) -> Timeline:
        """The timeline as it was right after step `number`."""
        checkpoint = self.checkpoint(number)
        steps = [step for step in self.steps if step.number <= number]
        return Timeline(self.origin, steps, self.writes[: checkpoint.writes])


def describe_step(event: AgentEvent) -> str:
    """The step an event is, in words ('step 3: request #2 sent'); '' for an event that
    is no step."""
    step = getattr(event, "step", 0)
    if not step:
        return ""
    match event:
        case TurnStarted():
            what = Step(step, "customer", event.turn).describe()
        case RequestSent():
            what = Step(step, "request", event.turn, event.request).describe()
        case AssistantMessage():
            what = Step(step, "response", 0, event.request).describe()
        case ToolFinished():
            what = Step(step, "tool", 0, None, event.call_id, event.name).describe()
        case _:
            return ""
    return f"step {step}: {what}"
