"""The one place that builds the stack: database, clock, toolbox, backend and session.

Every front end gets its stack here — the chat REPL and the TUI's live mode
(`live_stack`), scenario playback in the TUI and `replay`, and the τ² runs
(`scripted_stack`), `eval` (`eval_backends` and `eval_databases` once per run, then
`live_stack` per trial over its own database copy, and `reference_toolbox` for the
reference end states), `call` (`tool_caller`), `seed` and `export` (`build_database`,
`open_existing_database`), and the MCP server's sessions (`session_tool_caller` over
`private_copy`, a copy from `session_copies` on PostgreSQL, or the shared database) — so a
change to how the parts fit together is made once. With `debug=True` a stack also
gets the debugger (agent/debugger.py): breakpoints, holds and forks, whose branches'
databases are copies this module opens (`BranchCopies`). Importing it imports the whole
agent (sqlmodel, openai, the loop): the TUI's first screen and `--help` import it only in
the functions that build a stack.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING

from airline_agent.agent.backends import ChatBackend, ScriptedBackend, ScriptedResponse
from airline_agent.agent.debugger import Debugger, ForkFailed
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.agent.prompt import AgentTexts
from airline_agent.choices import Api, ApprovalMode
from airline_agent.config import Settings
from airline_agent.domain.clock import DEFAULT_NOW, Clock
from airline_agent.domain.database_urls import redact_url
from airline_agent.domain.db import Database
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.loading import Progress
from airline_agent.domain.operations import list_customers as customers_of
from airline_agent.domain.postgres import TemplateCopies, postgres_url
from airline_agent.domain.provenance import Provenance
from airline_agent.domain.provisioning import DEFAULT_SEED, ensure_database, provenance
from airline_agent.domain.provisioning import build_as_built as build_from_record
from airline_agent.domain.provisioning import build_database as build_sample
from airline_agent.domain.sqlite_files import copy_sqlite, remove_database_files
from airline_agent.late_imports import importing
from airline_agent.redaction import Redactor
from airline_agent.scenarios.datasets import DatasetCopies, FileDatasets, ServerDatasets
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import ToolOutcome
from airline_agent.tools.toolbox import Toolbox

if TYPE_CHECKING:
    # Built in `_model_backend`, only when a model is to be talked to.
    from airline_agent.agent.openai_backends import OpenAIBackend

    # Names for the annotations: `call` and the MCP server need no scenario models.
    from airline_agent.scenarios.model import Approval, Scenario


def open_database(
    location: str | Path,
    *,
    progress: Progress | None = None,
    build_if_missing: bool = False,
    rebuild: bool = False,
    seed: int | None = None,
    scale: int = 1,
) -> Database:
    """The database at `location` (a missing one is DatabaseUnavailable, saying how to
    create it); `build_if_missing`: built as the default sample first when it is absent;
    `rebuild`: built again in its place, as the sample of `seed` and `scale`. Raises
    DatabaseUnavailable, said plainly."""
    if rebuild:
        return build_database(location, seed=seed, scale=scale, force=True, progress=progress)
    if build_if_missing:
        return ensure_database(location, progress=progress)
    return Database.open(location)


def build_database(
    location: str | Path,
    *,
    seed: int | None = None,
    scale: int = 1,
    tau2: Path | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> Database:
    """A database built at `location` (`seed`): the sample of `seed` (default: the
    documented one) and `scale`, or the import of the τ² file `tau2`. An existing one is
    replaced only with `force`, and only when it is ours (provisioning.py)."""
    seed = DEFAULT_SEED if seed is None else seed
    return build_sample(location, seed=seed, scale=scale, tau2=tau2, force=force, progress=progress)


def settings_database(settings: Settings, *, progress: Progress | None = None) -> Database:
    """The database the settings name. Built first only at the default location when no
    database was named (docs/database.md, "Build it": built on first use); a named one that
    is missing is refused (`Settings.db_named`: it may be a typo)."""
    return open_database(settings.db, progress=progress, build_if_missing=not settings.db_named)


def database_provenance(database: Database) -> Provenance:
    """How `database` was built, as it records it (domain/provenance.py)."""
    return provenance(database)


def build_as_built(built: Provenance, location: Path, *, progress: Progress | None = None) -> None:
    """A new database at `location` (replacing any there), built exactly as `built` says;
    `built` must be rebuildable."""
    build_from_record(built, location, force=True, progress=progress).close()


def open_existing_database(location: str | Path) -> Database:
    """The database at `location`, never built: a missing one is DatabaseUnavailable."""
    return Database.open(location)


def toolbox(
    database: Database,
    *,
    now: str | None = None,
    guard: bool = True,
    settings: Settings | None = None,
    dated_direct_flights: bool = True,
) -> Toolbox:
    """The tools over `database`; with `settings`, every text of a call's arguments has the
    secrets of those settings blanked out before a tool sees it (and so stores it);
    `dated_direct_flights=False`: search_direct_flight answers as τ²'s (dates null)."""
    secrets = Redactor.from_settings(settings)
    scrub = secrets.blank_secrets if secrets.forms else None
    return Toolbox(
        database,
        clock=Clock.at(now or DEFAULT_NOW),
        guard=guard,
        scrub=scrub,
        dated_direct_flights=dated_direct_flights,
    )


