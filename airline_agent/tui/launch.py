"""Starting the TUI: shared by `airline-agent tui` and the fast path of plain `airline-agent`.

Imports nothing of typer or pydantic: the first screen waits only for Textual.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path


def run_tui(
    *,
    scenario: str | None = None,
    customer: str | None = None,
    results: str | None = None,
    watch: str | None = None,
    **flags: object,
) -> int:
    """Run the app; the exit status. Also the fast path of plain `airline-agent` (cli.py).

    The first screen does not wait for pydantic: the settings are peeked (live or offline,
    the status line) and built in a worker after the first frame; an unusable setting
    closes the app with one line and status 2, as before it opened.

    `results`: an eval run's folder, its results view on top (its trials play offline).
    `watch`: an MCP server's event log (`mcp --events FILE`), its sessions shown live.
    """
    with _collector_paused_until_shown() as first_frame_shown:
        if watch is not None:
            return _watch(watch, scenario=scenario, results=results, shown=first_frame_shown)
        return _run(scenario, customer, results, flags, shown=first_frame_shown)


@contextmanager
def _collector_paused_until_shown() -> Iterator[Callable[[], None]]:
    """Python's cycle collector paused from the start until the app's first frame is on
    the screen (the callable given, which the app calls then).

    Starting, the process makes some 55,000 objects that live as long as it does (modules,
    classes, the widgets), and the collector scanned them again and again while they
    piled up: a full collection and a dozen of the middle generation, 80 to 110 ms of the
    first screen's wait. Once the frame is shown they are frozen (`gc.freeze`: later
    collections skip them, so a long session's collections stay short too) and the
    collector resumes. The few objects in cycles that became garbage while starting
    (about 1,300) are frozen with them, for good: cheaper than a full collection, 40 to
    70 ms, where the first keys would wait for it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    resumed = False

    def resume() -> None:
        nonlocal resumed
        if resumed:
            return
        resumed = True
        gc.freeze()
        if was_enabled:
            gc.enable()

    try:
        yield resume
    finally:
        if not resumed and was_enabled:  # closed before its first frame (or never opened)
            gc.enable()


def _run(
    scenario: str | None,
    customer: str | None,
    results: str | None,
    flags: dict[str, object],
    *,
    shown: Callable[[], None],
) -> int:
    # The door: `tui --help` and the other commands never import the app (Textual).
    from airline_agent.settings_peek import peek_settings

    if (
        scenario is not None
        and scenario.endswith((".yaml", ".yml"))
        and not Path(scenario).is_file()
    ):
        print(f"airline-agent tui: no such scenario file: {scenario}", file=sys.stderr)
        return 2
    if results is not None:
        problem = _results_problem(scenario, Path(results))
        if problem:
            print(f"airline-agent tui: {problem}", file=sys.stderr)
            return 2
    settings = peek_settings(None, None, **flags)
    if scenario is not None or results is not None:
        settings = replace(settings, model=None)  # a scenario (a trial's too) plays offline

    # The door: `tui --help` and the other commands never import the app (Textual).
    from airline_agent.tui.app import AirlineApp
    from airline_agent.tui.controller import AgentController

    controller = AgentController(settings, results=Path(results) if results else None)
    if customer:
        controller.run.act_for(customer)
    app = AirlineApp(controller, scenario=scenario, first_frame_shown=shown)
    app.run()
    if app.problem:
        print(f"airline-agent tui: {app.problem}", file=sys.stderr)
    return app.return_code or 0


def _results_problem(scenario: str | None, results: Path) -> str | None:
    """Why `--results` cannot open (None: it can). Before the app, as for a missing
    scenario file: a folder that is no eval run's is one line, not an empty view."""
    # Only with `tui --results`: a plain start does not import the eval modules.
    from airline_agent.tui.eval_results import ResultsUnusable, read_eval_results

    if scenario is not None:
        return "--scenario and --results: give one of them"
    try:
        read_eval_results(results)
    except ResultsUnusable as unusable:
        return str(unusable)
    return None


def _watch(
    watch: str, *, scenario: str | None, results: str | None, shown: Callable[[], None]
) -> int:
    """`tui --watch FILE`: nothing of the settings is needed (nothing runs here)."""
    problem = _watch_problem(Path(watch), scenario=scenario, results=results)
    if problem:
        print(f"airline-agent tui: {problem}", file=sys.stderr)
        return 2
    # The door for `tui --watch`: a plain start does not import the watch modules.
    from airline_agent.tui.app import AirlineApp
    from airline_agent.tui.controller import Controller
    from airline_agent.tui.status import Status
    from airline_agent.tui.watch_run import WatchRun

    status = Status()
    app = AirlineApp(Controller(status, WatchRun(status, Path(watch))), first_frame_shown=shown)
    app.run()
    return app.return_code or 0


def _watch_problem(path: Path, *, scenario: str | None, results: str | None) -> str | None:
    """Why `--watch` cannot follow `path` (None: it can; a missing file is waited for)."""
    # Only when the watched file is unusable.
    from airline_agent.terminal_text import escape_controls

    if scenario is not None or results is not None:
        given = "--scenario" if scenario is not None else "--results"
        return f"--watch and {given}: give one of them"
    if path.exists() and not path.is_file():
        return f"--watch {escape_controls(str(path))}: not a regular file (an event log is)"
    return None
