"""`airline-agent replay PATH… [--json] [--transcript DIR]`, `replay --tau2 DIR` and
`replay FILE --stop-at N --db OUT`.

Runs scenario files offline through the real loop, tools and a fresh database each,
prints a table (or a JSON report) and exits non-zero when any scenario failed, drifted
or could not be loaded. With `--stop-at N` it plays one scenario up to its step N (the
debugger's numbering, agent/steps.py) and writes the database as it was then to OUT.

The options are here; what the command does is `replay_work.py`'s, loaded only when it
runs.
"""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    app.command(
        "replay",
        epilog="Examples:\n\n"
        "  airline-agent replay data/scenarios    # every shipped scenario, offline, checked\n\n"
        "  airline-agent replay data/scenarios/cancel-ehglp3.yaml --stop-at 4 --db after.db"
        "    # the database after step 4",
    )(replay_command)


def replay_command(
    paths: list[Path] = typer.Argument(
        None, help="Scenario files or directories (default: the shipped library)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print a machine-readable report."),
    transcript: Path | None = typer.Option(
        None, "--transcript", help="Write each conversation as JSONL and Markdown into DIR."
    ),
    tau2: Path | None = typer.Option(
        None,
        "--tau2",
        help="Replay the τ² tasks' reference actions from DIR (tasks.json, db.json), "
        "guard off: τ²-bench's lenient semantics.",
    ),
    stop_at: int | None = typer.Option(
        None,
        "--stop-at",
        min=0,
        help="Play one scenario up to its step N (docs/debugger.md: Steps) and write the "
        "database as it was then to --db.",
    ),
    db: Path | None = typer.Option(
        None, "--db", help="With --stop-at: where to write the database (a new file)."
    ),
    force: bool = typer.Option(
        False, "--force", help="Replace existing --transcript files (or the --db file)."
    ),
    api: str = typer.Option(
        "chat",
        "--api",
        help="The wire the scripted answers are generated on: chat (Chat Completions) or "
        "responses (the Responses API). A scenario replays the same on either.",
    ),
) -> None:
    """Replay scenarios offline and verify their expectations."""
    # The door: the scenarios, the loop and the database load only when replay runs.
    from airline_agent.commands import replay_work

    raise typer.Exit(
        replay_work.replay(
            list(paths or []),
            as_json=as_json,
            transcript=transcript,
            tau2=tau2,
            stop_at=stop_at,
            db=db,
            force=force,
            api=api,
        )
    )
