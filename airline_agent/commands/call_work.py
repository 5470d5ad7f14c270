"""What `airline-agent call TOOL [JSON]` does (its options are `call.py`'s): the arguments
read, the settings and the database opened, the tool run as the agent would run it and
its result printed as JSON."""

from __future__ import annotations

import json
from typing import Any

import typer

from airline_agent.commands.settings import settings_or_exit
from airline_agent.domain.database_urls import redact_url
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.redaction import Redactor
from airline_agent.stack import tool_caller
from airline_agent.terminal_text import escape_controls
from airline_agent.tools.toolbox import tool_names
from airline_agent.tools.untrusted import UnusableJson, escape_surrogates, parse_json


def call_tool(
    tool: str, arguments: str | None, *, as_user: str | None, guard: bool | None, db: str | None
) -> int:
    """Run `tool` with `arguments` (JSON text) and print its result; the exit status."""
    parsed = _parse(arguments)
    settings = settings_or_exit(db=db, guard=guard)
    toolbox_names = tool_names()
    if tool not in toolbox_names:
        raise _usage(f"no tool named {tool!r}; the tools are: {', '.join(toolbox_names)}")
    try:
        caller = tool_caller(settings, customer=as_user)
    except DatabaseUnavailable as exc:
        _echo(f"error: {exc}", err=True)
        return 1
    except Exception as exc:  # one clear line, never a traceback
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        _echo(f"error: {redact_url(settings.db)}: cannot open the database ({reason})", err=True)
        return 1
    try:
        outcome = caller.call(tool, parsed)
    finally:
        caller.close()
    result = json.dumps(outcome.result, indent=2, ensure_ascii=False)
    _echo(Redactor.from_settings(settings).redact(result))
    return 0 if outcome.ok else 1


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
