"""The TUI's first screen imports none of what only a later step needs: the stack
(sqlmodel, openai), the scenarios' models (pydantic), the settings' full read (pydantic-settings),
Markdown (the help), the MCP server, nor the TUI's own modules behind a door (a scenario's
playback, the live database, an eval run's results, `--watch`, the modal screens)."""

from __future__ import annotations

import subprocess
import sys

# What `airline-agent tui` imports before its first frame (tui/launch.py's `_run`).
FIRST_SCREEN = (
    "airline_agent.cli",
    "airline_agent.tui.launch",
    "airline_agent.settings_peek",
    "airline_agent.tui.app",
    "airline_agent.tui.controller",
    "airline_agent.tui.screens.main",
)
# (yaml is not among them: the first screen lists the library from its files' YAML.)
LIBRARIES = (
    "pydantic",
    "sqlmodel",
    "sqlalchemy",
    "openai",
    "markdown_it",
    "mcp",
    "pydantic_settings",
    "httpx",
)
BEHIND_DOORS = (
    "airline_agent.stack",
    "airline_agent.config",
    "airline_agent.scenarios.loader",
    "airline_agent.scenarios.model",
    "airline_agent.scenarios.recorder",
    "airline_agent.scenarios.script",
    "airline_agent.evaluation",
    "airline_agent.mcp_server",
    "airline_agent.tui.playback",
    "airline_agent.tui.live_database",
    "airline_agent.tui.database_reset",
    "airline_agent.tui.eval_results",
    "airline_agent.tui.watch_run",
    "airline_agent.tui.screens.later",
    "airline_agent.tui.screens.help",
    "airline_agent.tui.screens.both_wires",
)


def test_the_first_screen_imports_nothing_a_later_step_needs() -> None:
    code = (
        f"import sys, {', '.join(FIRST_SCREEN)}\n"
        "from airline_agent.settings_peek import peek_settings\n"
        "peek_settings(None, None)\n"
        f"wanted = {LIBRARIES + BEHIND_DOORS!r}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in wanted or "
        "any(m == w or m.startswith(w + '.') for w in wanted)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
