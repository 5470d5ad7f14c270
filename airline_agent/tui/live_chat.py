"""The live chat: the agent over an OpenAI-compatible server, on the user's database.

Opened in a thread (opening, and building the sample on first start, take time): the
stack comes from `airline_agent.stack.live_stack`; what the database records of how it
was built is the feed's to tell (the status line, and what `r` restores). A
database that cannot be rebuilt as built is copied as it is opened, so that `r` can put
that copy back. Each conversation copies the database as it begins, so that a saved
conversation knows what it changed and which dataset it replays on.

The first screen shows this feed's facts before anything is open: the work on its database
(the stack, the copies, the reset, the recording) is `LiveDatabase`'s (tui/live_database.py),
whose modules `open` loads in its thread, the one door to them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from airline_agent.late_imports import importing
from airline_agent.redaction import redact_url
from airline_agent.settings_peek import PendingSettings
from airline_agent.tui.feed import Feed
from airline_agent.tui.status import DatabaseOrigin, Status

if TYPE_CHECKING:
    from airline_agent.agent.backends import ChatBackend
    from airline_agent.agent.breakpoints import Breakpoints
    from airline_agent.config import Settings
    from airline_agent.domain.loading import Progress
    from airline_agent.redaction import Redactor
    from airline_agent.stack import Stack
    from airline_agent.tui.database_reset import ResetPlan
    from airline_agent.tui.live_database import LiveDatabase


class LiveChat(Feed):
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
        self.problem: str | None = None  # why its database could not be opened
        self._origin = DatabaseOrigin.user(settings.db)
        self._database: LiveDatabase | None = None  # once opened: its stack, copies, reset
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
        # The door to the live database's modules (the stack: sqlmodel, openai; the
        # recorder), taken in the thread that opens it, after the first frame.
        with importing("airline_agent.tui.live_database"):
            # Alone: another thread's door may be importing (late_imports.py).
            from airline_agent.tui.live_database import LiveDatabase

        try:
            database = LiveDatabase(self.full_settings, id(self), progress)
        except Exception as error:
            self.problem = str(error)
            raise
        self.problem = None
        self._database = database
        stack = self._open_stack(database)
        built = database.remember_how_built(stack.database, self.database_file())
        self._origin = DatabaseOrigin.user(self.settings.db, built=built.short())

    def _open_stack(self, database: LiveDatabase) -> Stack:
        self.stack = stack = database.stack(
            customer=self._customer, guard=self._guard, backend=self._backend
        )
        self._use_breakpoints()
        self._backend = stack.backend
        return stack

    def customers(self) -> list[tuple[str, str]]:
        """Every customer of the database, (id, name), for the picker (`u`); none before
        it is open."""
        if self._database is None or self.stack is None:
            return []
        return self._database.customers(self.stack)

    # -- turns --------------------------------------------------------------------------
    async def before_turn(self) -> None:
        if not self.events and self._database is not None:
            # The conversation begins: copy the database as it is.
            await asyncio.to_thread(self._database.copy_start, self.database_file())

    # -- reset --------------------------------------------------------------------------
    def plan_reset(self, progress: Progress | None = None) -> ResetPlan:
        """What `r` would put back and lose (slow: a thread). Raises ValueError with a
        sentence when the database cannot be reset from here."""
        database = self._database
        if self.stack is None or database is None or database.built is None:
            raise ValueError(f"no database is open ({self.problem or 'it is still opening'})")
        current = self.database_file()
        if current is None:
            shown = redact_url(self.settings.db)
            raise ValueError(
                f"{shown} is not a SQLite file: rebuild it with "
                f"`airline-agent seed --db {shown} --force`"
            )
        return database.plan_reset(current, progress)

    def apply_reset(self, plan: ResetPlan) -> None:
        """Put the plan's database in place and reopen the stack (a thread)."""
        database = self._database
        assert database is not None, "a reset is applied to the database it was planned on"
        # Whom its conversations start with, and the guard: as they were before.
        self._customer = self.agent.customer if self.agent else self._customer
        self._guard = self.guard
        self.close()
        try:
            plan.apply()
        finally:
            plan.discard()
            database.reopen(plan.location)
            self._open_stack(database)
        self.events.clear()

    # -- saving -------------------------------------------------------------------------
    def save_scenario(self, path: Path, redactor: Redactor) -> tuple[Path, str | None]:
        """Saved, and a warning when its replay may drift (the start was not pristine)."""
        assert self._database is not None, "a conversation is saved once its database is open"
        # Under "ask" the recorder writes each answer: the most frequent as the default.
        approval = "ask-accept" if self.approval == "ask" else self.approval
        return self._database.save_conversation(
            self.events,
            path,
            redactor,
            source=self.source,
            current=self.working_database_file(),  # the branch on screen
            # Whom the conversation started with: a customer it bound is bound again.
            customer=self.agent.customer if self.agent else self.customer,
            guard=self.guard,
            approval=approval,  # type: ignore[arg-type]
            model=self.agent.model if self.agent else "scripted",
            now=self.clock,
        )

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
