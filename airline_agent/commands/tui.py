"""`airline-agent tui` (also plain `airline-agent`)."""

from __future__ import annotations

import typer


def tui_command() -> None:
    """Open the Textual app."""
    typer.echo("The TUI is not built yet.")
    raise typer.Exit(2)


def register(app: typer.Typer) -> None:
    app.command("tui")(tui_command)
