"""The TUI's session: one state (session_state.py) and the run that uses it — a live run
(live_run.py) or a scenario's playback (playback.py) — plus the scenario library.

Live when a model is configured: a `LiveRun` on the user's database, opened after the
first frame. Offline: the library, and a `ScenarioPlayback` per chosen scenario on a
fresh copy of its dataset, so playing a scenario never changes the user's database.
From live, a scenario plays only when the user chose one; the live run waits meanwhile
and comes back from the library (`back_to_live`).

Heavy modules (openai, sqlmodel, the loop) are imported inside the methods that need
them, so the first screen does not wait for them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from airline_agent.redaction import Redactor, redact_url
from airline_agent.tui.library import ScenarioChoice
from airline_agent.tui.run import Mode, Run, ShownEvent
from airline_agent.tui.session_state import DatabaseOrigin, SessionState, StateSnapshot

if TYPE_CHECKING:
    from airline_agent.agent.conversation import Conversation
    from airline_agent.agent.events import AgentEvent, TurnFinished
    from airline_agent.config import Settings
    from airline_agent.domain.loading import Progress
    from airline_agent.settings_peek import PendingSettings
    from airline_agent.tui.database_reset import ResetPlan
    from airline_agent.tui.playback import ScenarioPlayback

__all__ = ["AgentController", "ScenarioChoice", "SessionController"]


class SessionController:
    """What the app asks of its session. The state is the session's; the run, where the
    turns come from. Subclasses say how runs are made (`AgentController`; tests' fakes)."""

    secret: str | None = None  # the API key, only to keep it off the screen
    settings_redactor = Redactor()  # the settings' key and base-URL password, once read

    def __init__(self, state: SessionState) -> None:
        self.state = state
        self.run: Run | None = None
        # Tells the user something worth knowing after an action (the app shows it).
        self.warn: Callable[[str], None] = lambda text: None

    @property
    def redactor(self) -> Redactor:
        """What keeps secrets off the screen and out of saved files (redaction.py)."""
        return self.settings_redactor.with_secrets([self.secret])

    # -- what is running ----------------------------------------------------------------
    @property
    def mode(self) -> Mode:
        return self.run.mode if self.run is not None else "offline"

    @property
    def live_paused(self) -> bool:
        """A live chat waits while a scenario plays (the library offers it back)."""
        return False

    @property
    def events(self) -> list[AgentEvent]:
        return self.run.events if self.run is not None else []

    @property
    def conversation(self) -> Conversation | None:
        """The conversation going on (its usage and cost are what the usage pane shows)."""
        return self.run.conversation if self.run is not None else None

    @property
    def scenario_name(self) -> str | None:
        return self.run.scenario_name if self.run is not None else None

    @property
    def steps_left(self) -> int:
        return self.run.steps_left if self.run is not None else 0

    def next_customer_message(self) -> str | None:
        """Offline: the next turn's customer message (and its script), None at the end."""
        return self.run.next_customer_message() if self.run is not None else None

    def run_turn(self, text: str) -> AsyncGenerator[ShownEvent, None]:
        """The run's own turn (not a wrapper): closing it closes the loop's turn at once."""
        if self.run is None:
            raise RuntimeError("no session is open")
        return self.run.run_turn(text)

    def last_cancelled(self) -> TurnFinished | None:
        return self.run.last_cancelled() if self.run is not None else None

    # -- library --------------------------------------------------------------------------
    def scenario_choices(self) -> list[ScenarioChoice]:
        """The library, every file validated (problems named)."""
        return []

    def quick_choices(self) -> list[ScenarioChoice] | None:
        """The library as its files say, before validation (None: no quicker way)."""
        return None

    async def start_scenario(self, name: str, progress: Progress | None = None) -> str:
        """Play scenario `name` (a fresh copy of its dataset); what it sets, in words."""
        raise NotImplementedError

    async def restart_scenario(self, progress: Progress | None = None) -> None:
        """`r` offline: the playing scenario from its start, on a fresh copy."""
        raise NotImplementedError

    async def back_to_live(self) -> None:
        """The live chat again, as it was when a scenario was chosen."""

    # -- session --------------------------------------------------------------------------
    async def settle(self) -> None:
        """Finish reading the settings (after the first frame); may raise SettingsError."""

    async def prepare(self, progress: Progress | None = None) -> None:
        """Open (and seed on first start) the database; may be slow, runs in a worker."""

    @property
    def problem(self) -> str | None:
        """Why the live session could not be opened (None: it could, or is not live)."""
        return None

    async def plan_reset(self, progress: Progress | None = None) -> ResetPlan:
        """Live: what `r` would restore and lose, worked out before asking."""
        raise NotImplementedError

    async def apply_reset(self, plan: ResetPlan) -> None:
        raise NotImplementedError

    async def discard_reset(self, plan: ResetPlan) -> None:
        """The user kept the database: the plan's scratch build goes."""

    def new_conversation(self) -> None:
        if self.run is not None:
            self.run.new_conversation()

    def set_guard(self, on: bool) -> None:
        self.state.update(guard=on)
        if self.run is not None:
            self.run.guard_changed()

    def customers(self) -> list[tuple[str, str]]:
        """Live: every customer of the database, (id, name), for the picker (`u`)."""
        return []

    def set_customer(self, customer: str | None) -> None:
        self.state.act_for(customer)
        if self.run is not None:
            self.run.customer_changed()

    # -- saving ---------------------------------------------------------------------------
    def save_scenario(self, path: Path) -> Path:
        if self.run is None:
            raise RuntimeError("nothing to save")
        saved, warning = self.run.save_scenario(path, self.redactor)
        if warning:
            self.warn(f"{saved.name}: {warning}.")
        return saved

    def save_transcript(self, directory: Path) -> list[Path]:
        if self.run is None:
            raise RuntimeError("nothing to save")
        name = self.scenario_name or "conversation"
        return self.run.save_transcript(directory, name, self.redactor)


class AgentController(SessionController):
    """The real thing: the agent loop, the toolbox and a database."""

    def __init__(
        self, settings: Settings | PendingSettings, *, library: Path | None = None
    ) -> None:
        """`PendingSettings`: the first screen shows at once, `settle` builds `Settings`."""
        self.library = library  # None: the shipped library (data/scenarios)
        live = settings.model_configured
        super().__init__(
            SessionState(
                source=_live_source(settings) if live else "offline: no scenario",
                origin=_origin(settings, live),
                guard=settings.guard,
                approval=settings.approve if live else "scenario",
                clock=settings.now,
            )
        )
        self._live_settings_known = live
        self._pending: PendingSettings | None = None
        self._settling: asyncio.Future[Settings] | None = None
        self._live: Run | None = None  # the live run while a scenario plays
        self._live_state: StateSnapshot | None = None  # and its settings, to come back to
        self._paths: dict[str, Path] = {}  # scenario name -> its file
        if _is_pending(settings):
            self._pending = settings  # type: ignore[assignment]
        else:
            self._use(settings)  # type: ignore[arg-type]

    def _use(self, settings: Settings) -> None:
        from airline_agent.tui.live_run import LiveRun

        if not self._live_settings_known and settings.model:
            settings = settings.model_copy(update={"model": None})
        self.settings = settings
        self.secret = settings.api_key.get_secret_value() if settings.api_key else None
        self.settings_redactor = Redactor.from_settings(settings)
        if self._live_settings_known and self.run is None:
            self.run = LiveRun(self.state, settings)

    @property
    def mode(self) -> Mode:
        if self.run is None:  # live: before the settings are read
            return "live" if self._live_settings_known else "offline"
        return self.run.mode

    @property
    def live_paused(self) -> bool:
        return self._live is not None

    @property
    def problem(self) -> str | None:
        from airline_agent.tui.live_run import LiveRun

        return self.run.problem if isinstance(self.run, LiveRun) else None

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
        if self.scenario_name is not None:
            return  # a scenario's settings are the state's now
        # The peeked values were the same; the status line now shows the settings' own.
        self.state.update(
            origin=_origin(settings, self._live_settings_known),
            clock=settings.now,
            guard=settings.guard if self.state.guard == pending.guard else None,
        )
        if self._live_settings_known:
            self.state.update(source=_live_source(settings), approval=settings.approve)

    # -- library ------------------------------------------------------------------------
    def scenario_choices(self) -> list[ScenarioChoice]:
        from airline_agent.tui.library import scenario_choices

        return scenario_choices(self.library, self._paths)

    def quick_choices(self) -> list[ScenarioChoice] | None:
        from airline_agent.tui.library import quick_choices

        return quick_choices(self.library, self._paths)

    async def start_scenario(self, name: str, progress: Progress | None = None) -> str:
        from airline_agent.scenarios.loader import load_scenario
        from airline_agent.tui.library import scenario_path
        from airline_agent.tui.playback import ScenarioPlayback

        await self.settle()
        path = scenario_path(name, self.library, self._paths, self.scenario_choices)
        scenario = await asyncio.to_thread(load_scenario, path)
        playback = ScenarioPlayback(self.state, scenario, default_clock=self.settings.now)
        await asyncio.to_thread(playback.open)
        self._leave_current_run()
        self.run = playback
        return self._apply_settings(playback)

    def _apply_settings(self, playback: ScenarioPlayback) -> str:
        said = playback.apply_settings()
        if self._live is not None:  # never a silent switch: the status line says so
            self.state.update(source=f"{self.state.source} · offline, the live chat waits (l)")
        return said

    def _leave_current_run(self) -> None:
        """A scenario is chosen: a live run waits (with its settings), a playback ends."""
        from airline_agent.tui.live_run import LiveRun

        if isinstance(self.run, LiveRun):
            self._live = self.run
            self._live_state = self.state.snapshot()
        elif self.run is not None:
            self.run.close()

    async def back_to_live(self) -> None:
        if self._live is None:
            return
        if self.run is not None:
            self.run.close()
        self.run, self._live = self._live, None
        if self._live_state is not None:
            self.state.restore(self._live_state)
        self.run.guard_changed()

    async def restart_scenario(self, progress: Progress | None = None) -> None:
        from airline_agent.tui.playback import ScenarioPlayback

        if isinstance(self.run, ScenarioPlayback):
            await asyncio.to_thread(self.run.open)
            self._apply_settings(self.run)

    # -- session ------------------------------------------------------------------------
    async def prepare(self, progress: Progress | None = None) -> None:
        from airline_agent.tui.live_run import LiveRun

        await self.settle()
        live = self.run
        if isinstance(live, LiveRun):
            origin = await asyncio.to_thread(live.open, progress)
            if self.run is live:
                self.state.update(origin=origin)
            elif self._live_state is not None:  # a scenario was chosen meanwhile
                self._live_state = replace(self._live_state, origin=origin)

    async def plan_reset(self, progress: Progress | None = None) -> ResetPlan:
        from airline_agent.tui.live_run import LiveRun

        assert isinstance(self.run, LiveRun), "a reset plan is for the live database"
        return await asyncio.to_thread(self.run.plan_reset, progress)

    async def apply_reset(self, plan: ResetPlan) -> None:
        from airline_agent.tui.live_run import LiveRun

        assert isinstance(self.run, LiveRun)
        await asyncio.to_thread(self.run.apply_reset, plan)
        session = self.run.session
        self.state.act_for(session.customer if session else None)  # a new conversation

    def customers(self) -> list[tuple[str, str]]:
        from airline_agent.domain.operations import list_customers
        from airline_agent.tui.live_run import LiveRun

        if isinstance(self.run, LiveRun) and self.run.stack is not None:
            return list_customers(self.run.stack.database)
        return []

    async def discard_reset(self, plan: ResetPlan) -> None:
        from airline_agent.tui.database_reset import discard

        await asyncio.to_thread(discard, plan)

    def close(self) -> None:
        """Every run's database closed, every scratch copy removed."""
        for run in (self.run, self._live):
            if run is not None:
                run.close()


def _origin(settings: Settings | PendingSettings, live: bool) -> DatabaseOrigin:
    """Live, the user's database; offline it is never opened: each scenario gets a copy."""
    if live:
        return DatabaseOrigin.user(settings.db)
    return DatabaseOrigin("scenario", "a fresh copy per scenario")


def _is_pending(settings: object) -> bool:
    from airline_agent.settings_peek import PendingSettings

    return isinstance(settings, PendingSettings)


def _live_source(settings: Settings | PendingSettings) -> str:
    host = "api.openai.com"
    if settings.base_url:
        from urllib.parse import urlsplit

        # A credential in the URL (http://user:key@host) is masked before it is shown.
        shown = redact_url(settings.base_url)
        host = urlsplit(shown).netloc or shown
    return f"model: {settings.model} @ {host}"
