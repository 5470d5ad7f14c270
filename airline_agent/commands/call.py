"""`airline-agent call TOOL [JSON]`: run one tool exactly as the agent would.

Exit status: 0 the tool succeeded, 1 it returned an error result (or the database is
unusable), 2 bad usage (unknown option or tool, arguments that are not a JSON object).
The settings, the domain and the tools are imported inside the command so that `--help`
stays fast.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from airline_agent.terminal_text import escape_controls
from airline_agent.tools.untrusted import UnusableJson, escape_surrogates, parse_json


def _echo(text: str, *, err: bool = False) -> None:
    # Lone surrogates (from `\ud800` in the JSON, or bytes of the command line that are
    # not UTF-8) cannot be written to any terminal: shown as their escapes instead. So
    # are the controls a stored value may hold (terminal_text.py): the JSON stays valid.
    typer.echo(escape_controls(escape_surrogates(text)), err=err)


def _usage(message: str) -> typer.Exit:
    _echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _parse(arguments: str | None) -> dict[str, Any]:
    """The JSON object given on the command line; bad usage (exit 2) when it is not one."""
    if arguments is None or not arguments.strip():
        return {}
    parsed = parse_json(arguments)  # as a tool reads JSON text: same refusals
    if isinstance(parsed, UnusableJson):
        raise _usage(f"the arguments: {parsed.message}")
    if not isinstance(parsed.value, dict):
        raise _usage('arguments must be a JSON object, e.g. \'{"user_id": "emma_kim_9957"}\'')
    # A lone surrogate goes on to the tool, which answers it with an error result naming
    # where it is, as it would answer a model.
    return parsed.value


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
    parsed = _parse(arguments)
    # Here, not at the top: `--help` loads neither pydantic nor the tools and the database.
    from airline_agent.commands.settings import settings_or_exit
    from airline_agent.domain.errors import DatabaseUnavailable
    from airline_agent.redaction import Redactor
    from airline_agent.stack import tool_caller
    from airline_agent.tools.toolbox import tool_names

    settings = settings_or_exit(db=db, guard=guard)
    toolbox_names = tool_names()
    if tool not in toolbox_names:
        raise _usage(f"no tool named {tool!r}; the tools are: {', '.join(toolbox_names)}")
    try:
        caller = tool_caller(settings, customer=as_user)
    except DatabaseUnavailable as exc:
        _echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    except Exception as exc:  # one clear line, never a traceback
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        _echo(f"error: {settings.db}: cannot open the database ({reason})", err=True)
        raise typer.Exit(1) from None
    try:
        outcome = caller.call(tool, parsed)
    finally:
        caller.close()
    result = json.dumps(outcome.result, indent=2, ensure_ascii=False)
    _echo(Redactor.from_settings(settings).redact(result))
    raise typer.Exit(0 if outcome.ok else 1)


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
