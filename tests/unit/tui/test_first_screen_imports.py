"""The TUI's first screen imports none of what only a later step needs: the stack
(sqlmodel, openai), the scenarios' models (pydantic), the settings' full read (pydantic-settings),
Markdown (the help), the MCP server, nor the TUI's own modules behind a door (a scenario's
playback, the live database, an eval run's results, `--watch`, the modal screens)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.function_imports import imports_in_functions, without_reason

# What `airline-agent tui` imports before its first frame (tui/launch.py's `_run`).
FIRST_SCREEN = (
    "airline_agent.cli",
    "airline_agent.tui.launch",
    "airline_agent.tui.start",
    "airline_agent.settings_peek",
    "airline_agent.tui.app",
    "airline_agent.tui.controller",
    "airline_agent.tui.screens.main",
)
# (yaml is not among them: the first screen lists the library from its files' YAML.)
LIBRARIES = (
    "pydantic",
    "sqlite3",
    "sqlmodel",
    "sqlalchemy",
    "openai",
    "markdown_it",
    "mcp",
    "pydantic_settings",
    "httpx",
    "dotenv",  # read only when there is a .env (the test runs where there is none)
    "tomllib",  # the price table, read once a cost is priced
)
BEHIND_DOORS = (
    # The agent's events: what shows them (a feed's turn, the trace, the panes' rows) is
    # behind the main screen's door to screens/later.py.
    "airline_agent.agent.events",
    # JSON from outside, checked (the screen's text needs only terminal_text's repair).
    "airline_agent.tools.untrusted",
    "airline_agent.stack",
    "airline_agent.config",
    "airline_agent.scenarios.loader",
    "airline_agent.scenarios.model",
    "airline_agent.scenarios.recorder",
    "airline_agent.scenarios.script",
    "airline_agent.evaluation",
    # (not its event log, which --watch reads: light, opened by the TUI's start)
    "airline_agent.mcp_server.server",
    "airline_agent.mcp_server.session",
    "airline_agent.mcp_server.run",
    "airline_agent.tui.playback",
    "airline_agent.tui.live_database",
    "airline_agent.tui.database_reset",
    "airline_agent.tui.eval_results",
    "airline_agent.tui.pacing",  # auto-play's pauses, which match on the events
    "airline_agent.tui.screens.later",
    "airline_agent.tui.screens.help",
    "airline_agent.tui.screens.both_wires",
)


def test_the_first_screen_imports_nothing_a_later_step_needs(tmp_path: Path) -> None:
    code = (
        f"import sys, {', '.join(FIRST_SCREEN)}\n"
        "from airline_agent.settings_peek import peek_settings\n"
        "peek_settings(None, None)\n"
        f"wanted = {LIBRARIES + BEHIND_DOORS!r}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in wanted or "
        "any(m == w or m.startswith(w + '.') for w in wanted)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.strip() == "[]"


PACKAGE = Path(__file__).resolve().parents[3] / "airline_agent"
# The TUI's modules past its first screen, and their doors (imports inside a function).
DOORS = {
    "tui/controller.py": 2,  # a scenario's playback, an eval run's results
    "tui/live_chat.py": 1,  # the live database
    "tui/screens/main.py": 2,  # the settings' error, the modal screens (later.py)
    "tui/screens/inspector.py": 1,  # the both-wires view (the stack)
    "tui/playback.py": 0,
    "tui/live_database.py": 0,
    "tui/database_reset.py": 0,
    "tui/eval_results.py": 0,
    "tui/watched_log.py": 0,
    "tui/watched_lines.py": 0,
    "tui/turns.py": 0,
    "tui/pacing.py": 0,
    "tui/shown.py": 0,
    **{
        f"tui/screens/{path.name}": 0
        for path in (PACKAGE / "tui" / "screens").glob("*.py")
        if path.stem not in ("main", "inspector", "picker")
    },
}


def test_the_later_modules_import_at_their_top_but_for_their_doors_saying_why() -> None:
    found: dict[str, int] = {}
    unexplained = []
    for name in DOORS:
        numbers = imports_in_functions(PACKAGE / name)
        found[name] = len(numbers)
        unexplained += [f"{name}:{n}" for n in without_reason(PACKAGE / name, numbers)]
    assert unexplained == []
    assert found == DOORS
