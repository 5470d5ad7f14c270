"""The live chat's database once it is open: the stack over it, how it was built, the
copies taken of it (as the app opened it, as each conversation began), its reset, and what
a saved conversation changed in it.

The heavy half of the live chat: it imports the stack (sqlmodel, openai) and the
scenarios' modules at its top, and `LiveChat.open` (tui/live_chat.py, the half the first
screen shows) loads it in the thread that opens the database, after the first frame.
Everything here is slow: the callers run it in a thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from airline_agent.agent.prefix import token_counter
from airline_agent.domain.sqlite_files import copy_sqlite
from airline_agent.scenarios import datasets
from airline_agent.scenarios.dbdiff import diff_databases
from airline_agent.scenarios.model import Approval, ScenarioSettings
from airline_agent.scenarios.provenance import match_dataset
from airline_agent.scenarios.recorder import record_scenario, replay_refusal, save_scenario
from airline_agent.stack import (
    Stack,
    database_provenance,
    list_customers,
    live_stack,
    open_existing_database,
    settings_database,
)
from airline_agent.tui.database_reset import ResetPlan, plan_reset
from airline_agent.tui.feed import slug

if TYPE_CHECKING:
    from airline_agent.agent.backends import ChatBackend
    from airline_agent.agent.events import AgentEvent
    from airline_agent.config import Settings
    from airline_agent.domain.db import Database
    from airline_agent.domain.loading import Progress
    from airline_agent.domain.provenance import Provenance
    from airline_agent.redaction import Redactor


class LiveDatabase:
    """The user's database, opened (and built on first start only at the default location)
    as the settings say; `owner` names the scratch copies taken of it."""

    def __init__(self, settings: Settings, owner: int, progress: Progress | None = None) -> None:
        self.settings = settings
        self.database: Database = settings_database(settings, progress=progress)
        self.built: Provenance | None = None  # how it was built (`remember_how_built`)
        self._owner = owner
        self._opened_copy: Path | None = None  # the database as opened (not rebuildable)
        self._start: Path | None = None  # the database as the conversation began

    def stack(self, *, customer: str | None, guard: bool, backend: ChatBackend | None) -> Stack:
        """The live stack over the database (`backend`: the one kept across a reset)."""
        # The tokenizer the session counts its requests' prefixes with, loaded here, in the
        # thread that opens the stack: at the first request it would hold the screen (a key
        # pressed then waits for it).
        token_counter()
        return live_stack(
            self.settings,
            customer=customer,
            guard=guard,
            database=self.database,
            backend=backend,
            debug=True,
        )

    def remember_how_built(self, opened: Database, location: Path | None) -> Provenance:
        """How the database at `location` (opened) was built; one that cannot be rebuilt as
        built is copied now, so that a reset can put that copy back."""
        self.built = database_provenance(opened)
        if self.built.why_not_rebuildable() is not None and location is not None:
            self._opened_copy = datasets.scratch_dir() / f"live-opened-{self._owner}.db"
            copy_sqlite(location, self._opened_copy)
        return self.built

    def copy_start(self, source: Path | None) -> None:
        """Copy the database as a conversation begins (a few milliseconds; None: not a
        SQLite file, nothing copied)."""
        if source is None:
            self._start = None
            return
        self._start = datasets.scratch_dir() / f"live-start-{self._owner}.db"
        copy_sqlite(source, self._start)

    # -- reset --------------------------------------------------------------------------
    def plan_reset(self, current: Path, progress: Progress | None = None) -> ResetPlan:
        """What a reset of `current` (the database's file) would put back and lose."""
        assert self.built is not None, "a reset is planned once the database is open"
        scratch = datasets.scratch_dir() / f"reset-{self._owner}.db"
        datasets.discard(scratch)
        return plan_reset(current, self.built, self._opened_copy, scratch, progress)

    def reopen(self, location: Path) -> None:
        """The database at `location` opened again (after a reset put another in place)."""
        self.database = open_existing_database(location)

    # -- what the live chat asks of it -----------------------------------------------------
    @staticmethod
    def customers(stack: Stack) -> list[tuple[str, str]]:
        """Every customer of the database, (id, name), for the picker (`u`)."""
        return list_customers(stack)

    def save_conversation(
        self,
        events: list[AgentEvent],
        path: Path,
        redactor: Redactor,
        *,
        source: str,
        current: Path | None,
        customer: str | None,
        guard: bool,
        approval: Approval,
        model: str,
        now: str,
    ) -> tuple[Path, str | None]:
        """The conversation as a scenario file at `path`, with what it changed since it
        began (`current`: the database file of the branch on screen); a warning when its
        replay may drift (the start was not pristine)."""
        origin = match_dataset(self._start)
        changes = None
        if self._start is not None and current is not None:
            changes = diff_databases(self._start, current)
        scenario = record_scenario(
            events,
            name=slug(path.stem),
            description=origin.describe(f"Recorded in the TUI ({source})."),
            dataset=origin.dataset,
            customer=customer,
            settings=ScenarioSettings(
                guard=guard,
                approval=approval,
                max_tool_calls=self.settings.max_tool_calls,
                model=model,
                now=now,
            ),
            changes=changes,
        )
        saved = save_scenario(scenario, path, redactor)
        said = [w for w in (origin.warning, replay_refusal(saved, scenario)) if w]
        return saved, "; ".join(said) or None
