"""`airline-agent tui` (also plain `airline-agent`): the Textual app.

With no model configured it opens offline on the scenario library; it never asks for a
key on a blank screen and never shows a traceback.
"""

from __future__ import annotations

from typing import Annotated

import typer

from airline_agent.commands.flags import renamed
from airline_agent.tui.launch import run_tui


def tui_command(
    scenario: Annotated[
        str | None, typer.Option("--scenario", help="Scenario name or file to open (offline).")
    ] = None,
    results: Annotated[
        str | None,
        typer.Option(
            "--results",
            help="An eval run's folder (eval --out): its results; enter plays a trial (offline).",
        ),
    ] = None,
    watch: Annotated[
        str | None,
        typer.Option(
            "--watch",
            help="An MCP server's event log (mcp --events FILE): its sessions, live.",
        ),
    ] = None,
    customer: Annotated[
        str | None, typer.Option("--as", help="Act for this customer id (live).")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name (live mode).")] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible server URL.")
    ] = None,
    db: Annotated[str | None, typer.Option("--db", help="Database path or URL.")] = None,
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
    recover_text_tool_calls: Annotated[
        bool,
        typer.Option(
            "--recover-text-tool-calls",
            help="Make a tool call the model wrote as text (shown as the framework's doing).",
        ),
    ] = False,
    old_customer: Annotated[str | None, renamed("--customer", "--as")] = None,
) -> None:
    """Open the Textual app: chat, tool trace and token usage side by side."""
    code = run_tui(
        scenario=scenario,
        results=results,
        watch=watch,
        customer=customer,
        model=model,
        base_url=base_url,
        db=db,
        approve=approve,
        prompt=prompt,
        guard=guard,
        recover_text_tool_calls=True if recover_text_tool_calls else None,
    )
    if code:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command(
        "tui",
        epilog="Examples:\n\n"
        "  airline-agent tui --scenario cancel-ehglp3    # the showcase, offline: space steps\n\n"
        "  airline-agent tui --model gpt-4o-mini --as emma_kim_9957    # live, for this customer",
    )(tui_command)
