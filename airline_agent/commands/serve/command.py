"""The `serve` command's options; what it does is `work.py`'s, loaded only when it runs."""

from __future__ import annotations

from typing import Annotated

import typer

from airline_agent.commands.serve import DEFAULT_HOST, DEFAULT_PORT


def serve_command(
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on. The default is loopback (this machine only); "
            "anything else lets whoever reaches the port use the app.",
        ),
    ] = DEFAULT_HOST,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port (0: any free port).")
    ] = DEFAULT_PORT,
    public_url: Annotated[
        str | None,
        typer.Option(
            "--public-url",
            help="The URL browsers use when a proxy stands in front, e.g. "
            "https://demo.example.org/airline (default: the address each browser used).",
        ),
    ] = None,
    max_tabs: Annotated[
        int, typer.Option("--max-tabs", min=1, help="Most tabs (app processes) at once.")
    ] = 8,
    model: Annotated[str | None, typer.Option("--model", help="Model name (live mode).")] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible server URL.")
    ] = None,
    db: Annotated[
        str | None,
        typer.Option("--db", help="Database (live: each tab works on a copy of it)."),
    ] = None,
    guard: Annotated[
        bool | None,
        typer.Option(
            "--guard/--no-guard", help="The policy guard (default: on; AIRLINE_AGENT_GUARD)."
        ),
    ] = None,
    approve: Annotated[
        str | None, typer.Option("--approve", help="Write approvals: ask, auto or deny.")
    ] = None,
    prompt: Annotated[
        str | None, typer.Option("--prompt", help="System prompt: lean (default) or full.")
    ] = None,
) -> None:
    """Serve the TUI in a browser: each tab its own app, conversation and database copy."""
    # The door: the settings, the web server and the database load only when serve runs.
    from airline_agent.commands.serve import work

    work.serve(
        host=host,
        port=port,
        public_url=public_url,
        max_tabs=max_tabs,
        model=model,
        base_url=base_url,
        db=db,
        guard=guard,
        approve=approve,
        prompt=prompt,
    )


def register(app: typer.Typer) -> None:
    app.command(
        "serve",
        help="Serve the TUI in a browser (textual-serve): one app per tab, each with its "
        "own conversation and database copy.",
        epilog="Examples:\n\n"
        "  airline-agent serve    # then open http://127.0.0.1:8000/\n\n"
        "  airline-agent serve --port 0 --model gpt-4o-mini    # any free port, live",
    )(serve_command)