@dataclass
class Stack:
    """A running agent: its session (and through it the backend and toolbox) and the
    database it owns; with `debug=True` its debugger, whose current branch the session
    works on (`toolbox` is that branch's; `database` stays the stack's own). `close`
    releases the database and every branch's copy; `aclose` the backend too."""

    database: Database
    session: AgentSession
    debugger: Debugger | None = None

    @property
    def toolbox(self) -> Toolbox:
        return self.session.toolbox

    @property
    def backend(self) -> ChatBackend:
        return self.session.backend

    def close(self) -> None:
        if self.debugger is not None:
            self.debugger.close()
        self.database.close()

    async def aclose(self) -> None:
        close = getattr(self.session.backend, "aclose", None)
        if close is not None:
            await close()
        self.close()


class BranchCopies:
    """The debugger's databases (agent/debugger.py `BranchDatabases`): copies of a SQLite
    database in a temporary folder of their own, each opened as `open_existing_database`
    opens one and given tools like the stack's. The folder is made with the first copy (a
    stack never forked, or not on a SQLite file, makes none) and removed on `close`."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self._made = 0

    def _new_file(self, what: str) -> Path:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="airline-agent-branches-"))
        self._made += 1
        return self.folder / f"{what}-{self._made}.db"

    def file_copy(self, toolbox: Toolbox) -> Path:
        """A whole copy (SQLite's backup API: taken while the database is open)."""
        source = _sqlite_source(toolbox.database)
        target = self._new_file("start")
        copy_sqlite(source, target)
        return target

    def copy(self, source: Path | Toolbox, like: Toolbox) -> Toolbox:
        if isinstance(source, Path):
            target = self._new_file("branch")
            shutil.copyfile(source, target)  # a copy we took (`file_copy`), closed: a plain copy
        else:
            origin = _sqlite_source(source.database)
            target = self._new_file("branch")
            copy_sqlite(origin, target)
        database = open_existing_database(target)
        return Toolbox(
            database,
            clock=like.clock,
            guard=like.guard,
            scrub=like.scrub,
            dated_direct_flights=like.dated_direct_flights,
        )

    def replaying(self, toolbox: Toolbox) -> Toolbox:
        return Toolbox(
            toolbox.database,
            clock=toolbox.clock,
            guard=False,
            scrub=toolbox.scrub,
            dated_direct_flights=toolbox.dated_direct_flights,
        )

    def discard(self, toolbox: Toolbox) -> None:
        toolbox.database.close()
        sqlite_file = toolbox.database.sqlite_file
        if sqlite_file is not None and sqlite_file.path.parent == self.folder:
            remove_database_files(sqlite_file.path)

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def _sqlite_source(database: Database) -> Path:

    if database.sqlite_file is None:
        raise ForkFailed(
            f"{database.location} is not a SQLite file: it cannot be copied, so this "
            "conversation cannot be forked"
        )
    return database.sqlite_file.path


def _debugged(stack: Stack) -> Stack:
    """The stack with a debugger attached (a new conversation begins on branch 1)."""
    stack.debugger = Debugger(stack.session, BranchCopies())
    stack.session.use_hooks(stack.debugger)
    return stack


def live_stack(
    settings: Settings,
    *,
    customer: str | None = None,
    guard: bool | None = None,
    database: Database | None = None,
    backend: ChatBackend | None = None,
    debug: bool = False,
    options: LoopOptions | None = None,
    texts: AgentTexts | None = None,
) -> Stack:
    """The agent over an OpenAI-compatible server (chat, the TUI's live mode, eval).

    `database`: one already open (else the settings' database, opened or built);
    `backend`: one to keep (the TUI keeps its client across a reset); `debug`: with the
    debugger; `options`: the loop's, instead of the settings'; `texts`: the agent told in
    another's words (τ²'s runner's, `eval --like tau2`: its system message, tool schemas
    and greeting; its search_direct_flight answers as τ²'s then). Raises
    BackendConfigError or DatabaseUnavailable, each one plain sentence."""
    backend = backend or _model_backend(settings)
    database = database or settings_database(settings)
    guard = settings.guard if guard is None else guard
    tools = toolbox(
        database,
        now=settings.now,
        guard=guard,
        settings=settings,
        dated_direct_flights=texts is None,
    )
    session = AgentSession(
        backend,
        tools,
        options or LoopOptions.from_settings(settings),
        customer=customer,
        system_prompt=None if texts is None else texts.system_prompt,
        tools=None if texts is None else list(texts.tools),
        greeting=None if texts is None else texts.greeting,
    )
    stack = Stack(database, session)
    return _debugged(stack) if debug else stack


@dataclass
class EvalBackends:
    """The two models of an `eval` run, each one client shared by every trial: the agent
    under test and the simulated customer (who may be another model on another server)."""

    agent: ChatBackend
    customer: ChatBackend

    async def aclose(self) -> None:
        for backend in dict.fromkeys((self.agent, self.customer)):  # maybe one client
            close = getattr(backend, "aclose", None)
            if close is not None:
                await close()


def eval_backends(agent: Settings, customer: Settings) -> EvalBackends:
    """Raises BackendConfigError (no model, no key for api.openai.com), said plainly. The
    agent speaks its settings' wire (`--api`); the simulated customer always speaks Chat
    Completions (τ²-bench's user simulator does), so it shares the agent's client only
    when the agent does too."""
    agent_backend = _model_backend(agent)
    same = (customer.model, customer.base_url, "chat") == (agent.model, agent.base_url, agent.api)
    customer_backend = agent_backend if same else _model_backend(customer, chat_completions=True)
    return EvalBackends(agent_backend, customer_backend)


def _model_backend(settings: Settings, *, chat_completions: bool = False) -> OpenAIBackend:
    """The client of the settings' server, on the settings' wire (`--api`), or on Chat
    Completions whatever it is. Raises BackendConfigError (no model, no key for
    api.openai.com)."""
    # The door to `openai` (0.6 s): only a stack that talks to a model loads it; `call`,
    # `seed`, `replay` and the MCP server build none.
    with importing("airline_agent.agent.openai_backends"):
        # Alone: another thread's door may be importing (late_imports.py).
        from airline_agent.agent.openai_backends import OpenAIBackend, backend_for

    if chat_completions:
        return OpenAIBackend.from_settings(settings)
    return backend_for(settings)


def eval_databases(location: str | None, tau2_directory: Path) -> DatasetCopies:
    """Where an `eval` run's databases (the import of db.json, the reference end states,
    each trial's copy) are made: files in a scratch folder, or, for `--db` with a
    PostgreSQL URL, databases on that server, each trial's a TEMPLATE copy. Raises
    DatabaseUnavailable when `location` is not a PostgreSQL URL."""
    if location is None:
        return FileDatasets("tau2", tau2_directory)
    if postgres_url(location) is None:
        raise DatabaseUnavailable(
            f"--db {redact_url(location)}: eval makes its databases on a PostgreSQL server "
            "(postgresql://user@host/NAME); without --db they are files of the run"
        )
    return ServerDatasets(location, "tau2", tau2_directory)


def reference_toolbox(database: Database, *, now: str | None = None) -> Toolbox:
    """The tools as τ²'s reference solutions run: guard off (the benchmark's semantics)."""
    return toolbox(database, now=now, guard=False)


def scripted_stack(
    database: Database,
    options: LoopOptions,
    *,
    now: str | None = None,
    guard: bool = True,
    customer: str | None = None,
    responses: Iterable[ScriptedResponse] = (),
    debug: bool = False,
    dated_direct_flights: bool = True,
    api: Api = "chat",
) -> Stack:
    """The real loop and tools with a scripted model (replay, playback, τ² runs);
    `debug`: with the debugger; `dated_direct_flights=False`: search_direct_flight answers
    as τ²'s (a scenario `eval --like tau2` recorded); `api`: the wire its answers are
    generated on."""
    tools = toolbox(database, now=now, guard=guard, dated_direct_flights=dated_direct_flights)
    # The generated responses carry the domain's time (as UTC), not the wall clock's:
    # a replay shows the same bodies every time.
    moment = tools.clock.now
    created = int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp())
    model = options.model or "scripted"
    backend = ScriptedBackend(responses, model=model, created=created, api=api)
    # A script has no network to stall: no watch for silences (it costs a task a request).
    options = replace(options, stall_notice=None)
    stack = Stack(database, AgentSession(backend, tools, options, customer=customer))
    return _debugged(stack) if debug else stack


