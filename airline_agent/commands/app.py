"""The typer app: every command's options and help, registered from its module.

A command's module imports only typer and what its options need, and the modules that do
the command's work once, in its body: `airline-agent --help` and each command's `--help`
read the options of every command and load none of the work.
"""

from __future__ import annotations

import typer

from airline_agent.commands import call, data, mcp, replay, tui
from airline_agent.commands import eval as eval_command
from airline_agent.commands.chat import command as chat
from airline_agent.commands.serve import command as serve


def build_app() -> typer.Typer:
    app = typer.Typer(
        name="airline-agent",
        help="An airline customer-service agent whose every tool call, token and database "
        "change you can watch. With no command, opens the TUI.",
        epilog="Examples:\n\n"
        "  airline-agent    # the TUI: the scenario library offline, or a live chat\n\n"
        "  airline-agent replay data/scenarios    # play every shipped scenario offline, checked",
        add_completion=False,
        no_args_is_help=False,
        pretty_exceptions_enable=False,
    )
    for module in (data, call, chat, replay, eval_command, tui, serve, mcp):
        module.register(app)

    @app.callback(invoke_without_command=True)
    def _default(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:
            ctx.invoke(tui.tui_command)

    return app
