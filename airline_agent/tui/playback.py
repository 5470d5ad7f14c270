"""A scenario played in the TUI: the real loop and tools on a fresh copy of the
scenario's dataset (as `replay` does), the model's answers from the file, turn by turn.

The playback watches what the tools give against what the scenario expects and recorded
(scenarios/checks.py, the checks `replay` makes): a result that no longer matches — the
user switched the guard off, say, and a refused write now succeeds — is said where it
happens, as a `ScenarioDiverged` after the tool call (the trace, the chat) and in the
status line, since the scripted replies that follow may then tell something that did
not happen.

The scenario's settings (guard, approval, clock, customer) are the playback's own facts:
the status line shows them while it is on screen; `describe_settings` says in words what
they are and what of the feed shown before they change ("guard on (was OFF)").
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from airline_agent.agent.events import (
    AgentEvent,
    AssistantMessage,
    ToolFinished,
    TurnFinished,
    TurnStarted,
)
from airline_agent.agent.prefix import token_counter
from airline_agent.choices import APPROVAL_MODES
from airline_agent.scenarios import datasets
from airline_agent.scenarios.checks import Finding, call_where, check_call, check_turn
from airline_agent.scenarios.dbdiff import diff_databases
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.model import Approval, Scenario, ScenarioSettings
from airline_agent.scenarios.recorder import record_scenario, replay_refusal, save_scenario
from airline_agent.scenarios.script import ScenarioScript
from airline_agent.stack import open_existing_database, scenario_stack, scripted_backend
from airline_agent.tui.feed import Feed, ScenarioDiverged, slug
from airline_agent.tui.status import DatabaseOrigin, Status

if TYPE_CHECKING:
    from airline_agent.agent.breakpoints import Breakpoints
    from airline_agent.agent.debugger import Branch
    from airline_agent.choices import Api
    from airline_agent.redaction import Redactor


class Playback(Feed):
    mode = "offline"

    def __init__(
        self,
        status: Status,
        scenario: Scenario,
        *,
        default_clock: str,
        breakpoints: Breakpoints | None = None,
        tau2: Path | None = None,
        api: Api = "chat",
    ) -> None:
        settings = scenario.settings
        super().__init__(
            status,
            guard=settings.guard,
            clock=settings.now or default_clock,
            customer=scenario.customer,
            breakpoints=breakpoints,
        )
        self.scenario = scenario
        self.tau2 = tau2  # the τ² folder its τ² dataset comes from (None: the default one)
        self.api = api  # the wire it plays on (`--api`): a scenario plays the same on either
        self.script: ScenarioScript | None = None
        self.next_turn = 0  # turns loaded so far (the one playing is `next_turn`)
        self.divergences: list[ScenarioDiverged] = []
        self._copy: Path | None = None  # this play's private database file
        self._pristine: Path | None = None  # the dataset it was copied from
        self._this_turn: list[AgentEvent] = []
        self._reported: set[Finding] = set()
        # Branches not on screen: what had diverged in each, and what was reported.
        self._branch_places: dict[int, tuple[list[ScenarioDiverged], set[Finding]]] = {}

    @classmethod
    def read(
        cls,
        status: Status,
        path: Path,
        *,
        default_clock: str,
        breakpoints: Breakpoints | None = None,
        tau2: Path | None = None,
        api: Api = "chat",
    ) -> Playback:
        """The scenario file at `path`, read and checked (slow: a thread), ready to `open`."""
        return cls(
            status,
            load_scenario(path),
            default_clock=default_clock,
            breakpoints=breakpoints,
            tau2=tau2,
            api=api,
        )

    @property
    def scenario_name(self) -> str:
        return self.scenario.name

    @property
    def steps_left(self) -> int:
        return len(self.scenario.turns) - self.next_turn

    # -- the facts the status line shows ------------------------------------------------
    @property
    def source(self) -> str:
        return f"scenario: {self.scenario.name}"

    @property
    def origin(self) -> DatabaseOrigin:
        return DatabaseOrigin.scenario(self.scenario.dataset)

    @property
    def approval(self) -> str:
        return self.scenario.settings.approval

    @property
    def scenario_guard(self) -> bool | None:
        return self.scenario.settings.guard

    @property
    def divergence(self) -> str | None:
        if not self.divergences:
            return None
        more = len(self.divergences) - 1
        return self.divergences[0].summary() + (f" (and {more} more)" if more else "")

    def settings_read(self, settings: object, peeked: object) -> None:
        """A scenario's settings are its own: the user's settings change none of them."""

    # -- opening ------------------------------------------------------------------------
    def open(self) -> None:
        """A fresh copy of the dataset and the scenario's stack over it (slow: a thread;
        its facts change when the caller says so, on the UI's loop)."""
        self.close()
        self._copy, self._pristine = datasets.fresh_copy(
            self.scenario.dataset, self.scenario.name, self.tau2
        )
        # Streamed: scripted text still arrives as deltas, as a live reply would.
        database = open_existing_database(self._copy)
        self.stack = scenario_stack(self.scenario, database, stream=True, debug=True, api=self.api)
        token_counter()  # in this thread, not at the first request on the screen's loop
        self._use_breakpoints()
        # Offline, the scenario answers approval questions (no modal), call by call.
        self.script = ScenarioScript(self.scenario, scripted_backend(self.stack))

    def describe_settings(self, shown: Feed) -> str:
        """What the scenario sets, in words, and what of the feed shown until now it
        changes ("guard on (was OFF)")."""

        settings = self.scenario.settings
        # An approval a user chose (live) or a scenario set; anything else a feed shows
        # (offline before any scenario: "scenario") is no one's choice, so no "was".
        chosen = {*APPROVAL_MODES, *get_args(Approval)}
        chosen_approval = shown.approval if shown.approval in chosen else None
        said = [
            _setting("guard", _on(settings.guard), _on(shown.guard)),
            _setting("approval", settings.approval, chosen_approval),
            _setting("customer", self.scenario.customer or "not identified", shown.customer),
            _setting("clock", self.clock, shown.clock),
        ]
        return f"{self.scenario.name} sets " + ", ".join(said) + "."

    def close(self) -> None:
        super().close()
        self.script = None
        if self._copy is not None:
            datasets.discard(self._copy)
            self._copy = None

    # -- turns --------------------------------------------------------------------------
    def next_customer_message(self) -> str | None:
        if self.script is None or self.next_turn >= len(self.scenario.turns):
            return None
        turn = self.scenario.turns[self.next_turn]
        self.next_turn += 1
        self.script.load(turn)
        return turn.customer

    def upcoming(self) -> str | None:
        said = super().upcoming()
        if said is not None or self.turn_under_way or self.debugger is None:
            return said
        if self.script is not None and self.next_turn < len(self.scenario.turns):
            return f"customer message (turn {self.next_turn + 1})"
        return None

    def turn_events(self, text: str | None) -> AsyncGenerator[AgentEvent, None]:
        cut = self.conversation.cut_turn if self.conversation is not None else None
        if text is None and cut is not None and self.script is not None:
            # A fork cut in the middle of a turn goes on with the rest of its responses.
            served = sum(isinstance(event, AssistantMessage) for event in self._this_turn)
            if 0 < cut.number <= len(self.scenario.turns):
                self.script.load(self.scenario.turns[cut.number - 1], served=served)
        return super().turn_events(text)

    # -- branches -----------------------------------------------------------------------
    def _left_branch(self, branch: Branch) -> None:
        self._branch_places[branch.number] = (self.divergences, self._reported)

    def _entered_branch(self, branch: Branch, left: Branch | None) -> None:
        """The scenario goes on from the branch's place: its next turn, what diverged
        before it."""
        conversation = branch.conversation
        self.next_turn = conversation.turns
        kept = self._branch_places.pop(branch.number, None)
        if kept is not None:
            self.divergences, self._reported = kept
        else:  # a new fork: what diverged in its parent's turns up to the fork
            last = conversation.turns if conversation.cut_turn is None else conversation.turns - 1
            parent = self._branch_places.get(left.number, ([], set())) if left else ([], set())
            self.divergences = [d for d in parent[0] if d.turn <= last]
            self._reported = set(parent[1]) if self.divergences else set()
        since = [i for i, event in enumerate(self.events) if isinstance(event, TurnStarted)]
        self._this_turn = self.events[since[-1] :] if since else []

    def new_conversation(self) -> None:
        self.start_over()  # the scenario starts over (on the same database copy)
        super().new_conversation()

    def start_over(self) -> None:
        """From the first turn again, nothing diverged (after `open`, or on the same copy)."""
        self.events.clear()
        self.next_turn = 0
        self.divergences.clear()
        self._reported.clear()
        self._branch_places.clear()
        self._this_turn = []
        self.status.changed()

    def cancels_here(self, event: AgentEvent) -> bool:
        # As `replay` does: asked once per event, before the script answers anything.
        return self.script is not None and self.script.cancels(event)

    def divergences_at(self, event: AgentEvent) -> list[ScenarioDiverged]:
        if self.script is not None:
            self.script.answer(event)  # an approval question gets the scenario's answer
        if isinstance(event, TurnStarted):
            self._this_turn = []
        self._this_turn.append(event)
        if not 0 < self.next_turn <= len(self.scenario.turns):
            return []
        if isinstance(event, ToolFinished):
            return self._check_call(event)
        if isinstance(event, TurnFinished):
            return self._check_turn()
        return []

    def _check_call(self, event: ToolFinished) -> list[ScenarioDiverged]:
        checks = self.scenario.turns[self.next_turn - 1].expect.calls or []
        index = sum(isinstance(e, ToolFinished) for e in self._this_turn)
        if index > len(checks):
            return []  # an extra call: the turn's check names the sequence
        check = checks[index - 1]
        where = call_where(self.next_turn, index, check.tool)
        return self._diverged(where, check_call(where, check, event))

    def _check_turn(self) -> list[ScenarioDiverged]:
        if self.stack is None:
            return []
        turn = self.scenario.turns[self.next_turn - 1]
        unused = scripted_backend(self.stack).remaining
        found = check_turn(self.next_turn, turn, self._this_turn, unused)
        return self._diverged(f"turn {self.next_turn}", found)

    def _diverged(self, where: str, found: list[Finding]) -> list[ScenarioDiverged]:
        new = [finding for finding in found if finding not in self._reported]
        if not new:
            return []
        self._reported.update(new)
        divergence = ScenarioDiverged(
            self.next_turn, where, new[0].brief(), tuple(str(finding) for finding in new)
        )
        self.divergences.append(divergence)
        self.status.changed()
        return [divergence]

    # -- saving -------------------------------------------------------------------------
    def save_scenario(self, path: Path, redactor: Redactor) -> tuple[Path, str | None]:
        settings = self.scenario.settings
        changes = None
        current = self.working_database_file()  # the branch on screen
        if self._pristine is not None and current is not None:
            changes = diff_databases(self._pristine, current)
        scenario = record_scenario(
            self.events,
            name=_name(path),
            description=f"Recorded in the TUI ({self.source}).",
            dataset=self.scenario.dataset,
            customer=self.scenario.customer,
            settings=ScenarioSettings(
                guard=self.guard,
                approval=settings.approval,
                max_tool_calls=settings.max_tool_calls,
                model=self.agent.model if self.agent else "scripted",
                now=self.clock,
            ),
            changes=changes,
        )
        saved = save_scenario(scenario, path, redactor)
        return saved, replay_refusal(saved, scenario)


def _on(value: bool) -> str:
    return "on" if value else "OFF"


def _setting(name: str, value: str, before: str | None) -> str:
    if before is None or before == value:
        return f"{name} {value}"
    return f"{name} {value} (was {before})"


def _name(path: Path) -> str:

    return slug(path.stem)
