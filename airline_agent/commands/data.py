"""`seed` and `export`: build the reservations database, write it out in τ² shape.

The options are here; what each command does is `data_work.py`'s (databases built and
opened through `airline_agent/stack.py`), loaded only when it runs.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from airline_agent.commands.flags import renamed


class ExportFormat(StrEnum):
    tau2 = "tau2"


def seed_command(
    db: Annotated[
        str | None, typer.Option("--db", help="Database path or URL (default: settings).")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Generator seed.")] = None,
    scale: Annotated[
        int, typer.Option("--scale", min=1, help="Multiply users and reservations.")
    ] = 1,
    from_tau2: Annotated[
        Path | None,
        typer.Option("--from-tau2", help="Import a τ²-bench db.json instead of generating."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing database.")] = False,
) -> None:
    """Build the reservations database (the deterministic sample, or a τ² db.json)."""
    # The door: settings, sqlmodel and the domain load only when a database is built.
    from airline_agent.commands import data_work

    data_work.seed(db=db, seed=seed, scale=scale, from_tau2=from_tau2, force=force)


def export_command(
    db: Annotated[
        str | None, typer.Option("--db", help="Database path or URL (default: settings).")
    ] = None,
    format: Annotated[
        ExportFormat, typer.Option("--format", help="Output format.")
    ] = ExportFormat.tau2,
    output: Annotated[
        Path | None, typer.Option("-o", "--out", help="Write here instead of stdout.")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing -o file.")] = False,
    old_output: Annotated[Path | None, renamed("--output", "--out")] = None,
) -> None:
    """Write the database as a τ²-bench db.json (to stdout, or to -o FILE)."""
    # The door: settings, sqlmodel and the domain load only when a database is written.
    from airline_agent.commands import data_work

    data_work.export(db=db, output=output, force=force)


def register(app: typer.Typer) -> None:
    app.command(
        "seed",
        epilog="Examples:\n\n"
        "  airline-agent seed --db big.db --scale 4    # four times the customers\n\n"
        "  airline-agent seed --force    # put data/airline.db back as it was built",
    )(seed_command)
    app.command(
        "export",
        epilog="Examples:\n\n"
        "  airline-agent export -o db.json    # the database as τ²'s db.json\n\n"
        "  airline-agent seed --db copy.db --from-tau2 db.json    # and back, identically",
    )(export_command)
