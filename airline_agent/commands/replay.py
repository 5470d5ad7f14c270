"""Placeholder: commands of this module are not written yet."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    pass
