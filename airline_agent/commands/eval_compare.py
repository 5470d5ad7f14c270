"""What `airline-agent eval --compare RUN_A RUN_B` does (its options are `eval.py`'s): the
tasks whose outcome changed between two runs, read from their results.json. Only the
results are loaded: not the agent, the customer nor the database a run needs.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from airline_agent.evaluation.results import (
    ResultsUnreadable,
    like_of,
    read_results,
    setting_difference,
)
from airline_agent.evaluation.results import compare as compare_results
from airline_agent.terminal_text import escape_controls


def compare(run_a: Path, run_b: Path, *, as_json: bool) -> int:
    try:
        before, after = read_results(run_a), read_results(run_b)
    except ResultsUnreadable as exc:
        typer.echo(f"eval --compare: {exc}", err=True)
        return 2
    changes = compare_results(before, after)
    differ = setting_difference(before, after)
    if as_json:
        body = [{"task_id": c.task_id, "before": c.before, "after": c.after} for c in changes]
        like = {"before": like_of(before), "after": like_of(after)}
        typer.echo(
            json.dumps({"like": like, "same_setting": differ is None, "changed": body}, indent=2)
        )
        return 0
    typer.echo(f"--like {like_of(before)} → --like {like_of(after)}")
    if differ is not None:
        typer.echo(f"note: {differ}")
    if not changes:
        typer.echo("no task's outcome changed")
        return 0
    typer.echo(f"{'task':>4}  {'before':>7}  {'after':>7}  (passed/counted trials)")
    for change in changes:  # results.json files may come from anywhere: ids escaped
        typer.echo(
            f"{escape_controls(change.task_id):>4}  {change.describe(change.before):>7}  "
            f"{change.describe(change.after):>7}"
        )
    typer.echo(f"{len(changes)} task(s) changed")
    return 0
