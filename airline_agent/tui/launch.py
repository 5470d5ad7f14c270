"""Starting the TUI: shared by `airline-agent tui` and the fast path of plain `airline-agent`.

Imported by every command (cli.py), so it imports only what is standard library alone
(terminal_text): the options are checked here, then the app opens through one door
(tui/start.py).
Nothing of typer or pydantic: the first screen waits only for Textual.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from airline_agent.terminal_text import escape_controls


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
    problem = _options_problem(scenario, results, watch)
    if problem:
        print(f"airline-agent tui: {problem}", file=sys.stderr)
        return 2
    with _collector_paused_until_shown() as first_frame_shown:
        # The door to the app: `--help` and the other commands never import Textual.
        from airline_agent.tui import start

        if watch is not None:
            return start.watch_app(Path(watch), shown=first_frame_shown)
        return start.run_app(scenario, customer, results, flags, shown=first_frame_shown)


def _options_problem(scenario: str | None, results: str | None, watch: str | None) -> str | None:
    """Why the options given cannot open the app (None: they can, as far as can be told
    without reading an eval run: `start.run_app` reads it)."""
    named = (("--scenario", scenario), ("--results", results))
    given = [name for name, value in named if value is not None]
    if watch is not None:
        if given:
            return f"--watch and {given[0]}: give one of them"
        path = Path(watch)
        if path.exists() and not path.is_file():
            return f"--watch {escape_controls(str(path))}: not a regular file (an event log is)"
        return None  # a missing file is waited for
    a_file = scenario is not None and scenario.endswith((".yaml", ".yml"))
    if a_file and not Path(str(scenario)).is_file():
        return f"no such scenario file: {scenario}"
    if len(given) == 2:
        return "--scenario and --results: give one of them"
    return None


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
