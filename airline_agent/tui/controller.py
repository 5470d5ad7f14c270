"""Turns `Settings` into a running agent session for the TUI, live or playing a scenario.

Live: an `OpenAIBackend` on the user's database, copied when a conversation starts so a
saved conversation knows what it changed and which dataset it replays on. Offline: a
`ScriptedBackend` fed one turn at a time from a scenario, on a fresh copy of the
scenario's dataset (as `replay` does), so playing a scenario never changes the user's
database.

Heavy modules (openai, sqlmodel, the loop) are imported inside the methods that need
them, so the first screen does not wait for them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from airline_agent.agent.events import AgentEvent, CustomerBound
from airline_agent.tui.widgets.status_bar import SessionStatus

if TYPE_CHECKING:
    from airline_agent.config import Settings
    from airline_agent.scenarios.model import Scenario
    from airline_agent.scenarios.script import ScenarioScript
    from airline_agent.settings_peek import PendingSettings

Progress = Callable[[str, int, int], None]
Mode = Literal["live", "offline"]


@dataclass(frozen=True)
class ScenarioChoice:
    name: str
    description: str
    turns: int
    problem: str | None = None  # the file could not be loaded: why


class SessionController:
    """What the app asks of a session. Subclasses decide where the events come from."""

    mode: Mode = "offline"
    secret: str | None = None  # the API key, only to keep it off the screen

    def __init__(self, status: SessionStatus) -> None:
        self.status = status
        self.events: list[AgentEvent] = []  # the conversation so far, for saving it
        self.scenario_name: str | None = None
        # Tells the user something worth knowing after an action (the app shows it).
        self.warn: Callable[[str], None] = lambda text: None

    # -- library ----------------------------------------------------------------
    def scenario_choices(self) -> list[ScenarioChoice]:
        """The library, every file validated (problems named)."""
        return []

    def quick_choices(self) -> list[ScenarioChoice] | None:
        """The library as its files say, before validation (None: no quicker way)."""
        return None

    async def start_scenario(self, name: str, progress: Progress | None = None) -> None:
        raise NotImplementedError

    def next_customer_message(self) -> str | None:
        """Offline: the next turn's customer message (and its script), None at the end."""
        return None

    @property
    def steps_left(self) -> int:
        return 0

    # -- session ----------------------------------------------------------------
    async def settle(self) -> None:
        """Finish reading the settings (after the first frame); may raise SettingsError."""

    async def prepare(self, progress: Progress | None = None) -> None:
        """Open (and seed on first start) the database; may be slow, runs in a worker."""

    async def run_turn(self, text: str) -> AsyncIterator[AgentEvent]:
        raise NotImplementedError
        yield  # pragma: no cover

    async def reset_database(self, progress: Progress | None = None) -> None:
        raise NotImplementedError

    def new_conversation(self) -> None:
        self.events.clear()

    def set_guard(self, on: bool) -> None:
        self.status = self.status.with_(guard=on)

    def set_customer(self, customer: str | None) -> None:
        self.status = self.status.with_(customer=customer)
        self.new_conversation()

    def save_scenario(self, path: Path) -> Path:
        raise NotImplementedError

    def save_transcript(self, directory: Path) -> list[Path]:
        raise NotImplementedError


