"""`airline-agent call TOOL [JSON]`: run one tool exactly as the agent would.

Exit status: 0 the tool succeeded, 1 it returned an error result (or the database is
unusable), 2 bad usage (unknown option or tool, arguments that are not a JSON object).
The options are here; what the command does is `call_work.py`'s, loaded only when it
runs.
"""

from __future__ import annotations

from typing import Annotated

import typer


def call_command(
    tool: Annotated[str, typer.Argument(help="Tool name, e.g. get_reservation_details.")],
    arguments: Annotated[
        str | None,
        typer.Argument(help='Arguments as one JSON object, e.g. \'{"reservation_id": "EHGLP3"}\'.'),
    ] = None,
    as_user: Annotated[
        str | None,
        typer.Option("--as", help="Act for this customer (user id); writes on others are refused."),
    ] = None,
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
    """Run one tool and print its JSON result."""
    # The door: the settings, the tools and the database load only when a tool is called.
    from airline_agent.commands.call_work import call_tool

    raise typer.Exit(call_tool(tool, arguments, as_user=as_user, guard=guard, db=db))


def register(app: typer.Typer) -> None:
    app.command(
        "call",
        help="Run one tool as the agent would and print its JSON result "
        "(exit 0 ok, 1 error result, 2 bad usage).",
        epilog="Examples:\n\n"
        '  airline-agent call get_reservation_details \'{"reservation_id": "EHGLP3"}\'\n\n'
        "  airline-agent call cancel_reservation "
        '\'{"reservation_id": "EHGLP3", "reason": "change_of_plan"}\' '
        "--as emma_kim_9957    # refused by rule X3: exit 1",
    )(call_command)
