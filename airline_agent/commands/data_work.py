"""What `seed` and `export` do (their options are `data.py`'s): build the reservations
database, write it out in τ² shape. Databases are built and opened through
`airline_agent/stack.py`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TimeElapsedColumn
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from airline_agent.commands.outputs import file_or_exit
from airline_agent.commands.settings import settings_or_exit
from airline_agent.domain import schema
from airline_agent.domain.database_urls import mask_passwords, redact_url
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.sqlite_files import sqlite_path
from airline_agent.domain.tau2 import export_tau2, listing_odd, read_tau2_file
from airline_agent.output_files import OutputPermissions
from airline_agent.redaction import Redactor
from airline_agent.stack import build_database, open_existing_database
from airline_agent.terminal_text import escape_controls

if TYPE_CHECKING:  # a front end opens databases only through stack.py: the type alone
    from airline_agent.domain.db import Database


def seed(
    *, db: str | None, seed: int | None, scale: int, from_tau2: Path | None, force: bool
) -> None:
    """Build the database the settings name (or `db`): the sample, or a τ² db.json."""
    settings = settings_or_exit(db=db)
    if from_tau2 is not None and (seed is not None or scale != 1):
        typer.echo("error: --from-tau2 cannot be combined with --seed or --scale", err=True)
        raise typer.Exit(2)

    target = sqlite_path(settings.db)
    if from_tau2 is not None and target is not None and _same_path(target, from_tau2):
        typer.echo(
            f"error: --db {settings.db}: is an input of this run (--from-tau2); "
            "nothing is built over it",
            err=True,
        )
        raise typer.Exit(2)

    started = time.perf_counter()
    try:
        with _progress_bar("seeding") as progress:
            database = build_database(
                settings.db,
                seed=seed,
                scale=scale,
                tau2=from_tau2,
                force=force,
                progress=progress,
            )
    except (DatabaseUnavailable, ValueError) as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"{redact_url(settings.db)}: {exc.strerror or exc}") from None
    except SQLAlchemyError as exc:
        said = mask_passwords(str(getattr(exc, "orig", None) or exc))
        raise _fail(f"{redact_url(settings.db)}: {said}") from None
    try:
        counts = _counts(database)
        source = database.meta().get("source", "?")
    finally:
        database.close()
    seconds = time.perf_counter() - started
    typer.echo(
        f"{database.location}: {counts} ({source}) in {seconds:.2f} s",
        err=True,
    )
    if from_tau2 is not None:
        odd = listing_odd(read_tau2_file(from_tau2))
        if odd is not None:
            typer.echo(f"warning: {from_tau2}: {escape_controls(odd)}", err=True)


def _same_path(one: Path, other: Path) -> bool:
    return os.path.realpath(one.expanduser()) == os.path.realpath(other.expanduser())


def _counts(database: Database) -> str:
    parts = []
    with database.engine.connect() as connection:
        for label, model in (
            ("airports", schema.Airport),
            ("flights", schema.Flight),
            ("flight dates", schema.FlightDate),
            ("users", schema.User),
            ("reservations", schema.Reservation),
        ):
            count = connection.execute(select(func.count()).select_from(model)).scalar()
            parts.append(f"{count:,} {label}")
    return ", ".join(parts)


def export(*, db: str | None, output: Path | None, force: bool) -> None:
    """Write the database as a τ²-bench db.json, to stdout or to `output`."""
    settings = settings_or_exit(db=db)
    outputs = OutputPermissions.for_run(database=settings.db, overwrite=force)
    if output is not None:
        outputs = file_or_exit(output, "-o", outputs)

    try:
        database = open_existing_database(settings.db)
    except DatabaseUnavailable as exc:
        raise _fail(str(exc)) from None
    try:
        document = export_tau2(database)
    except Exception as exc:  # a database that opened but cannot be read whole
        orig = getattr(exc, "orig", None)
        if orig is None:
            raise
        raise _fail(f"{database.location}: cannot be exported ({orig})") from None
    finally:
        database.close()

    # A key a customer typed may have reached the data (a passenger's name): never export it.
    text = Redactor.from_settings(settings).redact(
        json.dumps(document, indent=2, ensure_ascii=False)
    )
    text += "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        outputs.write_text(output, text)
    except OSError as exc:
        raise _fail(f"{output}: cannot be written ({exc.strerror or exc})") from None
    typer.echo(f"{output}: {len(document['reservations']):,} reservations written", err=True)


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(1)


@contextmanager
def _progress_bar(label: str) -> Iterator[Callable[[str, int, int], None]]:
    """A progress callback drawing a rich bar on stderr, shown only after ~1 s of work
    and only on a terminal (tests and pipes get the summary line alone)."""
    console = Console(stderr=True)
    started = time.perf_counter()
    bar: Progress | None = None
    task = None

    def update(stage: str, done: int, total: int) -> None:
        nonlocal bar, task
        if not console.is_terminal or not total:
            return
        if bar is None:
            if time.perf_counter() - started < 1.0:
                return
            bar = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                TaskProgressColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            )
            bar.start()
            task = bar.add_task(label, total=total)
        if task is not None:
            bar.update(task, completed=done, total=total, description=f"{label}: {stage}")

    try:
        yield update
    finally:
        if bar is not None:
            bar.stop()
