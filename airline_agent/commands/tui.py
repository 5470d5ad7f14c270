"""`airline-agent tui` (also plain `airline-agent`): the Textual app.

With no model configured it opens offline on the scenario library; it never asks for a
key on a blank screen and never shows a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def tui_command(
    scenario: Annotated[
        str | None, typer.Option("--scenario", help="Scenario name or file to open (offline).")
    ] = None,
    customer: Annotated[
        str | None, typer.Option("--customer", help="Act for this customer id (live).")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name (live mode).")] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible server URL.")
    ] = None,
    db: Annotated[str | None, typer.Option("--db", help="Database path or URL.")] = None,
    no_guard: Annotated[
        bool, typer.Option("--no-guard", help="Switch the policy guard off.")
    ] = False,
    approve: Annotated[
        str | None, typer.Option("--approve", help="Write approvals: ask, auto or deny.")
    ] = None,
) -> None:
    """Open the Textual app: chat, tool trace and token usage side by side."""
    code = run_tui(
        scenario=scenario,
        customer=customer,
        model=model,
        base_url=base_url,
        db=db,
        approve=approve,
        guard=False if no_guard else None,
    )
    if code:
        raise typer.Exit(code)


def run_tui(
    *,
    scenario: str | None = None,
    customer: str | None = None,
    **flags: object,
) -> int:
    """Run the app; the exit status. Also the fast path of plain `airline-agent` (cli.py).

    The first screen does not wait for pydantic: the settings are peeked (live or offline,
    the status line) and built in a worker after the first frame; an unusable setting
    closes the app with one line and status 2, as before it opened.
    """
    import sys
    from dataclasses import replace

    from airline_agent.settings_peek import peek_settings

    if (
        scenario is not None
        and scenario.endswith((".yaml", ".yml"))
        and not Path(scenario).is_file()
    ):
        print(f"airline-agent tui: no such scenario file: {scenario}", file=sys.stderr)
        return 2
    settings = peek_settings(**flags)
    if scenario is not None:
        settings = replace(settings, model=None)  # a scenario plays offline

    from airline_agent.tui.app import AirlineApp
    from airline_agent.tui.controller import AgentController

    controller = AgentController(settings)
    if customer:
        controller.set_customer(customer)
    app = AirlineApp(controller, scenario=scenario)
    app.run()
    if app.problem:
        print(f"airline-agent tui: {app.problem}", file=sys.stderr)
    return app.return_code or 0


def register(app: typer.Typer) -> None:
    app.command("tui")(tui_command)