# A scenario's approval setting as the loop's: the customer's answer is the script's.
LOOP_APPROVAL: dict[Approval, ApprovalMode] = {
    "auto": "auto",
    "ask-accept": "ask",
    "ask-decline": "ask",
    "deny": "deny",
}


def scenario_stack(
    scenario: Scenario,
    database: Database,
    *,
    stream: bool = False,
    debug: bool = False,
    api: Api = "chat",
) -> Stack:
    """A scenario's stack: its settings (clock, guard, approvals, limits, customer) over
    `database`, a fresh copy of its dataset; the script is loaded turn by turn. `debug`:
    with the debugger; `api`: the wire it plays on (a scenario plays on either)."""
    settings = scenario.settings
    options = LoopOptions(
        model=settings.model,
        max_tool_calls=settings.max_tool_calls,
        approval=LOOP_APPROVAL[settings.approval],
        stream=stream,
        retries=0,
    )
    if settings.max_requests is not None:
        options.max_requests = settings.max_requests
    return scripted_stack(
        database,
        options,
        now=settings.now,
        guard=settings.guard,
        customer=scenario.customer,
        debug=debug,
        dated_direct_flights=settings.tool_results != "tau2",
        api=api,
    )


def scripted_backend(stack: Stack) -> ScriptedBackend:

    backend = stack.session.backend
    assert isinstance(backend, ScriptedBackend), "a scripted stack's backend"
    return backend


