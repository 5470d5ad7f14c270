"""What `airline-agent mcp` does (its options are `mcp.py`'s): the settings read, the
`--record` and `--events` files checked, then the server (`mcp_server/run.py`) opened and
run until its client leaves or a signal stops it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import typer

from airline_agent.commands.outputs import file_or_exit
from airline_agent.commands.settings import settings_or_exit
from airline_agent.mcp_server.recording import RecordTarget
from airline_agent.mcp_server.run import Server, ServerSetupError
from airline_agent.output_files import OutputPermissions


def serve(
    listen: tuple[str, int] | None,
    *,
    as_user: str | None,
    fallback: Literal["auto", "deny"],
    shared: bool,
    record: Path | None,
    events: Path | None,
    force: bool,
    guard: bool | None,
    db: str | None,
) -> int:
    """Serve on stdio (`listen` None) or HTTP at `listen`; the exit status."""
    settings = settings_or_exit(db=db, guard=guard)

    target = None
    if record is not None:
        permissions = OutputPermissions.for_run(database=settings.db, overwrite=force)
        target = RecordTarget(record, file_or_exit(record, "--record", permissions))
    if events is not None and (events.is_symlink() or (events.exists() and not events.is_file())):
        raise _usage(f"--events {events}: not a regular file")

    try:
        server = Server.open(
            settings,
            customer=as_user,
            fallback=fallback,
            shared=shared,
            record=target,
            events=events,
            transport="http" if listen else "stdio",
        )
    except ServerSetupError as exc:
        typer.echo(f"error: {exc}", err=True)
        return exc.status
    return server.run(listen)


def _usage(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)
