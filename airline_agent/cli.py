"""The `airline-agent` command line. Each command lives in `airline_agent/commands/`.

Plain `airline-agent` and `airline-agent tui` with no options (the README's first
command) skip typer altogether: importing it and parsing the options (typer builds a
pydantic adapter per option) cost about a quarter of a second before the first frame.
Everything else goes through the typer `app` (`commands/app.py`), built when first asked
for.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from airline_agent.tui import launch

if TYPE_CHECKING:  # typer only for the annotations: importing it is what the TUI skips
    import typer

    app: typer.Typer


def build_app() -> typer.Typer:
    # The door to typer and the commands' options: plain `airline-agent` opens the TUI
    # without them (see above).
    from airline_agent.commands.app import build_app as build

    return build()


def __getattr__(name: str) -> object:
    if name == "app":  # `from airline_agent.cli import app`: built once, on first use
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    if sys.argv[1:] in ([], ["tui"]):
        # Only the TUI's first screen: nothing of typer or of the other commands.
        sys.exit(launch.run_tui())
    build_app()()
