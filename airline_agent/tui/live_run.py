"""The live run: the agent over an OpenAI-compatible server, on the user's database.

Opened in a thread (opening, and building the sample on first start, take time): the
stack comes from `airline_agent.stack.live_stack`; what the database records of how it
was built is the run's to tell (the status line, and what `r` restores). A
database that cannot be rebuilt as built is copied as it is opened, so that `r` can put
that copy back. Each conversation copies the database as it begins, so that a saved
conversation knows what it changed and which dataset it replays on.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from airline_agent.redaction import redact_url
from airline_agent.settings_peek import PendingSettings
from airline_agent.tui.database_reset import ResetPlan, apply_reset, discard, plan_reset
from airline_agent.tui.run import Run, slug
from airline_agent.tui.status import DatabaseOrigin, Status

if TYPE_CHECKING:
    from airline_agent.agent.backends import ChatBackend
    from airline_agent.agent.breakpoints import Breakpoints
    from airline_agent.config import Settings
    from airline_agent.domain.db import Database
    from airline_agent.domain.loading import Progress
    from airline_agent.domain.provenance import Provenance
    from airline_agent.redaction import Redactor


class LiveRun(Run):
    mode = "live"

    def __init__(
        self,
        status: Status,
        settings: Settings | PendingSettings,
        *,
        breakpoints: Breakpoints | None = None,
    ) -> None:
        """`PendingSettings` until the full settings are read (`settings_read`): the
        first screen shows at once, the database opens after that."""
        super().__init__(status, guard=settings.guard, clock=settings.now, breakpoints=breakpoints)
        self.settings = settings
        self.built: Provenance | None = None  # how the database was built, once it is open
        self.problem: str | None = None  # why its database could not be opened
        self._origin = DatabaseOrigin.user(settings.db)
        self._opened_copy: Path | None = None  # the database as opened (not rebuildable)
        self._start: Path | None = None  # the database as the conversation began
        self._backend: ChatBackend | None = None  # kept across a reset (its client)

    # -- the facts the status line shows ------------------------------------------------
    @property
    def source(self) -> str:
        return live_source(self.settings)

    @property
    def origin(self) -> DatabaseOrigin:
        return self._origin

    @property
    def approval(self) -> str:
        return self.settings.approve

    @property
    def full_settings(self) -> Settings:
        """The settings read in full: they are, before the database opens (so before any
        turn, reset or save)."""
        settings = self.settings
        assert not isinstance(settings, PendingSettings), "settings read before opening"
        return settings

    def settings_read(self, settings: Settings, peeked: Settings | PendingSettings | None) -> None:
        super().settings_read(settings, peeked)
        self.settings = settings
        if self.stack is None:
            self._origin = DatabaseOrigin.user(settings.db)

    # -- opening ------------------------------------------------------------------------
    def open(self, progress: Progress | None = None) -> None:
        """Open the database (built on first start only at the default location) and the
        stack (in a thread: the status line learns of it from the caller, on the UI's
        loop)."""
        # The stack (sqlmodel, openai): imported in the thread that opens it, after the first frame.
        from airline_agent.stack import settings_database

        try:
            database = settings_database(self.full_settings, progress=progress)
        except Exception as error:
            self.problem = str(error)
            raise
        self.problem = None
        self._open_stack(database, self._customer)
        built = self._remember_how_built()
        self._origin = DatabaseOrigin.user(self.settings.db, built=built.short())

    def _open_stack(self, database: Database, customer: str | None) -> None:
        # The stack (sqlmodel, openai): imported in the thread that opens it, after the first frame.
        from airline_agent.stack import live_stack

        self.stack = live_stack(
            self.full_settings,
            customer=customer,
            guard=self._guard,
            database=database,
            backend=self._backend,
            debug=True,
        )
        self._use_breakpoints()
        self._backend = self.stack.backend

    def _remember_how_built(self) -> Provenance:
        # The stack and datasets: in the opening thread, after the first screen.
        from airline_agent.domain.sqlite_files import copy_sqlite
        from airline_agent.scenarios import datasets
        from airline_agent.stack import database_provenance

        assert self.stack is not None
        self.built = database_provenance(self.stack.database)
        location = self.database_file()
        if self.built.why_not_rebuildable() is not None and location is not None:
            self._opened_copy = datasets.scratch_dir() / f"live-opened-{id(self)}.db"
            copy_sqlite(location, self._opened_copy)
        return self.built

    # -- turns --------------------------------------------------------------------------
    async def _before_turn(self) -> None:
        if not self.events:  # the conversation begins: copy the database as it is
            await asyncio.to_thread(self._copy_start)

    def _copy_start(self) -> None:
        """Copy the live database as this conversation begins (a few milliseconds)."""
        # The datasets' module (the stack): after the first screen, when a conversation starts.
        from airline_agent.domain.sqlite_files import copy_sqlite
        from airline_agent.scenarios import datasets

        source = self.database_file()
        if source is None:
            self._start = None
            return
        self._start = datasets.scratch_dir() / f"live-start-{id(self)}.db"
        copy_sqlite(source, self._start)

    # -- reset --------------------------------------------------------------------------
    def plan_reset(self, progress: Progress | None = None) -> ResetPlan:
        """What `r` would put back and lose (slow: a thread). Raises ValueError with a
        sentence when the database cannot be reset from here."""
        # The datasets' module: only for a reset, after the first screen.
        from airline_agent.scenarios import datasets

        if self.stack is None or self.built is None:
            raise ValueError(f"no database is open ({self.problem or 'it is still opening'})")
        current = self.database_file()
        if current is None:
            shown = redact_url(self.settings.db)
            raise ValueError(
                f"{shown} is not a SQLite file: rebuild it with "
                f"`airline-agent seed --db {shown} --force`"
            )
        scratch = datasets.scratch_dir() / f"reset-{id(self)}.db"
        datasets.discard(scratch)
        return plan_reset(current, self.built, self._opened_copy, scratch, progress)

    def apply_reset(self, plan: ResetPlan) -> None:
        """Put the plan's database in place and reopen the stack (a thread)."""
        # The stack (sqlmodel): only for a reset, after the first screen.
        from airline_agent.stack import open_existing_database

        # Whom its conversations start with, and the guard: as they were before.
        self._customer = self.agent.customer if self.agent else self._customer
        self._guard = self.guard
        self.close()
        try:
            apply_reset(plan)
        finally:
            discard(plan)
            self._open_stack(open_existing_database(plan.location), self._customer)
        self.events.clear()

    # -- saving -------------------------------------------------------------------------
    def save_scenario(self, path: Path, redactor: Redactor) -> tuple[Path, str | None]:
        """Saved, and a warning when its replay may drift (the start was not pristine)."""
        # The recorder's modules (pydantic): only when saving, never before the first screen.
        from airline_agent.scenarios.dbdiff import diff_databases
        from airline_agent.scenarios.model import ScenarioSettings
        from airline_agent.scenarios.provenance import match_dataset
        from airline_agent.scenarios.recorder import record_scenario, replay_refusal, save_scenario

        # Under "ask" the recorder writes each answer: the most frequent as the default.
        approval = "ask-accept" if self.approval == "ask" else self.approval
        origin = match_dataset(self._start)
        current = self.working_database_file()  # the branch on screen
        changes = None
        if self._start is not None and current is not None:
            changes = diff_databases(self._start, current)
        scenario = record_scenario(
            self.events,
            name=slug(path.stem),
            description=origin.describe(f"Recorded in the TUI ({self.source})."),
            dataset=origin.dataset,
            # Whom the conversation started with: a customer it bound is bound again.
            customer=self.agent.customer if self.agent else self.customer,
            settings=ScenarioSettings(
                guard=self.guard,
                approval=approval,  # type: ignore[arg-type]
                max_tool_calls=self.full_settings.max_tool_calls,
                model=self.agent.model if self.agent else "scripted",
                now=self.clock,
            ),
            changes=changes,
        )
        saved = save_scenario(scenario, path, redactor)
        said = [w for w in (origin.warning, replay_refusal(saved, scenario)) if w]
        return saved, "; ".join(said) or None

    def _read_settings(self) -> Settings:
        """The settings read in full (they are, once a stack is open)."""
        settings = self.settings
        assert not isinstance(settings, PendingSettings), "settings are read before a stack opens"
        return settings


def live_source(settings: Settings | PendingSettings) -> str:
    """'model: gpt-4o-mini @ api.openai.com' (a password in the base URL masked)."""
    host = "api.openai.com"
    if settings.base_url:
        # A credential in the URL (http://user:key@host) is masked before it is shown.
        shown = redact_url(settings.base_url)
        host = urlsplit(shown).netloc or shown
    return f"model: {settings.model} @ {host}"
