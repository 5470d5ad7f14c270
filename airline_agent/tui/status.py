"""What the status line says: what runs, for whom, on which data, under which rules — and
what the app is doing now.

Each fact has one owner, and the status reads it there each time the line is drawn: the
customer from the conversation on screen (the loop binds it, and says so with an event),
the guard from the toolbox that enforces it, the rest from the feed on screen (where its
conversations come from, where its database came from, its approval mode and clock, a
playback's divergence from its scenario, and the debugger's: what comes next when a turn
is held, the breakpoints on, the branch shown). Only what the app is doing ("agent working…
esc cancels") is the status's own. Whoever changes a fact calls `changed()`; the status
line subscribes and repaints. Changes happen on the UI's event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from rich.markup import escape

from airline_agent.redaction import redact_url
from airline_agent.terminal_text import escape_controls

OriginKind = Literal["user", "scenario"]
AT_WORK = "agent working… esc cancels"  # the status line's word between waits
LIVE_WAITS = " · offline, the live chat waits (l)"  # never a silent switch from live


@dataclass(frozen=True)
class DatabaseOrigin:
    """Where a feed's database came from.

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
        shown = redact_url(location)  # the status line is on screen: no password
        label = f"{shown} ({built})" if built else shown
        return cls("user", label, location=location, built=built)

    @classmethod
    def scenario(cls, dataset: str) -> DatabaseOrigin:
        return cls("scenario", f"fresh {dataset} copy", built=f"the {dataset} dataset")


@dataclass(frozen=True)
class DebugFacts:
    """What the status line says of the debugger: the next step when a key makes it
    ("send request #2 (break: request)"), the breakpoints on, the branch shown
    ("branch 2/3", None while there is only one)."""

    next_step: str | None = None
    breakpoints: tuple[str, ...] = ()
    branch: str | None = None


class FeedFacts(Protocol):
    """What the status line reads of the feed on screen (tui/feed.py's `Feed` has them)."""

    @property
    def source(self) -> str: ...  # "model: gpt-4o-mini @ api.openai.com", "scenario: …"

    @property
    def customer(self) -> str | None: ...

    @property
    def origin(self) -> DatabaseOrigin: ...

    @property
    def guard(self) -> bool: ...

    @property
    def scenario_guard(self) -> bool | None: ...  # what the playing scenario set

    @property
    def rules_known(self) -> bool: ...  # False: the guard, approval and clock are not ours

    @property
    def approval(self) -> str: ...

    @property
    def clock(self) -> str: ...

    @property
    def divergence(self) -> str | None: ...

    @property
    def debugging(self) -> DebugFacts: ...


class Shown(Protocol):
    """Whose facts the status line shows: the feed on screen, and whether a live chat
    waits behind it (the controller)."""

    @property
    def feed(self) -> FeedFacts: ...

    @property
    def live_paused(self) -> bool: ...


class Status:
    """The status line's source: the shown feed's facts, read where they are owned, and
    what the app is doing (see the module's docstring)."""

    def __init__(self, shown: Shown | None = None) -> None:
        self.shown = shown  # set once by whoever owns the feeds (the controller)
        # What the app is doing now ("agent working… esc cancels"): shown, not a setting.
        self.activity = ""
        self._listeners: list[Callable[[], None]] = []

    # -- changes --------------------------------------------------------------------
    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def changed(self) -> None:
        """A fact shown changed (its owner says so): every listener repaints."""
        for listener in list(self._listeners):
            listener()

    def show_activity(self, activity: str) -> None:
        if activity != self.activity:
            self.activity = activity
            self.changed()

    # -- what the status line says ----------------------------------------------------
    def parts(self) -> list[str]:
        """The status line, part by part (Rich markup)."""
        parts: list[str] = []
        if self.shown is not None:
            parts = _feed_parts(self.shown.feed, waiting=self.shown.live_paused)
        if self.activity:
            parts.append(f"[b yellow]{_escape(self.activity)}[/]")
        return parts


def _feed_parts(feed: FeedFacts, *, waiting: bool) -> list[str]:
    if not feed.rules_known:
        parts = [f"[b]{_escape(feed.source)}[/b]"]
        return parts + ([f"customer [b]{_escape(feed.customer)}[/b]"] if feed.customer else [])
    guard = "[b green]guard on[/]" if feed.guard else "[b red]guard OFF[/]"
    if feed.scenario_guard is not None and feed.scenario_guard != feed.guard:
        guard += " [red](the scenario's: " + ("on" if feed.scenario_guard else "off") + ")[/]"
    source = feed.source + (LIVE_WAITS if waiting else "")
    parts = [
        f"[b]{_escape(source)}[/b]",
        f"customer [b]{_escape(feed.customer or 'not identified')}[/b]",
        f"db {_escape(feed.origin.label)}",
        guard,
        f"approval {_escape(feed.approval)}",
        f"clock {_escape(feed.clock)}",
    ]
    if feed.divergence:
        parts.append(f"[b red]{_escape(feed.divergence)}[/]")
    debugging = feed.debugging
    if debugging.branch:
        parts.append(f"[b]{_escape(debugging.branch)}[/b]")
    if debugging.breakpoints:
        parts.append(f"[magenta]break: {_escape(', '.join(debugging.breakpoints))}[/]")
    if debugging.next_step:
        parts.append(f"[b magenta]next: {_escape(debugging.next_step)}[/]")
    return parts


def _escape(text: str) -> str:
    """A part of the status line as text, never markup nor a terminal's command."""

    return escape(escape_controls(text))
