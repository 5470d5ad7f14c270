"""Opening the app, once launch.py has checked the options: the settings peeked, the
controller made, the app run; the exit status. Loaded only to open the app (launch.py's
door), so it imports what it opens at its top."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from airline_agent.settings_peek import peek_settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController, Controller
from airline_agent.tui.status import Status
from airline_agent.tui.unusable_results import ResultsUnusable
from airline_agent.tui.watched_log import WatchedLog


def run_app(
    scenario: str | None,
    customer: str | None,
    results: str | None,
    flags: dict[str, object],
    *,
    shown: Callable[[], None],
) -> int:
    """The app on a live chat, the library, a scenario or an eval run's results.

    `shown`: called when the first frame is on the screen (launch.py resumes the cycle
    collector then)."""
    settings = peek_settings(None, None, **flags)
    if scenario is not None or results is not None:
        settings = replace(settings, model=None)  # a scenario (a trial's too) plays offline
    controller = AgentController(settings, results=Path(results) if results else None)
    if results is not None:
        # A folder that is no eval run's is one line, not an empty view.
        try:
            controller.eval_results()
        except ResultsUnusable as unusable:
            print(f"airline-agent tui: {unusable}", file=sys.stderr)
            return 2
    if customer:
        controller.feed.act_for(customer)
    app = AirlineApp(controller, scenario=scenario, first_frame_shown=shown)
    app.run()
    if app.problem:
        print(f"airline-agent tui: {app.problem}", file=sys.stderr)
    return app.return_code or 0


def watch_app(watch: Path, *, shown: Callable[[], None]) -> int:
    """`tui --watch FILE`: an MCP server's sessions, live; nothing of the settings is
    needed (nothing runs here)."""
    status = Status()
    app = AirlineApp(Controller(status, WatchedLog(status, watch)), first_frame_shown=shown)
    app.run()
    return app.return_code or 0
