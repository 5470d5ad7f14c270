"""Settings for a command: one clear line and exit status 2 when a setting is unusable."""

from __future__ import annotations

import typer

from airline_agent.config import Settings, SettingsError, load_settings


def settings_or_exit(**flags: object) -> Settings:
    try:
        return load_settings(**flags)
    except SettingsError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
