"""`airline-agent mcp`: the airline's tools as a Model Context Protocol server.

stdio by default (a client starts this command and speaks on its stdin/stdout); `--http
[HOST:]PORT` for streamable HTTP. The SDK (`mcp`), uvicorn and the domain are imported
inside the command: `--help` pays for none of them.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated, Literal

import typer

LOOPBACK = "127.0.0.1"


def parse_listen(text: str) -> tuple[str, int]:
    """`PORT`, `HOST:PORT` or `[IPV6]:PORT` → (host, port); ValueError says what is wrong."""
    host, _, port_text = text.rpartition(":")
    host = host.strip("[]") or LOOPBACK
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"{text!r} is not [HOST:]PORT (e.g. 8000 or 127.0.0.1:8000)") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is not between 0 and 65535")
    return host, port


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, port: int, customer: str | None) -> str:
    who = f"as {customer}" if customer else "as any customer (the first one it looks up)"
    return (
        f"warning: {host} is not a loopback address: anyone who can reach port {port} of this "
        f"machine can act {who}, read their profile and reservations and, as approvals allow, "
        "book, change and cancel. There is no login. Serve on 127.0.0.1 (the default) unless "
        "you trust everyone who can reach it."
    )


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

    # Here, not at the top: `--help` loads neither the MCP SDK nor pydantic nor the domain.
    from airline_agent.commands.outputs import file_or_exit
    from airline_agent.commands.settings import settings_or_exit
    from airline_agent.mcp_server.recording import RecordTarget
    from airline_agent.mcp_server.run import Server, ServerSetupError
    from airline_agent.output_files import OutputPolicy

    settings = settings_or_exit(db=db, guard=guard)

    target = None
    if record is not None:
        policy = OutputPolicy.for_run(database=settings.db, overwrite=force)
        target = RecordTarget(record, file_or_exit(record, "--record", policy))
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
        raise typer.Exit(exc.status) from None
    raise typer.Exit(server.run(listen))


def register(app: typer.Typer) -> None:
    app.command(
        "mcp",
        help="Serve the 14 tools as a Model Context Protocol server (stdio, or --http), "
        "with the guard, approvals by elicitation, a database copy per session and a record.",
        epilog="Examples:\n\n"
        "  airline-agent mcp --db data/airline.db    # stdio, for Claude Desktop or any client\n\n"
        "  airline-agent mcp --http 8000 --events ev.jsonl    # then: tui --watch ev.jsonl",
    )(mcp_command)
