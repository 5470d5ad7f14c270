"""One turn's progress and the plan for each tool call of a reply: plain state that the
loop (agent/loop.py) and the tool round (agent/tool_round.py) change, that the
conversation (agent/conversation.py) holds while the turn runs, and that a step's
checkpoint (agent/steps.py) copies, so that a fork cut in the middle of a turn goes on
with it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from airline_agent.agent.events import ArgumentsEdit, ToolCall, TurnEnd
from airline_agent.agent.usage import Spend


@dataclass
class Plan:
    """What will happen to one tool call of a reply."""

    call: ToolCall
    arguments: dict[str, Any] | None
    will_run: bool = True  # False: answered with `error` instead of running
    error: dict[str, Any] | None = None  # a loop-made error result, when not run
    edit: ArgumentsEdit | None = None  # you edited its arguments at the debugger

    @property
    def raw_arguments(self) -> str:
        """The arguments' text as it runs: the model's, or yours."""
        return self.call.arguments if self.edit is None else self.edit.edited


@dataclass
class TurnProgress:
    """One turn's running totals, and why it ended. Kept in the conversation while the
    turn runs, so that a checkpoint holds them and a fork cut in the middle of the turn
    goes on with them (`AgentSession.resume_turn`)."""

    number: int
    start: int  # the history's length before the customer's message
    reason: TurnEnd = "cancelled"
    spend: Spend = field(default_factory=Spend)  # of this turn's requests
    requests: int = 0
    tool_calls_run: int = 0
    over_limit: bool = False  # a reply of this turn already went past the tool-call limit
    history_edited: bool = False  # you replaced the messages: nothing is taken back
    calls: tuple[ToolCall, ...] = ()  # the last reply's tool calls (their own ids)
    # Those of them not answered yet, as planned (run, or the error they get); None: not
    # planned yet. Kept up to date only with a timeline.
    pending: list[Plan] | None = None
    closing_at_limit: bool = False  # they are answered with the limit error; the turn ends

    def copy(self) -> TurnProgress:
        """A copy for a checkpoint (one per step: `dataclasses.replace` cost as much as the
        rest of the step's bookkeeping together)."""
        twin = _twin(self)
        if self.pending is not None:
            twin.pending = [_twin(plan) for plan in self.pending]
        return twin


_Copied = TypeVar("_Copied")


def _twin(value: _Copied) -> _Copied:
    """A shallow copy of a plain dataclass instance (its fields are values or replaced,
    never changed in place: `Plan`'s call, arguments and error; a turn's usage)."""
    twin = object.__new__(type(value))
    twin.__dict__.update(value.__dict__)
    return twin
