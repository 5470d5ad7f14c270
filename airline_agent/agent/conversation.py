"""One conversation's state, in one object: who it acts for, what it changed (the tools'
part, `ToolConversation`), its history, its usage, what grounding accepts as given, its
steps (agent/steps.py), the edits you made at the debugger, and the open turn's progress.

`AgentSession.new_conversation()` makes a new one; nothing of the previous conversation
survives it (the binding, P4's changed reservations, the history, the usage).

With a timeline (`keep_timeline`, the debugger's), every step leaves a checkpoint of this
state and every write that changed the database is recorded, so that `restored` can make
the conversation as it was after any step. A checkpoint keeps the history, the evidence,
the customer's words and the edits by reference with their lengths; so while a timeline
is kept, a list that must shrink or change is replaced, never changed in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from airline_agent.agent.events import ArgumentsEdit, RequestEdit, Usage
from airline_agent.agent.grounding import Evidence
from airline_agent.agent.model_reply import HistoryEntry
from airline_agent.agent.steps import Checkpoint, RecordedWrite, Step, StepKind, Timeline
from airline_agent.agent.turn import TurnProgress
from airline_agent.agent.usage import Spend
from airline_agent.agent.wire import history_of
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import RowChange


@dataclass
class Conversation(ToolConversation):
    system_prompt: str = ""
    history: list[HistoryEntry] = field(default_factory=list)
    spend: Spend = field(default_factory=Spend)  # of every request of the conversation
    turns: int = 0
    requests: int = 0
    steps: int = 0  # steps taken (agent/steps.py)
    # What the grounding check accepts as given: the rules, the customer, tool results.
    evidence: Evidence = field(default_factory=Evidence)
    edits: list[RequestEdit | ArgumentsEdit] = field(default_factory=list)  # yours, in order
    open_turn: TurnProgress | None = None  # the turn running now
    # A turn a fork cut in the middle: resumed by `resume_turn`, or closed as cancelled
    # when the next customer message comes instead.
    cut_turn: TurnProgress | None = None
    timeline: Timeline | None = None  # kept for the debugger only

    @classmethod
    def start(
        cls, system_prompt: str, customer: str | None = None, *, greeting: str | None = None
    ) -> Conversation:
        """`greeting`: what the agent said first, before the customer's first message."""
        history: list[HistoryEntry] = [{"role": "system", "content": system_prompt}]
        if greeting is not None:
            history.append({"role": "assistant", "content": greeting})
        return cls(
            customer=customer,
            hears_customer=True,
            system_prompt=system_prompt,
            history=history,
            evidence=Evidence(rules=[system_prompt]),
        )

    def add_customer_message(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        self.evidence.add(text)
        self.customer_said(text)

    def take_back_customer_message(self) -> None:
        """The customer's last message, never answered: sending it again gives exactly
        the same request. (What it named stays named: the customer did say it.)"""
        if self.timeline is None:
            self.history.pop()
            self.evidence.pop()
            return
        # A checkpoint may hold these: replaced, never shortened.
        self.history = self.history[:-1]
        self.evidence = self.evidence.prefix(len(self.evidence) - 1)

    def count_usage(self, usage: Usage | None, cost: float | None) -> None:
        """One request's usage and cost, counted for the conversation and its open turn."""
        self.spend = self.spend.plus(usage, cost)
        if self.open_turn is not None:
            self.open_turn.spend = self.open_turn.spend.plus(usage, cost)

    # -- edits made at the debugger -------------------------------------------------------

    def adopt_request_edit(self, edit: RequestEdit) -> None:
        """The edited body's messages are the history from now on (the model was given
        them); the edit is kept, the original with it."""
        messages = history_of(edit.edited)  # either wire's body (agent/wire.py)
        if messages != self.history:
            self.history = messages  # replaced: a checkpoint may hold the old one
            self.evidence = Evidence.of_history(messages)
            if self.open_turn is not None:
                self.open_turn.history_edited = True
        self.edits.append(edit)

    def adopt_arguments_edit(self, edit: ArgumentsEdit) -> None:
        self.edits.append(edit)

    # -- steps ----------------------------------------------------------------------------

    def take_step(
        self,
        kind: StepKind,
        *,
        request: int | None = None,
        call_id: str | None = None,
        name: str | None = None,
    ) -> int:
        """Number the step just taken (its state already changed); with a timeline, keep
        a checkpoint of the conversation right after it."""
        self.steps += 1
        if self.timeline is not None:
            step = Step(self.steps, kind, self.turns, request, call_id, name, self._checkpoint())
            self.timeline.steps.append(step)
        return self.steps

    def record_write(
        self, name: str, arguments: dict[str, Any] | None, changes: tuple[RowChange, ...]
    ) -> None:
        """A tool call changed the database (before its step is taken)."""
        if self.timeline is not None and changes:
            write = RecordedWrite(self.steps + 1, name, dict(arguments or {}), changes)
            self.timeline.writes.append(write)

    def keep_timeline(self) -> None:
        """Keep a checkpoint of every step from now on (a new conversation: step 0)."""
        self.timeline = Timeline(self._checkpoint())

    def _checkpoint(self) -> Checkpoint:
        return Checkpoint(
            steps=self.steps,
            history=self.history,
            history_length=len(self.history),
            evidence=self.evidence,
            evidence_length=len(self.evidence),
            customer_words=self._customer_words,
            customer_words_length=len(self._customer_words),
            customer=self.customer,
            bound_by=self.bound_by,
            changed_reservations=frozenset(self.changed_reservations),
            spend=self.spend,
            turns=self.turns,
            requests=self.requests,
            edits=self.edits,
            edits_length=len(self.edits),
            turn=None if self.open_turn is None else self.open_turn.copy(),
            writes=len(self.timeline.writes) if self.timeline is not None else 0,
        )

    def restored(self, step: int) -> Conversation:
        """A new conversation, as this one was right after `step` (its timeline up to
        there included). Raises steps.UnknownStep for a step it does not have."""
        if self.timeline is None:
            raise ValueError("this conversation keeps no timeline (no debugger)")
        timeline = self.timeline.until(step)
        saved = timeline.checkpoint(step)
        restored = Conversation(
            customer=saved.customer,
            bound_by=saved.bound_by,
            hears_customer=self.hears_customer,
            changed_reservations=set(saved.changed_reservations),
            system_prompt=self.system_prompt,
            history=saved.history[: saved.history_length],
            spend=saved.spend,
            turns=saved.turns,
            requests=saved.requests,
            steps=saved.steps,
            evidence=saved.evidence.prefix(saved.evidence_length),
            edits=saved.edits[: saved.edits_length],
            cut_turn=None if saved.turn is None else saved.turn.copy(),
            timeline=timeline,
        )
        restored._customer_words = saved.customer_words[: saved.customer_words_length]
        return restored
