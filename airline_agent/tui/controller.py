"""Turns `Settings` into a running agent session for the TUI, live or playing a scenario.

Live: an `OpenAIBackend` on the user's database. Offline: a `ScriptedBackend` fed one
turn at a time from a scenario, on a fresh copy of the scenario's dataset (as `replay`
does), so playing a scenario never changes the user's database.

Heavy modules (openai, sqlmodel, the loop) are imported inside the methods that need
them, so the first screen does not wait for them.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from airline_agent.agent.events import AgentEvent, ApprovalRequested
from airline_agent.tui.widgets.status_bar import SessionStatus

if TYPE_CHECKING:
    from airline_agent.config import Settings
    from airline_agent.scenarios.model import Scenario

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
        self.approval_answer: bool | None = None  # offline: scenarios answer approvals

    # -- library ----------------------------------------------------------------
    def scenario_choices(self) -> list[ScenarioChoice]:
        return []

    async def start_scenario(self, name: str, progress: Progress | None = None) -> None:
        raise NotImplementedError

    def next_customer_message(self) -> str | None:
        """Offline: the next turn's customer message (and its script), None at the end."""
        return None

    @property
    def steps_left(self) -> int:
        return 0

    # -- session ----------------------------------------------------------------
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
        from airline_agent.scenarios import recorder

        return recorder.save(self.events, path)  # type: ignore[attr-defined]

    def save_transcript(self, directory: Path) -> list[Path]:
        from airline_agent.scenarios import transcript

        return transcript.save(self.events, directory)  # type: ignore[attr-defined]


