"""The TUI session's state, in one object: what runs, for whom, on which data, under
which rules — guard, customer, clock, approval policy and where the database came from.

The runs (live_run.py, playback.py) and the controller change it; the status line
renders it and keeps none of it. Whoever shows a part of it subscribes and is told after
every change. Changes happen on the UI's event loop (the turn's worker runs there too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from airline_agent.terminal_text import escape_controls

OriginKind = Literal["user", "scenario"]
Binding = Literal["chosen", "stated"]

# How the conversation came to act for its customer, in the trace's and the status's words.
BINDING_WORDS: dict[str, str] = {
    "chosen": "chosen for the session",
    "stated": "named by the customer, confirmed by",
}


@dataclass(frozen=True)
class DatabaseOrigin:
    """Where the session's database came from.

    `user`: the user's own database (`--db`, AIRLINE_AGENT_DB), as it was built — the
    sample generator's seed and scale or a τ² import, as it records itself (`built`);
    `scenario`: a fresh copy of a scenario's dataset, thrown away after the playback.
    """

    kind: OriginKind
    label: str  # for the status line: "data/airline.db", "fresh sample copy"
    location: str | None = None  # the user's path or URL (None for a scenario's copy)
    built: str = ""  # "sample seed 7", "τ² import", "the sample dataset"; "" until known

    @classmethod
    def user(cls, location: str, built: str = "") -> DatabaseOrigin:
        """The user's database; `built`: how, in short ('sample seed 7'), once known."""
        label = f"{location} ({built})" if built else location
        return cls("user", label, location=location, built=built)

    @classmethod
    def scenario(cls, dataset: str) -> DatabaseOrigin:
        return cls("scenario", f"fresh {dataset} copy", built=f"the {dataset} dataset")


@dataclass(frozen=True)
class CustomerBinding:
    """Whom the conversation acts for and how that came to be: chosen for the session
    (`--customer`, `u`, a scenario's customer) or stated by the customer and confirmed by
    a tool call (the loop's CustomerBound)."""

    how: Binding
    tool: str | None = None  # the tool that confirmed a stated id

    def describe(self) -> str:
        if self.how == "stated":
            return f"{BINDING_WORDS['stated']} {self.tool}"
        return BINDING_WORDS["chosen"]


@dataclass(frozen=True)
class StateSnapshot:
    """The settings of a run that waits (live, while a scenario plays), to come back to."""

    source: str
    origin: DatabaseOrigin
    guard: bool
    approval: str
    clock: str
    customer: str | None
    binding: CustomerBinding | None


class SessionState:
    """The one owner of the session's settings and identity (see the module's docstring)."""

    def __init__(
        self,
        *,
        source: str,
        origin: DatabaseOrigin,
        guard: bool,
        approval: str,
        clock: str,
        customer: str | None = None,
    ) -> None:
        self.source = source  # "model: gpt-4o-mini @ api.openai.com", "scenario: cancel-ehglp3"
        self.origin = origin
        self.guard = guard
        self.approval = approval  # "ask", "auto", "deny"; a scenario's "ask-accept", …
        self.clock = clock
        self.customer = customer
        self.binding: CustomerBinding | None = (
            CustomerBinding("chosen") if customer is not None else None
        )
        # What the session is doing now ("agent working… esc cancels"): shown, not a setting.
        self.activity = ""
        # A playback whose tool results no longer match its scenario: where and how.
        self.divergence: str | None = None
        # What the playing scenario set (guard, approval): a setting shown as changed by it.
        self.scenario_guard: bool | None = None
        self._listeners: list[Callable[[], None]] = []

    # -- changes --------------------------------------------------------------------
    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def update(
        self,
        *,
        source: str | None = None,
        origin: DatabaseOrigin | None = None,
        guard: bool | None = None,
        approval: str | None = None,
        clock: str | None = None,
    ) -> None:
        """Set what is given (None: unchanged), then tell the listeners once."""
        if source is not None:
            self.source = source
        if origin is not None:
            self.origin = origin
        if guard is not None:
            self.guard = guard
        if approval is not None:
            self.approval = approval
        if clock is not None:
            self.clock = clock
        self.changed()

    def act_for(self, customer: str | None, binding: CustomerBinding | None = None) -> None:
        """The session acts for `customer` (None: not identified)."""
        self.customer = customer
        if customer is None:
            self.binding = None
        else:
            self.binding = binding or CustomerBinding("chosen")
        self.changed()

    def show_activity(self, activity: str) -> None:
        if activity != self.activity:
            self.activity = activity
            self.changed()

    def diverged(self, divergence: str | None) -> None:
        self.divergence = divergence
        self.changed()

    def snapshot(self) -> StateSnapshot:
        return StateSnapshot(
            self.source,
            self.origin,
            self.guard,
            self.approval,
            self.clock,
            self.customer,
            self.binding,
        )

    def restore(self, snapshot: StateSnapshot) -> None:
        """Back to a waiting run's settings: nothing of a scenario's stays."""
        self.customer, self.binding = snapshot.customer, snapshot.binding
        self.scenario_guard = None
        self.divergence = None
        self.update(
            source=snapshot.source,
            origin=snapshot.origin,
            guard=snapshot.guard,
            approval=snapshot.approval,
            clock=snapshot.clock,
        )

    # -- what the status line says ----------------------------------------------------
    def status_parts(self) -> list[str]:
        """The status line, part by part (Rich markup)."""
        guard = "[b green]guard on[/]" if self.guard else "[b red]guard OFF[/]"
        if self.scenario_guard is not None and self.scenario_guard != self.guard:
            guard += " [red](the scenario's: " + ("on" if self.scenario_guard else "off") + ")[/]"
        parts = [
            f"[b]{_escape(self.source)}[/b]",
            f"customer [b]{_escape(self.customer or 'not identified')}[/b]",
            f"db {_escape(self.origin.label)}",
            guard,
            f"approval {_escape(self.approval)}",
            f"clock {_escape(self.clock)}",
        ]
        if self.divergence:
            parts.append(f"[b red]{_escape(self.divergence)}[/]")
        if self.activity:
            parts.append(f"[b yellow]{_escape(self.activity)}[/]")
        return parts


def _escape(text: str) -> str:
    """A part of the status line as text, never markup nor a terminal's command."""
    from rich.markup import escape

    return escape(escape_controls(text))
