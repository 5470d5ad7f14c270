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
    from pydantic import ValidationError

    from airline_agent.config import Settings

    try:
        settings = Settings().with_overrides(
            model=model,
            base_url=base_url,
            db=db,
            approve=approve,
            guard=False if no_guard else None,
        )
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        typer.echo(f"airline-agent tui: {where}: {problem['msg']}", err=True)
        raise typer.Exit(2) from None
    if (
        scenario is not None
        and scenario.endswith((".yaml", ".yml"))
        and not Path(scenario).is_file()
    ):
        typer.echo(f"airline-agent tui: no such scenario file: {scenario}", err=True)
        raise typer.Exit(2)
    if scenario is not None:
        settings = settings.model_copy(update={"model": None})  # a scenario plays offline

    from airline_agent.tui.app import AirlineApp
    from airline_agent.tui.controller import AgentController

    controller = AgentController(settings)
    if customer:
        controller.set_customer(customer)
    AirlineApp(controller, scenario=scenario).run()


def register(app: typer.Typer) -> None:
    app.command("tui")(tui_command)
