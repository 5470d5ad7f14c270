"""`airline-agent call TOOL [JSON]`: run one tool exactly as the agent would.

Exit status: 0 the tool succeeded, 1 it returned an error result (or the database is
unusable), 2 bad usage (unknown option or tool, arguments that are not a JSON object).
The domain and the tools are imported inside the command so `--help` stays fast.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from airline_agent.domain.database_urls import redact_url
from airline_agent.terminal_text import escape_controls
from airline_agent.tools.untrusted import MAX_DEPTH, depth_beyond, escape_surrogates


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
    from airline_agent.tools.registry import ArgumentsRejected, load_json

    try:  # the tools' own reading of JSON text: numbers no tool takes are refused too
        parsed = load_json(arguments)
    except ArgumentsRejected as rejected:
        raise _usage(rejected.result["message"]) from None
    if depth_beyond(parsed, MAX_DEPTH):
        raise _usage(f"arguments are nested more than {MAX_DEPTH} levels deep; no tool takes that")
    if not isinstance(parsed, dict):
        raise _usage('arguments must be a JSON object, e.g. \'{"user_id": "emma_kim_9957"}\'')
    return parsed


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
    no_guard: Annotated[
        bool, typer.Option("--no-guard", help="Skip the policy guard (τ² lenient semantics).")
    ] = False,
    db: Annotated[str | None, typer.Option("--db", help="Database path or SQLAlchemy URL.")] = None,
) -> None:
    """Run one tool and print its JSON result."""
    parsed = _parse(arguments)

    from airline_agent.commands.settings import settings_or_exit
    from airline_agent.domain.errors import DatabaseUnavailable
    from airline_agent.stack import tool_caller

    settings = settings_or_exit(db=db, guard=False if no_guard else None)
    toolbox_names = _tool_names()
    if tool not in toolbox_names:
        raise _usage(f"no tool named {tool!r}; the tools are: {', '.join(toolbox_names)}")
    try:
        caller = tool_caller(settings, customer=as_user)
    except DatabaseUnavailable as exc:
        _echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    except Exception as exc:  # one clear line, never a traceback
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        _echo(f"error: {redact_url(settings.db)}: cannot open the database ({reason})", err=True)
        raise typer.Exit(1) from None
    try:
        outcome = caller.call(tool, parsed)
    finally:
        caller.close()
    from airline_agent.redaction import Redactor

    result = json.dumps(outcome.result, indent=2, ensure_ascii=False)
    _echo(Redactor.from_settings(settings).redact(result))
    raise typer.Exit(0 if outcome.ok else 1)


def _tool_names() -> list[str]:
    from airline_agent.tools.toolbox import tool_names

    return tool_names()


def register(app: typer.Typer) -> None:
    app.command(
        "call",
        help="Run one tool as the agent would and print its JSON result "
        "(exit 0 ok, 1 error result, 2 bad usage).",
    )(call_command)
