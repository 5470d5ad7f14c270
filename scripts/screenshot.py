"""Regenerate the README's screenshot (docs/screenshot.svg): the showcase, cancel-ehglp3,
after its first turn, at 160×48, headless (no terminal needed).

    .venv/bin/python scripts/screenshot.py [--size 160x48] [--output docs/screenshot.svg]

Offline (no model): the real loop, tools and a fresh copy of the sample database; only
the model's answers come from the scenario file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


async def _shoot(columns: int, rows: int) -> str:
    from airline_agent.agent.events import TurnFinished
    from airline_agent.config import Settings
    from airline_agent.tui.app import AirlineApp
    from airline_agent.tui.controller import AgentController
    from airline_agent.tui.widgets.status_bar import StatusBar

    controller = AgentController(Settings(model=None))
    app = AirlineApp(controller, scenario="cancel-ehglp3")  # the default pace, as shown
    async with app.run_test(size=(columns, rows)) as pilot:
        while controller.run.scenario_name != "cancel-ehglp3" or app.main.turn_running:
            await pilot.pause(0.05)
        await pilot.press(">")  # the whole first turn (space steps it)
        while not any(isinstance(e, TurnFinished) for e in controller.run.events):
            await pilot.pause(0.05)
        status = app.main.query_one("#status", StatusBar)
        while app.main.turn_running or app.main.backlog or status.shrink_pending:
            await pilot.pause(0.05)  # at rest: the status line has given back a busy line
        app.clear_notifications()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(0.5)  # the last frame painted: a picture, not a test
        svg = app.export_screenshot(title="airline-agent")
    controller.close()
    return svg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="160x48", help="COLUMNSxROWS")
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "screenshot.svg")
    arguments = parser.parse_args()
    columns, rows = (int(part) for part in arguments.size.lower().split("x"))
    for variable in [name for name in os.environ if name.startswith(("OPENAI_", "AIRLINE_AGENT_"))]:
        del os.environ[variable]  # offline, whatever the shell has set
    sys.path.insert(0, str(ROOT))
    arguments.output.write_text(asyncio.run(_shoot(columns, rows)))
    print(f"wrote {arguments.output} ({columns}×{rows})")


if __name__ == "__main__":
    main()