@dataclass
class ToolCaller:
    """One tool call as the agent would make it, outside any chat (`airline-agent call`)."""

    database: Database
    toolbox: Toolbox
    conversation: ToolConversation

    def call(self, name: str, arguments: dict | str | None) -> ToolOutcome:
        return self.toolbox.call(name, arguments, self.conversation)

    def close(self) -> None:
        self.database.close()


def list_customers(stack: Stack) -> list[tuple[str, str]]:
    """Every customer of the stack's database, (id, name): whom a front end may act for
    (the TUI's `u`)."""
    return customers_of(stack.database)


def tool_caller(settings: Settings, *, customer: str | None = None) -> ToolCaller:

    database = settings_database(settings)
    tools = toolbox(database, now=settings.now, guard=settings.guard, settings=settings)
    return ToolCaller(database, tools, ToolConversation(customer=customer))


def session_tool_caller(
    database: Database, settings: Settings, *, customer: str | None = None
) -> ToolCaller:
    """One MCP session's tools: a toolbox over `database` (the session's own copy, or the
    database every session shares) and a conversation of its own, nobody bound unless
    `customer` is given. The client is the agent and no customer's words reach the
    server, so the conversation does not listen for a user id (`hears_customer`)."""
    tools = toolbox(database, now=settings.now, guard=settings.guard, settings=settings)
    return ToolCaller(database, tools, ToolConversation(customer=customer))


def session_copies(database: Database) -> TemplateCopies:
    """For sessions that each work on their own copy of a database on a PostgreSQL server
    (MCP): a template of it as it is now, made by the server (`CREATE DATABASE … TEMPLATE`;
    this Database's own connections are closed first, and opened again when next needed),
    from which each session's copy is made the same way. Raises DatabaseUnavailable, in
    one line, when others are connected to it (PostgreSQL copies only a database nobody
    uses) or the user may not create databases."""
    database.disconnect()
    return TemplateCopies.copied(database.engine.url.render_as_string(hide_password=False))


def private_copy(database: Database, target: Path) -> Database:
    """A copy of a SQLite database at `target` (taken whole while it may be open, WAL
    included), opened. Raises DatabaseUnavailable when the database is not a SQLite file."""
    source = database.path
    if source is None:
        raise DatabaseUnavailable(
            f"{database.location}: not a SQLite file, so it cannot be copied for each session"
        )
    copy_sqlite(source, target)
    return open_existing_database(target)
