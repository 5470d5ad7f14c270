"""The `airline-agent` command line. Each command lives in `airline_agent/commands/`.

Command modules import heavy libraries (openai, sqlmodel, textual) inside the command
body, so that `--help` and quick commands do not pay for what they do not use.
"""

from __future__ import annotations

import typer

from airline_agent.commands import call, chat, data, replay, tui

app = typer.Typer(
    name="airline-agent",
    help="An airline customer-service agent whose every tool call, token and database "
    "change you can watch. With no command, opens the TUI.",
    add_completion=False,
    no_args_is_help=False,
    pretty_exceptions_enable=False,
)

for module in (data, call, chat, replay, tui):
    module.register(app)


@app.callback(invoke_without_command=True)
def _default(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:
        ctx.invoke(tui.tui_command)


def main() -> None:
    app()
