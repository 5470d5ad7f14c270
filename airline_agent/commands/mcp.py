"""`airline-agent mcp`: the airline's tools as a Model Context Protocol server.

stdio by default (a client starts this command and speaks on its stdin/stdout); `--http
[HOST:]PORT` for streamable HTTP. The options are here; what the command does is
`mcp_work.py`'s (the server is `mcp_server/`), loaded only when it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from airline_agent.mcp_server.addresses import parse_listen


def _usage(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def mcp_command(
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="[HOST:]PORT",
            help="Serve streamable HTTP at http://HOST:PORT/mcp (host default 127.0.0.1; "
            "port 0: any free one) instead of stdio.",
        ),
    ] = None,
    as_user: Annotated[
        str | None,
        typer.Option(
            "--as",
            help="Act for this customer in every session (else each session acts for the "
            "first customer it looks up).",
        ),
    ] = None,
    approve: Annotated[
        str,
        typer.Option(
            "--approve",
            help="A write, for a client that cannot be asked (no elicitation): deny (refused, "
            "nothing written) or auto (run). A client that can be asked is always asked.",
        ),
    ] = "deny",
    shared: Annotated[
        bool,
        typer.Option(
            "--shared",
            help="All sessions work on the database itself (writes serialized), instead of "
            "each on its own copy.",
        ),
    ] = False,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record",
            metavar="FILE",
            help="Write each session's calls as a scenario (replay it with `replay`); HTTP "
            "sessions after the first as FILE-2.yaml, FILE-3.yaml, ….",
        ),
    ] = None,
    events: Annotated[
        Path | None,
        typer.Option(
            "--events",
            metavar="FILE",
            help="Append every call as it happens, one JSON line each (for `tui --watch`).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing recordings.")] = False,
    guard: Annotated[
        bool | None,
        typer.Option(
            "--guard/--no-guard",
            help="The policy guard (default: on; AIRLINE_AGENT_GUARD); off: τ²'s lenient "
            "semantics.",
        ),
    ] = None,
    db: Annotated[str | None, typer.Option("--db", help="Database path or SQLAlchemy URL.")] = None,
) -> None:
    """Serve the airline's 14 tools to any MCP client, guard and approvals included."""
    if approve not in ("auto", "deny"):
        raise _usage(f"--approve: {approve!r} is not one of: auto, deny")
    fallback: Literal["auto", "deny"] = "auto" if approve == "auto" else "deny"
    listen = None
    if http is not None:
        try:
            listen = parse_listen(http)
        except ValueError as exc:
            raise _usage(f"--http: {exc}") from None

    # The door: the MCP SDK, uvicorn, the settings and the database load only when the
    # server runs.
    from airline_agent.commands import mcp_work

    raise typer.Exit(
        mcp_work.serve(
            listen,
            as_user=as_user,
            fallback=fallback,
            shared=shared,
            record=record,
            events=events,
            force=force,
            guard=guard,
            db=db,
        )
    )


def register(app: typer.Typer) -> None:
    app.command(
        "mcp",
        help="Serve the 14 tools as a Model Context Protocol server (stdio, or --http), "
        "with the guard, approvals by elicitation, a database copy per session and a record.",
        epilog="Examples:\n\n"
        "  airline-agent mcp --db data/airline.db    # stdio, for Claude Desktop or any client\n\n"
        "  airline-agent mcp --http 8000 --events ev.jsonl    # then: tui --watch ev.jsonl",
    )(mcp_command)
