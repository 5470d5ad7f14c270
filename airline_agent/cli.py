"""The `airline-agent` command line. Each command lives in `airline_agent/commands/`.

Command modules import heavy libraries (openai, sqlmodel, textual) inside the command
body, so that `--help` and quick commands do not pay for what they do not use.

Plain `airline-agent` and `airline-agent tui` with no options (the README's first
command) skip typer altogether: importing it and parsing the options (typer builds a
pydantic adapter per option) cost about a quarter of a second before the first frame.
Everything else goes through the typer `app`, built when first asked for.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import typer

    app: typer.Typer


def build_app() -> typer.Typer:
    # Here, not at the top: plain `airline-agent` opens the TUI without typer (see above).
    import typer

    from airline_agent.commands import call, chat, data, mcp, replay, serve, tui
    from airline_agent.commands import eval as eval_command

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

    def _default(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:
            ctx.invoke(tui.tui_command)

    # typer reads the annotation by name in this module, where typer is not imported.
    _default.__annotations__["ctx"] = typer.Context
    app.callback(invoke_without_command=True)(_default)
    return app


def __getattr__(name: str) -> object:
    if name == "app":  # `from airline_agent.cli import app`: built once, on first use
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    if sys.argv[1:] in ([], ["tui"]):
        # Only the TUI's first screen: nothing of typer or of the other commands.
        from airline_agent.tui.launch import run_tui

        sys.exit(run_tui())
    build_app()()
