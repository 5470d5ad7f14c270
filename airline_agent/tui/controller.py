"""Which feed the app shows, and the work of switching feeds: the live chat, a scenario's
playback, the library, the settings read after the first frame.

Live when a model is configured: a `LiveChat` on the user's database, opened after the
first frame. Offline: a feed with nothing to play yet, then a `Playback` per chosen
scenario on a fresh copy of its dataset, so playing a scenario never changes the user's
database. From live, a scenario plays only when the user chose one; the live chat waits
meanwhile — its facts (its guard, its customer, its database) are its own, so it comes
back from the library as it was (`back_to_live`).

The screen works with the feed on screen directly (`controller.feed`: its turns, its
conversation, its guard and customer); the controller does what only it can: choose,
switch, and hand the feeds the settings, the redactor and the warnings.

The first screen waits for none of the heavy modules (openai, sqlmodel, the loop, the
scenarios' models): they load behind three doors, each in a thread after the first frame —
a scenario's playback (`_read_playback`), the live database (`LiveChat.open`), an eval
run's results (`eval_results`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from airline_agent.agent.breakpoints import Breakpoints
from airline_agent.late_imports import importing
from airline_agent.redaction import Redactor
from airline_agent.settings_peek import PendingSettings
from airline_agent.tui.feed import Feed, Mode
from airline_agent.tui.library import ScenarioChoice, quick_choices, scenario_choices, scenario_path
from airline_agent.tui.live_chat import LiveChat
from airline_agent.tui.status import Status
from airline_agent.tui.unusable_results import ResultsUnusable

if TYPE_CHECKING:
    from airline_agent.choices import Api
    from airline_agent.config import Settings
    from airline_agent.domain.loading import Progress
    from airline_agent.settings_peek import PendingSettings
    from airline_agent.tui.database_reset import ResetPlan
    from airline_agent.tui.eval_results import EvalResults, TrialOutcome
    from airline_agent.tui.playback import Playback

__all__ = ["AgentController", "Controller", "ScenarioChoice"]


class Controller:
    """What the app asks beyond the feed on screen. Subclasses say how feeds are made
    (`AgentController`; tests' fakes)."""

    secret: str | None = None  # the API key, only to keep it off the screen
    results: Path | None = None  # an eval run's folder (`tui --results`): its trials play
    settings_redactor = Redactor()  # the settings' key and base-URL password, once read

    def __init__(self, status: Status, feed: Feed) -> None:
        self.status = status
        status.shown = self  # the status line shows the feed on screen
        self.feed = feed  # the feed on screen
        # Tells the user something worth knowing after an action (the app shows it).
        self.warn: Callable[[str], None] = lambda text: None

    @property
    def redactor(self) -> Redactor:
        """What keeps secrets off the screen and out of saved files (redaction.py)."""
        return self.settings_redactor.with_secrets([self.secret])

    @property
    def mode(self) -> Mode:
        return self.feed.mode

    @property
    def live_paused(self) -> bool:
        """A live chat waits while a scenario plays (the library offers it back)."""
        return False

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

    def eval_results(self) -> EvalResults:
        """The eval run of `results`, read (slow for a big run: a thread); raises
        ResultsUnusable."""
        # The door to the eval modules: only with `tui --results` (no other start waits).
        with importing("airline_agent.tui.eval_results"):
            # Alone: another thread's door may be importing (late_imports.py).
            from airline_agent.tui.eval_results import read_eval_results

        if self.results is None:
            raise ResultsUnusable("no eval run was given: `airline-agent tui --results DIR`")
        results = read_eval_results(self.results)
        self._results_read(results)
        return results

    def _results_read(self, results: EvalResults) -> None:
        """What a subclass keeps of the eval run just read."""

    async def restart_scenario(self, progress: Progress | None = None) -> None:
        """`r` offline: the playing scenario from its start, on a fresh copy."""
        raise NotImplementedError

    async def back_to_live(self) -> None:
        """The live chat again, as it was when a scenario was chosen."""

    # -- the live chat's database ----------------------------------------------------------
    async def settle(self) -> None:
        """Finish reading the settings (after the first frame); may raise SettingsError."""

    async def prepare(self, progress: Progress | None = None) -> None:
        """Open (and seed on first start) the database; may be slow, runs in a worker."""

    @property
    def problem(self) -> str | None:
        """Why the live chat could not be opened (None: it could, or is not live)."""
        return None

    async def plan_reset(self, progress: Progress | None = None) -> ResetPlan:
        """Live: what `r` would restore and lose, worked out before asking."""
        raise NotImplementedError

    async def apply_reset(self, plan: ResetPlan) -> None:
        raise NotImplementedError

    async def discard_reset(self, plan: ResetPlan) -> None:
        """The user kept the database: the plan's scratch build goes."""

    def customers(self) -> list[tuple[str, str]]:
        """Live: every customer of the database, (id, name), for the picker (`u`)."""
        return []

    # -- saving ---------------------------------------------------------------------------
    def save_scenario(self, path: Path) -> Path:
        """The feed's conversation as a scenario file, redacted; a replay that may drift
        is said (a warning the app shows)."""
        saved, warning = self.feed.save_scenario(path, self.redactor)
        if warning:
            self.warn(f"{saved.name}: {warning}.")
        return saved

    def save_transcript(self, directory: Path) -> list[Path]:
        name = self.feed.scenario_name or "conversation"
        return self.feed.save_transcript(directory, name, self.redactor)


class AgentController(Controller):
    """The real thing: the agent loop, the toolbox and a database."""

    def __init__(
        self,
        settings: Settings | PendingSettings,
        *,
        library: Path | None = None,
        results: Path | None = None,
    ) -> None:
        """`PendingSettings`: the first screen shows at once, `settle` builds `Settings`."""
        self.library = library  # None: the shipped library (data/scenarios)
        self.results = results
        status = Status()
        live = settings.model_configured
        # The user's breakpoints: one object, handed on to every feed (see `Feed`).
        breakpoints = Breakpoints()
        if live:
            first: Feed = LiveChat(status, settings, breakpoints=breakpoints)
        else:
            first = Feed(status, guard=settings.guard, clock=settings.now, breakpoints=breakpoints)
        super().__init__(status, first)
        self._live_settings_known = live
        self._pending: PendingSettings | None = None
        self._settling: asyncio.Future[Settings] | None = None
        self._live: LiveChat | None = None  # the live chat while a scenario plays
        self._playback: Playback | None = None  # the scenario playing, when one is
        self._paths: dict[str, Path] = {}  # scenario name -> its file
        # A trial's scenario file -> how it scored, said when it plays (from `eval_results`).
        self._trials: dict[Path, TrialOutcome] = {}
        self._trial_tasks: Path | None = None  # the τ² folder those trials ran on
        if _is_pending(settings):
            self._pending = settings  # type: ignore[assignment]
        else:
            self._use(settings, None)  # type: ignore[arg-type]

    def _use(self, settings: Settings, peeked: PendingSettings | None) -> None:
        if not self._live_settings_known and settings.model:
            settings = settings.model_copy(update={"model": None})
        self.settings = settings
        self.secret = settings.api_key.get_secret_value() if settings.api_key else None
        self.settings_redactor = Redactor.from_settings(settings)
        for feed in (self.feed, self._live):
            if feed is not None:
                feed.settings_read(settings, peeked)

    @property
    def live_paused(self) -> bool:
        return self._live is not None

    @property
    def problem(self) -> str | None:
        return self.feed.problem if isinstance(self.feed, LiveChat) else None

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
        self._use(settings, pending)
        self.status.changed()  # the status line shows the settings' own values

    # -- library ------------------------------------------------------------------------
    def scenario_choices(self) -> list[ScenarioChoice]:

        return scenario_choices(self.library, self._paths)

    def quick_choices(self) -> list[ScenarioChoice] | None:

        return quick_choices(self.library, self._paths)

    async def start_scenario(self, name: str, progress: Progress | None = None) -> str:
        await self.settle()
        path = scenario_path(name, self.library, self._paths, self.scenario_choices)
        trial = self._trials.get(path)
        playback = await asyncio.to_thread(
            _read_playback,
            self.status,
            path,
            default_clock=self.settings.now,
            breakpoints=self.feed.breakpoints,
            # A trial plays on the τ² data its run used (`eval --tasks`), not the default.
            tau2=self._trial_tasks if trial is not None else None,
            api=self.settings.api,
        )
        await asyncio.to_thread(playback.open)
        said = playback.describe_settings(self.feed)
        if trial is not None:
            said = f"{said} {trial.describe()}"
        self._leave_current_feed()
        self.feed = self._playback = playback
        self.status.changed()
        return said

    def _leave_current_feed(self) -> None:
        """A scenario is chosen: a live chat waits (with everything it owns), a playback
        ends."""
        if isinstance(self.feed, LiveChat):
            self._live = self.feed
        else:
            self.feed.close()

    async def back_to_live(self) -> None:
        if self._live is None:
            return
        self.feed.close()
        self.feed, self._live, self._playback = self._live, None, None
        self.status.changed()

    async def restart_scenario(self, progress: Progress | None = None) -> None:
        playback = self._playback
        if playback is not None and playback is self.feed:
            await asyncio.to_thread(playback.open)
            playback.start_over()

    def _results_read(self, results: EvalResults) -> None:
        # Each trial's scenario file: said how it scored when it plays, on its τ² data.
        self._trials = {o.scenario: o for o in results.outcomes.values() if o.scenario}
        self._trial_tasks = results.tasks_dir

    # -- the live chat's database --------------------------------------------------------
    async def prepare(self, progress: Progress | None = None) -> None:
        await self.settle()
        # The live chat, on screen or waiting (a scenario chosen while the settings were
        # read): either way it is opened.
        live = self.feed if isinstance(self.feed, LiveChat) else self._live
        if live is not None:
            try:
                await asyncio.to_thread(live.open, progress)
            finally:
                self.status.changed()  # where its database came from, or still the path

    async def plan_reset(self, progress: Progress | None = None) -> ResetPlan:
        assert isinstance(self.feed, LiveChat), "a reset plan is for the live database"
        return await asyncio.to_thread(self.feed.plan_reset, progress)

    async def apply_reset(self, plan: ResetPlan) -> None:
        assert isinstance(self.feed, LiveChat)
        try:
            await asyncio.to_thread(self.feed.apply_reset, plan)
        finally:
            self.status.changed()  # a new conversation

    def customers(self) -> list[tuple[str, str]]:
        return self.feed.customers() if isinstance(self.feed, LiveChat) else []

    async def discard_reset(self, plan: ResetPlan) -> None:
        await asyncio.to_thread(plan.discard)

    def close(self) -> None:
        """Every feed's database closed, every scratch copy removed."""
        for feed in (self.feed, self._live):
            if feed is not None:
                feed.close()


def _read_playback(
    status: Status,
    path: Path,
    *,
    default_clock: str,
    breakpoints: Breakpoints,
    tau2: Path | None,
    api: Api,
) -> Playback:
    """The scenario at `path` as a playback (in a thread: the first one loads its modules)."""
    # The door to a scenario's modules (its models, the stack, the checks, the recorder):
    # taken in a worker thread when one is first played; the first screen waits for none.
    with importing("airline_agent.tui.playback"):
        # Alone: another thread's door may be importing (late_imports.py).
        from airline_agent.tui.playback import Playback

    return Playback.read(
        status, path, default_clock=default_clock, breakpoints=breakpoints, tau2=tau2, api=api
    )


def _is_pending(settings: object) -> bool:

    return isinstance(settings, PendingSettings)