class AgentController(SessionController):
    """The real thing: the agent loop, the toolbox and a database."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.mode = "live" if settings.model_configured else "offline"
        self.secret = settings.api_key.get_secret_value() if settings.api_key else None
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
        self._database: Any = None
        self._session: Any = None
        self._toolbox: Any = None
        self._backend: Any = None
        self._scenario: Scenario | None = None
        self._next_turn = 0
        self._workdir: Path | None = None

    # -- library ----------------------------------------------------------------
    def scenario_choices(self) -> list[ScenarioChoice]:
        from airline_agent.scenarios.library import SHOWCASE, library_dir
        from airline_agent.scenarios.loader import ScenarioLoadError, load_library

        choices = []
        for item in load_library(library_dir()):
            if isinstance(item, ScenarioLoadError):
                choices.append(ScenarioChoice(item.name, str(item), 0, problem=str(item)))
            else:
                choices.append(ScenarioChoice(item.name, item.description, len(item.turns)))
        choices.sort(key=lambda choice: (choice.name != SHOWCASE, choice.problem is not None))
        return choices

    async def start_scenario(self, name: str, progress: Progress | None = None) -> None:
        from airline_agent.scenarios.library import library_dir
        from airline_agent.scenarios.loader import load_scenario

        path = library_dir() / f"{name}.yaml"
        scenario = await asyncio.to_thread(load_scenario, path if path.exists() else name)
        database = await asyncio.to_thread(self._fresh_dataset, scenario.dataset, progress)
        await asyncio.to_thread(self._open_session, database, scenario)
        self._scenario = scenario
        self._next_turn = 0
        self.scenario_name = scenario.name
        approval = scenario.settings.approval
        self.approval_answer = {"ask-accept": True, "ask-decline": False}.get(approval)
        self.status = SessionStatus(
            source=f"scenario: {scenario.name}",
            customer=scenario.customer,
            database=f"fresh {scenario.dataset} copy",
            guard=scenario.settings.guard,
            approval=approval,
            clock=scenario.settings.now or self.settings.now,
        )
        self.events.clear()

    def next_customer_message(self) -> str | None:
        from airline_agent.agent.backends import ScriptedResponse, ScriptedToolCall
        from airline_agent.agent.events import Usage

        scenario = self._scenario
        if scenario is None or self._next_turn >= len(scenario.turns):
            return None
        turn = scenario.turns[self._next_turn]
        self._next_turn += 1
        self._backend.load(
            ScriptedResponse(
                content=response.content,
                tool_calls=tuple(
                    ScriptedToolCall(call.name, call.arguments, call.id)
                    for call in response.tool_calls
                ),
                reasoning=response.reasoning,
                usage=Usage(**response.usage.model_dump()) if response.usage else None,
                finish_reason=response.finish_reason,
            )
            for response in turn.responses
        )
        return turn.customer

    @property
    def steps_left(self) -> int:
        if self._scenario is None:
            return 0
        return len(self._scenario.turns) - self._next_turn

    # -- session ----------------------------------------------------------------
    async def prepare(self, progress: Progress | None = None) -> None:
        if self.mode == "live":
            await asyncio.to_thread(self._open_live, progress)

    def _open_live(self, progress: Progress | None) -> None:
        from airline_agent.agent.backends import OpenAIBackend
        from airline_agent.domain.seed import ensure_database

        database = ensure_database(self.settings.db, progress=progress)
        self._backend = OpenAIBackend.from_settings(self.settings)
        self._open_session(database, None)

    def _open_session(self, database: Any, scenario: Scenario | None) -> None:
        from airline_agent.agent.backends import ScriptedBackend
        from airline_agent.agent.loop import AgentSession, LoopOptions
        from airline_agent.agent.prompt import build_system_prompt
        from airline_agent.domain.clock import Clock
        from airline_agent.tools.toolbox import Toolbox

        if self._database is not None and self._database is not database:
            self._database.close()
        self._database = database
        settings = self.settings
        if scenario is not None:
            self._backend = ScriptedBackend(model=scenario.settings.model)
            clock = Clock.at(scenario.settings.now or settings.now)
            guard, customer = scenario.settings.guard, scenario.customer
            approval = {"ask-accept": "ask", "ask-decline": "ask"}.get(
                scenario.settings.approval, scenario.settings.approval
            )
            options = LoopOptions(
                model=scenario.settings.model,
                approval=approval,
                max_tool_calls=scenario.settings.max_tool_calls,
            )
        else:
            clock = Clock.at(self.status.clock)
            guard, customer = self.status.guard, self.status.customer
            options = LoopOptions(
                model=settings.model or "",
                approval=settings.approve,
                stream=settings.stream,
                max_tool_calls=settings.max_tool_calls,
                max_requests=settings.max_requests,
            )
        self._toolbox = Toolbox(database, clock=clock, guard=guard, acting_user=customer)
        self._session = AgentSession(
            self._backend,
            self._toolbox,
            options,
            system_prompt=build_system_prompt(clock, customer),
        )

    def _fresh_dataset(self, dataset: str, progress: Progress | None) -> Any:
        """A private copy of the pristine dataset (built once per app run, then copied)."""
        from airline_agent.domain.db import Database
        from airline_agent.domain.seed import build_database

        if self._workdir is None:
            self._workdir = Path(tempfile.mkdtemp(prefix="airline-agent-tui-"))
        pristine = self._workdir / f"{dataset}-pristine.db"
        if not pristine.exists():
            tau2 = None
            if dataset == "tau2":
                from airline_agent.scenarios.library import tau2_db_path  # type: ignore

                tau2 = tau2_db_path()
            build_database(pristine, tau2=tau2, progress=progress).close()
        copy = self._workdir / f"{dataset}-play.db"
        if self._database is not None:
            self._database.close()
            self._database = None
        for suffix in ("", "-wal", "-shm"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(pristine, copy)
        return Database.open(copy)

    async def run_turn(self, text: str) -> AsyncIterator[AgentEvent]:
        if self._session is None:
            raise RuntimeError("no session yet")
        async for event in self._session.run_turn(text):
            if isinstance(event, ApprovalRequested) and self.approval_answer is not None:
                event.decide(self.approval_answer)  # the scenario's own answer, no modal
            self.events.append(event)
            yield event
        if self._toolbox is not None and self._toolbox.acting_user != self.status.customer:
            self.status = self.status.with_(customer=self._toolbox.acting_user)

    async def reset_database(self, progress: Progress | None = None) -> None:
        if self.mode == "offline":
            if self.scenario_name:
                await self.start_scenario(self.scenario_name, progress)
            return
        from airline_agent.domain.seed import build_database

        if self._database is not None:
            self._database.close()
            self._database = None
        database = await asyncio.to_thread(
            build_database, self.settings.db, force=True, progress=progress
        )
        await asyncio.to_thread(self._open_session, database, None)
        self.events.clear()

    def new_conversation(self) -> None:
        super().new_conversation()
        if self._session is not None:
            if self._toolbox is not None and self.mode == "live":
                self._toolbox.acting_user = self.status.customer
            self._session.new_conversation()

    def set_guard(self, on: bool) -> None:
        super().set_guard(on)
        if self._toolbox is not None:
            self._toolbox.guard = on

    def set_customer(self, customer: str | None) -> None:
        self.status = self.status.with_(customer=customer)
        self.events.clear()
        if self._database is not None and self.mode == "live":
            self._open_session(self._database, None)


def _live_source(settings: Settings) -> str:
    host = "api.openai.com"
    if settings.base_url:
        from urllib.parse import urlsplit

        host = urlsplit(settings.base_url).netloc or settings.base_url
    return f"model: {settings.model} @ {host}"
