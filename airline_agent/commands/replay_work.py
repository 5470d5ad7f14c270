"""What `airline-agent replay` does (its options are `replay.py`'s): scenario files played
offline through the real loop, tools and a fresh database each, and reported; the τ²
tasks' reference actions (`--tau2`); one scenario up to a step (`--stop-at`).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import typer

from airline_agent.choices import APIS
from airline_agent.commands.outputs import allowed_or_exit, file_or_exit, folder_or_exit
from airline_agent.commands.settings import settings_or_exit
from airline_agent.output_files import OutputPermissions
from airline_agent.redaction import Redactor
from airline_agent.scenarios import datasets
from airline_agent.scenarios.datasets import DatasetUnavailable
from airline_agent.scenarios.library import library_dir, ordered
from airline_agent.scenarios.loader import (
    ScenarioLoadError,
    load_all,
    load_scenario,
    scenario_paths,
)
from airline_agent.scenarios.runner import replay_scenario, replay_tau2, replay_to_step
from airline_agent.scenarios.transcript import transcript_files, write_transcript
from airline_agent.terminal_text import escape_controls

# A URL's scheme (two characters at least: `C:/` is a Windows drive, not a scheme).
_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]+:/")

# The τ² data is never in a clone; the docs say where it comes from.
TAU2_DATA_HINT = 'docs/eval.md ("The data") says where to get db.json and tasks.json'
TAU2_GUARD_OFF = (
    "guard off: the reference actions run with τ²-bench's lenient semantics, as the "
    'benchmark runs them (docs/eval.md, "The guard and τ²\'s reference solutions": what '
    "the guard changes)"
)


def _echo(text: str) -> None:
    """A line of the report: a scenario file's names and texts may hold control codes,
    shown as their escapes (terminal_text.py; JSON stays valid JSON)."""
    typer.echo(escape_controls(text))


def replay(
    paths: list[Path],
    *,
    as_json: bool,
    transcript: Path | None,
    tau2: Path | None,
    stop_at: int | None,
    db: Path | None,
    force: bool,
    api: str,
) -> int:
    """Replay the scenarios at `paths` (or as `tau2`, `stop_at` say); the exit status."""
    wire = next((known for known in APIS if known == api), None)
    if wire is None:
        typer.echo(f"replay: --api must be {' or '.join(APIS)}, not {api!r}", err=True)
        raise typer.Exit(2)
    if stop_at is not None or db is not None:
        if tau2 is not None or transcript is not None:
            typer.echo("replay: --stop-at cannot be combined with --tau2 or --transcript", err=True)
            raise typer.Exit(2)
        return _replay_to_step(paths, stop_at, db, force, as_json)
    if tau2 is not None:
        return _replay_tau2(tau2, as_json)

    targets = list(paths) if paths else [library_dir()]
    missing = [str(p) for p in targets if not p.exists()]
    if missing:
        typer.echo(f"replay: no such file or directory: {', '.join(missing)}", err=True)
        raise typer.Exit(2)
    if not scenario_paths(targets):
        typer.echo(f"replay: no scenario files in {', '.join(map(str, targets))}", err=True)
        raise typer.Exit(2)
    if transcript is not None:
        folder_or_exit(transcript, "--transcript")
    loaded = load_all(targets)
    order = ordered([item.name for item in loaded])
    loaded.sort(key=lambda item: order.index(item.name))
    outputs = None
    if transcript is not None:
        outputs = _transcript_outputs(loaded, transcript, scenario_paths(targets), force)
    rows: list[dict] = []
    for item in loaded:
        if isinstance(item, ScenarioLoadError):
            rows.append(
                {
                    "name": item.name,
                    "path": str(item.path),
                    "status": "invalid",
                    "reason": str(item),
                }
            )
            continue
        report = replay_scenario(item, keep_events=transcript is not None, api=wire)
        if transcript is not None and report.events:
            write_transcript(report.events, transcript, report.name, outputs=outputs)
        rows.append(report.to_json() | {"why": report.why()})
    failed = [row for row in rows if row["status"] not in ("passed", "skipped")]
    rows = Redactor.from_environment().redact_json(rows)  # a file may quote a key
    if as_json:
        summary = {"scenarios": rows} | _counts(rows)
        _echo(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        _print_table(rows)
    return 1 if failed else 0


def _transcript_outputs(
    loaded: list, transcript: Path, inputs: list[Path], force: bool
) -> OutputPermissions:
    """Every transcript file the run will write, checked before the first replay: none
    may replace an input of the run (a scenario file), nor an existing file unless
    `force`."""
    outputs = OutputPermissions.for_run(inputs=inputs, overwrite=force)
    for item in loaded:
        if not isinstance(item, ScenarioLoadError):
            for file in transcript_files(transcript, item.name):
                outputs = allowed_or_exit(file, "--transcript", outputs)
    return outputs


def _print_table(rows: list[dict]) -> None:
    width = max([len("scenario"), *(len(row["name"]) for row in rows)])
    _echo(f"{'scenario':{width}}  turns  calls  tokens  result   why")
    for row in rows:
        why = row.get("why") or row.get("reason") or ""
        why = why.splitlines()[0] if why else ""
        if row["status"] == "invalid":
            _echo(f"{row['name']:{width}}  {'-':>5}  {'-':>5}  {'-':>6}  invalid  {why}")
            for line in row["reason"].splitlines()[1:]:
                _echo(f"{'':{width}}  {'':34}{line}")
            continue
        _echo(
            f"{row['name']:{width}}  {row['turns']:>5}  {row['tool_calls']:>5}  "
            f"{row['tokens']:>6}  {row['status']:7}  {why}"
        )
    counts = _counts(rows)
    _echo(
        f"{counts['passed']} of {len(rows)} passed"
        + (f", {counts['skipped']} skipped" if counts["skipped"] else "")
        + (f", {counts['failed']} failed" if counts["failed"] else "")
    )


def _counts(rows: list[dict]) -> dict[str, int]:
    """A skipped scenario (its dataset is not here) does not fail the run, nor pass."""
    skipped = sum(row["status"] == "skipped" for row in rows)
    passed = sum(row["status"] == "passed" for row in rows)
    return {"passed": passed, "skipped": skipped, "failed": len(rows) - passed - skipped}


def _replay_tau2(directory: Path, as_json: bool) -> int:
    try:
        reports = replay_tau2(directory)
    except DatasetUnavailable as exc:
        print(f"replay --tau2: {exc}; {TAU2_DATA_HINT}", file=sys.stderr)
        return 2
    failed = [r for r in reports if not r.ok]
    if as_json:
        body = {"guard": "off", "tasks": [r.to_json() for r in reports], "failed": len(failed)}
        _echo(json.dumps(body, indent=2, ensure_ascii=False))
    else:
        _echo(TAU2_GUARD_OFF)
        _echo(f"{'task':>4}  actions  result  changed records")
        for r in reports:
            verdict = "ok" if r.ok else "FAILED"
            changed = ", ".join(r.changed) or "-"
            _echo(f"{r.task_id:>4}  {r.actions:>7}  {verdict:6}  {changed}")
            for f in r.failures:
                _echo(f"{'':>4}  action {f.index} {f.name}: {f.error} {f.message}")
        _echo(f"{len(reports) - len(failed)} of {len(reports)} tasks: every action succeeded")
    return 1 if failed else 0


def _replay_to_step(
    paths: list[Path], stop_at: int | None, target: Path | None, force: bool, as_json: bool
) -> int:
    """`replay FILE --stop-at N --db OUT`: the database after step N of FILE, in OUT."""
    if stop_at is None or target is None:
        typer.echo("replay: --stop-at N and --db OUT go together", err=True)
        return 2
    if len(paths) != 1 or not paths[0].is_file():
        given = ", ".join(map(str, paths)) or "none"
        typer.echo(f"replay --stop-at: give one scenario file (given: {given})", err=True)
        return 2
    if _URL.match(str(target)):  # the path typer made of a URL: `postgresql:/user:…`
        typer.echo("replay --stop-at: --db OUT is a new SQLite file, not a URL", err=True)
        return 2
    source = paths[0]
    try:
        scenario = load_scenario(source)
    except ScenarioLoadError as exc:
        _echo_error(f"replay: {exc}")
        return 2
    # Never the database the settings name, nor the scenario file; another SQLite file
    # (an earlier OUT) only with --force.
    settings = settings_or_exit()
    permissions = OutputPermissions.for_run(database=settings.db, inputs=[source], overwrite=force)
    permissions = file_or_exit(target, "--db", replace(permissions, databases_replaceable=True))
    try:
        stopped = asyncio.run(replay_to_step(scenario, stop_at))
    except datasets.DatasetUnavailable as exc:
        _echo_error(f"replay: {scenario.name}: {exc}")
        return 2
    try:
        if stopped.steps < stop_at:
            _echo_error(
                f"replay: {scenario.name} has {stopped.steps} steps, not {stop_at}; "
                f"nothing was written to {target}"
            )
            return 2
        permissions.write_bytes(target, stopped.database.read_bytes())
    except OSError as exc:
        _echo_error(f"error: --db {target}: cannot be written ({exc.strerror or exc})")
        return 1
    finally:
        datasets.discard(stopped.database)
    at = stopped.last or "the dataset as the scenario begins"
    if as_json:
        body = {"scenario": scenario.name, "stop_at": stop_at, "step": at, "db": str(target)}
        _echo(json.dumps(body, ensure_ascii=False))
    else:
        _echo_error(f"{target}: the database after step {stop_at} of {scenario.name} ({at})")
    return 0


def _echo_error(text: str) -> None:
    typer.echo(escape_controls(text), err=True)
