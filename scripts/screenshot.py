"""Regenerate the documentation's pictures of the TUI, headless (no terminal needed):

    .venv/bin/python scripts/screenshot.py                 # every picture below
    .venv/bin/python scripts/screenshot.py debugger        # some: showcase debugger results
    .venv/bin/python scripts/screenshot.py showcase --size 160x48 --output docs/screenshot.svg

- showcase (docs/screenshot.svg): cancel-ehglp3 after its first turn (README, Home, Watch);
- debugger (docs/debugger.svg): the showcase's first request held before it is sent, its
  body open in the editor (Debug);
- results (docs/results.svg): `tui --results` on an eval run of two tasks × two trials,
  made here with scripted models on loopback servers (Evaluate). Needs τ²-bench's data
  (AIRLINE_AGENT_TAU2_DIR, or ../shared/reference/tau2).

Offline (no model): the real loop, tools and a fresh copy of the database; only the
model's answers are scripted. The browser's picture is scripts/serve_screenshot.py's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DEADLINE = 120.0  # seconds: a busy machine plays a scenario slowly; a picture, not a test


async def _until(pilot, predicate: Callable[[], object]) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while not predicate():
        if loop.time() > deadline:
            sys.exit(f"screenshot: gave up waiting for {predicate.__name__}")
        await pilot.pause(0.05)


async def _at_rest(app, pilot) -> None:
    """Notifications gone, animations done, the last frame painted."""
    app.clear_notifications()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause(0.5)


async def _showcase(columns: int, rows: int) -> str:
    from airline_agent.agent.events import TurnFinished
    from airline_agent.config import Settings
    from airline_agent.tui.app import AirlineApp
    from airline_agent.tui.controller import AgentController
    from airline_agent.tui.widgets.status_bar import StatusBar

    controller = AgentController(Settings(model=None))
    app = AirlineApp(controller, scenario="cancel-ehglp3")  # the default pace, as shown
    async with app.run_test(size=(columns, rows)) as pilot:

        def loaded() -> bool:
            return controller.feed.scenario_name == "cancel-ehglp3" and not app.main.turn_running

        await _until(pilot, loaded)
        await pilot.press(">")  # the whole first turn (space steps it)

        def first_turn_done() -> bool:
            return any(isinstance(e, TurnFinished) for e in controller.feed.events)

        await _until(pilot, first_turn_done)
        status = app.main.query_one("#status", StatusBar)

        def settled() -> bool:  # the status line has given back a busy line
            return not (app.main.turn_running or app.main.backlog or status.shrink_pending)

        await _until(pilot, settled)
        await _at_rest(app, pilot)
        svg = app.export_screenshot(title="airline-agent")
    controller.close()
    return svg


async def _debugger(columns: int, rows: int) -> str:
    from textual.widgets import TextArea

    from airline_agent.agent.events import RequestHeld
    from airline_agent.config import Settings
    from airline_agent.tui.app import AirlineApp
    from airline_agent.tui.controller import AgentController
    from airline_agent.tui.screens.json_editor import JsonEditorScreen

    with tempfile.TemporaryDirectory(prefix="screenshot-") as scratch:
        controller = AgentController(Settings(db=str(Path(scratch) / "unused.db")))
        app = AirlineApp(controller, pace=0)
        app.start_scenario = "cancel-ehglp3"
        async with app.run_test(size=(columns, rows)) as pilot:

            def loaded() -> bool:
                return (
                    controller.feed.scenario_name == "cancel-ehglp3" and not app.main.turn_running
                )

            await _until(pilot, loaded)
            await pilot.press("space")  # the customer's message, then the request is held

            def held() -> bool:
                return isinstance(controller.feed.held, RequestHeld) and not app.main.backlog

            await _until(pilot, held)
            await pilot.pause(0.5)  # the footer offers `e` once the hold is shown
            await pilot.press("e")

            def editing() -> bool:
                return isinstance(app.screen, JsonEditorScreen)

            await _until(pilot, editing)
            app.screen.query_one(TextArea).cursor_blink = False
            await _at_rest(app, pilot)
            svg = app.export_screenshot(title="airline-agent: a held request")
        controller.close()
    return svg


def _eval_run(out: Path) -> Path:
    """Two tasks × two trials, as tests/tui/test_results_view.py makes them: an agent that
    skips a task's first write (task 14 fails), a customer that invents an id once (task 3's
    first trial is a customer error)."""
    # The tests' own helpers (importable once main() has put the checkout on sys.path).
    from tests.conftest import TAU2_DIR
    from tests.support.chat_server import ChatServer
    from tests.support.eval_roles import OracleAgent, ScriptedCustomer
    from tests.support.eval_run import run_eval

    if not (TAU2_DIR / "tasks.json").is_file():
        sys.exit(f"screenshot results: τ²-bench's data not found in {TAU2_DIR} (docs/eval.md)")
    tasks = TAU2_DIR / "tasks.json"
    agent = ChatServer(OracleAgent(tasks))
    customer = ChatServer(ScriptedCustomer(tasks, invents={"3": 1}))
    try:
        run = run_eval(
            agent,
            customer,
            out,
            "--task-ids",
            "14,3",
            "--trials",
            "2",
            tasks=TAU2_DIR,
            agent_model="oracle-skips-write",
        )
    finally:
        agent.close()
        customer.close()
    if run.exit_code != 0:
        sys.exit(f"screenshot results: the eval run failed: {run.stderr.strip()}")
    return out


async def _results(columns: int, rows: int) -> str:
    from airline_agent.config import Settings
    from airline_agent.tui.app import AirlineApp
    from airline_agent.tui.controller import AgentController
    from airline_agent.tui.screens.results import ResultsScreen

    with tempfile.TemporaryDirectory(prefix="screenshot-") as scratch:
        os.chdir(scratch)  # the run's relative paths, as a user's `runs/…`
        folder = await asyncio.to_thread(_eval_run, Path("runs") / "a")
        app = AirlineApp(AgentController(Settings(), results=folder), pace=0)
        async with app.run_test(size=(columns, rows)) as pilot:

            def results_shown() -> bool:
                return isinstance(app.screen, ResultsScreen) and app.screen.results is not None

            await _until(pilot, results_shown)
            await _at_rest(app, pilot)
            svg = app.export_screenshot(title="airline-agent tui --results runs/a")
        os.chdir(ROOT)
    return svg


Shot = Callable[[int, int], Awaitable[str]]
SHOTS: dict[str, tuple[Shot, str, Path]] = {
    "showcase": (_showcase, "160x48", DOCS / "screenshot.svg"),
    "debugger": (_debugger, "120x36", DOCS / "debugger.svg"),
    "results": (_results, "120x30", DOCS / "results.svg"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shots", nargs="*", metavar="PICTURE", help=f"any of {', '.join(SHOTS)}")
    parser.add_argument("--size", help="COLUMNSxROWS (default: each picture's own)")
    parser.add_argument("--output", type=Path, help="with one picture: where to write it")
    arguments = parser.parse_args()
    names = arguments.shots or list(SHOTS)
    if unknown := [name for name in names if name not in SHOTS]:
        parser.error(f"unknown picture {', '.join(unknown)}; choose from {', '.join(SHOTS)}")
    if arguments.output and len(names) != 1:
        parser.error("--output needs exactly one picture")
    for variable in [name for name in os.environ if name.startswith(("OPENAI_", "AIRLINE_AGENT_"))]:
        if variable != "AIRLINE_AGENT_TAU2_DIR":
            del os.environ[variable]  # offline, whatever the shell has set
    sys.path.insert(0, str(ROOT))
    for name in names:
        shoot, size, output = SHOTS[name]
        columns, rows = (int(part) for part in (arguments.size or size).lower().split("x"))
        output = arguments.output or output
        output.write_text(asyncio.run(shoot(columns, rows)))
        print(f"wrote {output} ({columns}×{rows})")


if __name__ == "__main__":
    main()