class AgentController(SessionController):
    """The real thing: the agent loop, the toolbox and a database."""

    def __init__(
        self, settings: Settings | PendingSettings, *, library: Path | None = None
    ) -> None:
        """`PendingSettings`: the first screen shows at once, `settle` builds `Settings`."""
        self.library = library  # None: the shipped library (data/scenarios)
        self.mode = "live" if settings.model_configured else "offline"
        self._pending: PendingSettings | None = None
        self._settling: asyncio.Future[Settings] | None = None
        if _is_pending(settings):
            self._pending = settings  # type: ignore[assignment]
        else:
            self._use(settings)  # type: ignore[arg-type]
        super().__init__(
            SessionStatus(
                source=_live_source(settings) if self.mode == "live" else "offline: no scenario",
                customer=None,
                database=settings.db,
                guard=settings.guard,
                approval=settings.approve if self.mode == "live" else "scenario",
                clock=settings.now,
            )
        )
        self.customer: str | None = None  # live: who the session acts for from the start
        self._database: Any = None
        self._session: Any = None
        self._scenario: Scenario | None = None
        self._script: ScenarioScript | None = None  # offline: feeds the model, answers
        self._next_turn = 0
        self._copy: Path | None = None  # offline: this play's private database file
        self._pristine: Path | None = None
        self._start: Path | None = None  # live: the database as the conversation began
        self._paths: dict[str, Path] = {}  # scenario name -> its file

    def _use(self, settings: Settings) -> None:
        if self.mode == "offline" and settings.model:
            settings = settings.model_copy(update={"model": None})
        self.settings = settings
        self.secret = settings.api_key.get_secret_value() if settings.api_key else None

    async def settle(self) -> None:
        pending = self._pending
        if pending is None:
            return
        if self._settling is None:  # one read, however many workers wait for it
            self._settling = asyncio.ensure_future(asyncio.to_thread(pending.load))
        settings = await asyncio.shield(self._settling)
        if self._pending is None:
            return
        self._pending = None
        self._use(settings)
        # The peeked values were the same; the status line now shows the settings' own.
        changes: dict[str, object] = {"database": settings.db, "clock": settings.now}
        if self.status.guard == pending.guard:  # not toggled meanwhile
            changes["guard"] = settings.guard
        if self.mode == "live":
            changes |= {"source": _live_source(settings), "approval": settings.approve}
        if self.scenario_name is None:
            self.status = self.status.with_(**changes)

    # -- library ----------------------------------------------------------------
    def scenario_choices(self) -> list[ScenarioChoice]:
        from airline_agent.scenarios.library import SHOWCASE, library_dir
        from airline_agent.scenarios.loader import (
            ScenarioLoadError,
            load_scenario,
            scenario_paths,
        )

        choices = []
        for path in scenario_paths([self.library or library_dir()]):
            try:
                scenario = load_scenario(path)
            except ScenarioLoadError as error:
                choices.append(ScenarioChoice(path.stem, str(error), 0, problem=str(error)))
                continue
            self._paths[scenario.name] = path
            choices.append(ScenarioChoice(scenario.name, scenario.description, len(scenario.turns)))
        choices.sort(key=lambda c: (c.problem is not None, c.name != SHOWCASE, c.name))
        return choices

    def quick_choices(self) -> list[ScenarioChoice] | None:
        # The first screen: each file's name, description and turns from its YAML alone
        # (libyaml, no pydantic); `scenario_choices` validates right after.
        from airline_agent.scenarios.library import SHOWCASE, library_dir
        from airline_agent.scenarios.yaml_text import scenario_paths_in, summary

        choices = []
        for path in scenario_paths_in(self.library or library_dir()):
            found = summary(path)
            if found is None:  # unreadable: the loader says why, in its words
                return None
            name, description, turns = found
            self._paths.setdefault(name, path)
            choices.append(ScenarioChoice(name, description, turns))
        choices.sort(key=lambda c: (c.name != SHOWCASE, c.name))
        return choices

    def _scenario_path(self, name: str) -> Path:
        from airline_agent.scenarios.library import library_dir

        path = Path(name)
        if path.suffix in (".yaml", ".yml"):
            return path
        if name not in self._paths:
            self.scenario_choices()
        return self._paths.get(name) or (self.library or library_dir()) / f"{name}.yaml"

    async def start_scenario(self, name: str, progress: Progress | None = None) -> None:
        from airline_agent.scenarios.loader import load_scenario

        await self.settle()
        scenario = await asyncio.to_thread(load_scenario, self._scenario_path(name))
        await asyncio.to_thread(self._open_scenario, scenario)
        self._scenario = scenario
        self._scenario_source = name
        self._next_turn = 0
        self.scenario_name = scenario.name
        approval = scenario.settings.approval
        self.status = SessionStatus(
            source=f"scenario: {scenario.name}",
            customer=scenario.customer,
            database=f"fresh {scenario.dataset} copy",
            guard=scenario.settings.guard,
            approval=approval,
            clock=scenario.settings.now or self.settings.now,
        )
        self.events.clear()

    def _open_scenario(self, scenario: Scenario) -> None:
        from airline_agent.scenarios import datasets
        from airline_agent.scenarios.script import ScenarioScript
        from airline_agent.stack import open_existing_database, scenario_stack, scripted_backend

        self._close()
        self._copy, self._pristine = datasets.fresh_copy(scenario.dataset, scenario.name)
        # Streamed: scripted text still arrives as deltas, as a live reply would.
        stack = scenario_stack(scenario, open_existing_database(self._copy), stream=True)
        self._database, self._session = stack.database, stack.session
        # Offline, the scenario answers approval questions (no modal), call by call.
        self._script = ScenarioScript(scenario, scripted_backend(stack))

    def next_customer_message(self) -> str | None:
        scenario = self._scenario
        if scenario is None or self._script is None or self._next_turn >= len(scenario.turns):
            return None
        turn = scenario.turns[self._next_turn]
        self._next_turn += 1
        self._script.load(turn)
        return turn.customer

    @property
    def steps_left(self) -> int:
        if self._scenario is None:
            return 0
        return len(self._scenario.turns) - self._next_turn

    # -- session ----------------------------------------------------------------
    async def prepare(self, progress: Progress | None = None) -> None:
        await self.settle()
        if self.mode == "live":
            await asyncio.to_thread(self._open_live, progress)

    def _open_live(self, progress: Progress | None, *, rebuild: bool = False) -> None:
        from airline_agent.stack import live_stack, open_database

        self._close()
        database = open_database(self.settings.db, progress=progress, rebuild=rebuild)
        stack = live_stack(
            self.settings,
            customer=self.customer,
            guard=self.status.guard,
            database=database,
            backend=self._session.backend if self._session else None,
        )
        self._database, self._session = stack.database, stack.session

    def _close(self) -> None:
        self._script = None
        if self._database is not None:
            self._database.close()
            self._database = None
        if self._copy is not None:
            from airline_agent.scenarios import datasets

            datasets.discard(self._copy)
            self._copy = None

    async def run_turn(self, text: str) -> AsyncIterator[AgentEvent]:
        if self._session is None:
            raise RuntimeError("the session is not open yet")
        if self.mode == "live" and self._scenario is None and not self.events:
            await asyncio.to_thread(self._copy_start)
        async for event in self._session.run_turn(text):
            if self._script is not None:
                self._script.answer(event)
            self.events.append(event)
            if isinstance(event, CustomerBound):
                self.status = self.status.with_(customer=event.customer)
            yield event

    def _copy_start(self) -> None:
        """Copy the live database as this conversation begins (a few milliseconds)."""
        from airline_agent.scenarios import datasets
        from airline_agent.scenarios.live import copy_sqlite, sqlite_file

        source = sqlite_file(self._database.engine.url)
        if source is None:
            self._start = None
            return
        self._start = datasets.scratch_dir() / f"live-start-{id(self)}.db"
        copy_sqlite(source, self._start)

    async def reset_database(self, progress: Progress | None = None) -> None:
        if self.mode == "offline":
            if self._scenario is not None:
                await self.start_scenario(self._scenario_source, progress)
            return
        await asyncio.to_thread(self._open_live, progress, rebuild=True)
        self.status = self.status.with_(customer=self.customer)
        self.events.clear()

    def new_conversation(self) -> None:
        super().new_conversation()
        if self._session is not None:
            self._session.new_conversation()
            self.status = self.status.with_(customer=self._session.customer)
        if self._scenario is not None:
            self._next_turn = 0  # the scenario starts over (on the same database copy)

    def set_guard(self, on: bool) -> None:
        super().set_guard(on)
        if self._session is not None:
            self._session.toolbox.guard = on

    def set_customer(self, customer: str | None) -> None:
        self.customer = customer
        self.status = self.status.with_(customer=customer)
        self.events.clear()
        if self._session is not None:
            self._session.new_conversation(customer=customer)

    # -- saving -----------------------------------------------------------------
    def save_scenario(self, path: Path) -> Path:
        from airline_agent.scenarios.dbdiff import diff_databases
        from airline_agent.scenarios.live import sqlite_file
        from airline_agent.scenarios.model import ScenarioSettings
        from airline_agent.scenarios.provenance import DatasetMatch, match_dataset
        from airline_agent.scenarios.recorder import record_scenario, save_scenario

        # Under "ask" the recorder writes each answer: the most frequent as the default.
        approval = "ask-accept" if self.status.approval == "ask" else self.status.approval
        # What changed: offline against the scenario's pristine copy, live against the
        # copy taken when the conversation began (none: the final database is unchecked).
        changes = None
        if self._scenario is not None:
            origin = DatasetMatch(self._scenario.dataset, 0)
            if self._pristine is not None and self._copy is not None:
                changes = diff_databases(self._pristine, self._copy)
        else:
            origin = match_dataset(self._start)
            current = sqlite_file(self._database.engine.url) if self._database else None
            if self._start is not None and current is not None:
                changes = diff_databases(self._start, current)
        name = _slug(path.stem)
        scenario = record_scenario(
            self.events,
            name=name,
            description=origin.describe(f"Recorded in the TUI ({self.status.source})."),
            dataset=origin.dataset,
            customer=self.customer if self._scenario is None else self._scenario.customer,
            settings=ScenarioSettings(
                guard=self.status.guard,
                approval=approval,  # type: ignore[arg-type]
                max_tool_calls=self.settings.max_tool_calls,
                model=self._session.model if self._session else "scripted",
                now=self.status.clock,
            ),
            changes=changes,
        )
        saved = save_scenario(scenario, path)
        if origin.warning:
            self.warn(f"{saved.name}: {origin.warning}.")
        return saved

    def save_transcript(self, directory: Path) -> list[Path]:
        from airline_agent.scenarios.transcript import write_transcript

        name = _slug(self.scenario_name or "conversation")
        secrets = [self.secret] if self.secret else []
        return list(write_transcript(self.events, directory, name, secrets))


def _slug(text: str) -> str:
    import re

    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "conversation"


def _is_pending(settings: object) -> bool:
    from airline_agent.settings_peek import PendingSettings

    return isinstance(settings, PendingSettings)


def _live_source(settings: Settings | PendingSettings) -> str:
    host = "api.openai.com"
    if settings.base_url:
        from urllib.parse import urlsplit

        host = urlsplit(settings.base_url).netloc or settings.base_url
    return f"model: {settings.model} @ {host}"
