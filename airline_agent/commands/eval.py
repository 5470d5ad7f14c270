"""`airline-agent eval`: the agent against a simulated customer on τ²'s airline tasks,
scored as τ²-bench scores it; `eval --compare RUN_A RUN_B` lists the tasks whose outcome
changed between two runs.

Exit status: 0 when every trial ran (whatever it scored); 1 when any trial ended in an
infrastructure error (a server unreachable or failing: the figures leave it out, and
--resume runs it again); 2 for bad usage (a missing or malformed task directory, an
existing run without --resume/--force, no model); 130 when interrupted (Ctrl-C: the
finished trials are kept, --resume goes on).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from airline_agent.config import Settings
    from airline_agent.evaluation.runner import RunOutcome

DEFAULT_MAX_TURNS = 30  # customer messages per trial (τ²'s default max_steps is 100 messages)


def register(app: typer.Typer) -> None:
    app.command(
        "eval",
        epilog="Examples:\n\n"
        "  airline-agent eval --agent-model gpt-4o-mini --trials 4 --out runs/a"
        "    # the 50 tasks, 4 trials each\n\n"
        "  airline-agent tui --results runs/a    # browse the trials, play one",
    )(eval_command)


def eval_command(
    tasks: Annotated[
        Path | None,
        typer.Option(
            "--tasks",
            help="τ² task folder: tasks.json and db.json (AIRLINE_AGENT_TAU2_DIR, "
            "then ../shared/reference/tau2).",
        ),
    ] = None,
    task_ids: Annotated[
        str | None, typer.Option("--task-ids", help="Only these tasks, e.g. 0,5,12.")
    ] = None,
    trials: Annotated[int, typer.Option("--trials", min=1, help="Trials per task (K).")] = 1,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Trials run at once.")
    ] = 1,
    agent_model: Annotated[
        str | None, typer.Option("--agent-model", help="The agent's model (AIRLINE_AGENT_MODEL).")
    ] = None,
    agent_base_url: Annotated[
        str | None,
        typer.Option("--agent-base-url", help="The agent's server (OPENAI_BASE_URL)."),
    ] = None,
    user_model: Annotated[
        str | None,
        typer.Option("--user-model", help="The simulated customer's model (default: the agent's)."),
    ] = None,
    user_base_url: Annotated[
        str | None,
        typer.Option("--user-base-url", help="The customer's server (default: the agent's)."),
    ] = None,
    guard: Annotated[
        bool,
        typer.Option(
            "--guard/--no-guard",
            help="The policy guard (default off: τ²'s semantics; AIRLINE_AGENT_GUARD does "
            "not apply here).",
        ),
    ] = False,
    prompt: Annotated[
        str | None, typer.Option("--prompt", help="The agent's system prompt: lean or full.")
    ] = None,
    max_turns: Annotated[
        int, typer.Option("--max-turns", min=1, help="Most customer messages per trial.")
    ] = DEFAULT_MAX_TURNS,
    max_tool_calls: Annotated[
        int | None,
        typer.Option(
            "--max-tool-calls",
            min=1,
            help="The agent's tool calls per turn (AIRLINE_AGENT_MAX_TOOL_CALLS, default 8).",
        ),
    ] = None,
    recover_text_tool_calls: Annotated[
        bool,
        typer.Option(
            "--recover-text-tool-calls",
            help="Make tool calls the agent model wrote as text (counted; pass^k strict "
            "counts those trials as failed).",
        ),
    ] = False,
    rerun_customer_errors: Annotated[
        int,
        typer.Option(
            "--rerun-customer-errors",
            min=0,
            help="Run a trial again (N times at most) when the simulated customer invented a fact.",
        ),
    ] = 0,
    out: Annotated[
        Path | None,
        typer.Option("-o", "--out", help="Run folder (default runs/<timestamp>/)."),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="A PostgreSQL server for the trials' databases (postgresql://user@host/NAME: "
            "db.json imported once, each trial a TEMPLATE copy, all dropped at the end; "
            "NAME itself is not touched). Default: files of the run.",
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Go on with the run in --out: skip finished trials.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Start the run in --out again, removing its trials.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print results.json.")] = False,
    compare: Annotated[
        tuple[Path, Path] | None,
        typer.Option("--compare", help="RUN_A RUN_B: the tasks whose outcome changed."),
    ] = None,
) -> None:
    """Run the agent against a simulated customer on the τ² airline tasks; τ²'s rewards,
    pass^k, every trial a replayable scenario."""
    if compare is not None:
        raise typer.Exit(_compare(*compare, as_json=as_json))
    from airline_agent.commands.settings import settings_or_exit
    from airline_agent.evaluation.run_folder import RunFolder, RunFolderError
    from airline_agent.evaluation.tasks import TaskSetError, load_task_set
    from airline_agent.scenarios.datasets import tau2_dir

    if prompt is not None and prompt not in ("lean", "full"):
        _usage(f"--prompt must be lean or full, not {prompt!r}")
    if resume and force:
        _usage("--resume and --force do not go together")
    agent = settings_or_exit(
        model=agent_model,
        base_url=agent_base_url,
        prompt=prompt,
        approve="auto",  # the simulated customer consents in words, as in τ²
        max_tool_calls=max_tool_calls,
        # Nobody watches a trial's replies arrive: a whole reply is cheaper to read.
        stream=False,
        recover_text_tool_calls=recover_text_tool_calls or None,
    )
    if not agent.model:
        _usage("no model for the agent: --agent-model or AIRLINE_AGENT_MODEL")
    customer = agent.with_overrides(model=user_model, base_url=user_base_url)
    directory = tasks or tau2_dir()
    try:
        task_set = load_task_set(directory)
        chosen = task_set.select(_ids(task_ids))
    except TaskSetError as exc:
        _usage(str(exc))
    settings = _run_settings(agent, customer, guard, max_turns, directory, concurrency, db)
    out = out or Path("runs") / datetime.now().strftime("%Y%m%d-%H%M%S")
    try:
        folder = RunFolder.open(out, resume=resume, force=force, inputs=(directory,))
    except RunFolderError as exc:
        _usage(str(exc))
    if resume:
        _check_resumable(folder, settings)
    status = _run(
        agent,
        customer,
        guard,
        max_turns,
        chosen,
        trials,
        concurrency,
        folder,
        settings,
        task_set.directory,
        rerun_customer_errors,
        resume,
        as_json,
        db,
    )
    raise typer.Exit(status)


def _usage(message: str) -> None:
    typer.echo(f"eval: {message}", err=True)
    raise typer.Exit(2)


def _ids(text: str | None) -> list[str] | None:
    if text is None:
        return None
    ids = [part.strip() for part in text.split(",") if part.strip()]
    if not ids:
        _usage("--task-ids names no task")
    return ids


def _run_settings(
    agent: Settings,
    customer: Settings,
    guard: bool,
    max_turns: int,
    directory: Path,
    concurrency: int,
    db: str | None,
) -> dict[str, Any]:
    from airline_agent.domain.db import describe

    return {
        "agent_model": agent.model,
        "agent_base_url": agent.base_url,
        "user_model": customer.model,
        "user_base_url": customer.base_url,
        "guard": guard,
        "prompt": agent.prompt,
        "max_turns": max_turns,
        "max_tool_calls": agent.max_tool_calls,
        "recover_text_tool_calls": agent.recover_text_tool_calls,
        "now": agent.now,
        "tasks_dir": str(directory),
        "concurrency": concurrency,
        # Where the trials' databases were (no password): null for files of the run.
        "db": None if db is None else describe(db),
    }


_MUST_MATCH = (
    "agent_model",
    "user_model",
    "guard",
    "prompt",
    "max_turns",
    "max_tool_calls",
    "recover_text_tool_calls",
)


def _check_resumable(folder: Any, settings: dict[str, Any]) -> None:
    from airline_agent.evaluation.run_folder import RUN_FILE

    previous = (folder.read_json(RUN_FILE) or {}).get("settings")
    if previous is None:
        return
    differ = [
        f"{name} {previous.get(name)!r} → {settings.get(name)!r}"
        for name in _MUST_MATCH
        if previous.get(name) != settings.get(name)
    ]
    if differ:
        _usage(
            f"--resume: {folder.path} was run otherwise ({'; '.join(differ)}); "
            "give the same settings, or --force to start it again"
        )


def _run(
    agent: Settings,
    customer: Settings,
    guard: bool,
    max_turns: int,
    chosen: tuple[Any, ...],
    trials: int,
    concurrency: int,
    folder: Any,
    settings: dict[str, Any],
    tau2_directory: Path,
    rerun_customer_errors: int,
    resume: bool,
    as_json: bool,
    db: str | None,
) -> int:

    from airline_agent.agent.backends import BackendConfigError
    from airline_agent.domain.errors import DatabaseUnavailable
    from airline_agent.evaluation.progress import EvalProgress
    from airline_agent.evaluation.reward import ReferenceStates
    from airline_agent.evaluation.run_folder import RUN_FILE
    from airline_agent.evaluation.runner import run_eval
    from airline_agent.evaluation.trial import TrialSettings
    from airline_agent.redaction import Redactor
    from airline_agent.scenarios.datasets import DatasetUnavailable
    from airline_agent.stack import eval_backends, eval_databases

    redactor = Redactor.from_environment()
    try:
        databases = eval_databases(db, tau2_directory)
    except DatabaseUnavailable as exc:
        _usage(str(exc))
    try:
        backends = eval_backends(agent, customer)
    except BackendConfigError as exc:
        _usage(str(exc))
    references = ReferenceStates(tau2_directory, now=agent.now, copies=databases)
    try:
        try:
            references.pristine()  # the import of db.json, once, before any trial
        except DatasetUnavailable as exc:
            _usage(str(exc))
        except DatabaseUnavailable as exc:
            typer.echo(f"eval: {exc}", err=True)
            return 1
        previous = folder.read_json(RUN_FILE) or {}
        run_id = previous.get("run_id") or datetime.now().strftime("run-%Y%m%d-%H%M%S")
        folder.write_json(
            RUN_FILE, redactor.redact_json({**previous, "run_id": run_id, "settings": settings})
        )
        trial_settings = TrialSettings(agent, customer.model or "", guard, max_turns)
        show = EvalProgress()

        async def main() -> RunOutcome:
            _take_ctrl_c(asyncio.get_running_loop(), asyncio.current_task())
            try:
                return await run_eval(
                    chosen,
                    trials,
                    trial_settings,
                    backends,
                    references,
                    folder,
                    run_id=run_id,
                    concurrency=concurrency,
                    rerun_customer_errors=rerun_customer_errors,
                    resume=resume,
                    on_progress=show.update,
                )
            finally:
                await backends.aclose()

        try:
            outcome = asyncio.run(main())
        except KeyboardInterrupt:  # a second Ctrl-C, or one before the run took it over
            show.end()
            typer.echo(
                "eval: interrupted; the finished trials are kept (--resume goes on)", err=True
            )
            return 130
        show.end()
        _write_results(folder, outcome, chosen, trials, settings, redactor, run_id)
        results = folder.read_json("results.json")
        if as_json:
            typer.echo((folder.path / "results.json").read_text(encoding="utf-8"), nl=False)
        else:
            _print_table(results, folder.path)
        if outcome.interrupted:
            typer.echo(
                "eval: interrupted; the finished trials are kept (--resume goes on)", err=True
            )
            return 130
        return 1 if results["infra_errors"] else 0
    finally:
        try:
            references.close()  # the run's databases (on a server: dropped)
        except DatabaseUnavailable as exc:
            typer.echo(f"eval: {exc}", err=True)


def _write_results(
    folder: Any,
    outcome: RunOutcome,
    chosen: tuple[Any, ...],
    trials: int,
    settings: dict[str, Any],
    redactor: Any,
    run_id: str,
) -> None:
    from airline_agent.evaluation.customer import SYSTEM_PROMPT
    from airline_agent.evaluation.results import results_json, summary_markdown
    from airline_agent.evaluation.run_folder import RUN_FILE
    from airline_agent.evaluation.tau2_format import results_document

    wanted = {task.id for task in chosen}
    kept = {
        key: done for key, done in outcome.finished.items() if key[0] in wanted and key[1] < trials
    }
    records = [done.record for done in kept.values()]
    complete = not outcome.interrupted and len(records) == len(chosen) * trials
    results = redactor.redact_json(
        results_json(chosen, trials, records, settings=settings, complete=complete)
    )
    order = {task.id: position for position, task in enumerate(chosen)}
    simulations = [
        done.simulation
        for key, done in sorted(kept.items(), key=lambda i: (order[i[0][0]], i[0][1]))
    ]
    tau2 = results_document(
        chosen,
        simulations,
        trials=trials,
        max_turns=settings["max_turns"],
        agent_model=settings["agent_model"] or "",
        customer_model=settings["user_model"] or "",
        policy=outcome.system_prompt or "",
        customer_guidelines=SYSTEM_PROMPT,
        timestamp=datetime.now().isoformat(timespec="seconds"),
        commit=_commit(),
    )
    if outcome.system_prompt is not None:
        info = folder.read_json(RUN_FILE) or {}
        folder.write_json(RUN_FILE, {**info, "system_prompt": outcome.system_prompt})
    folder.write_json("results.json", results)
    folder.write_json("tau2_results.json", redactor.redact_json(tau2))
    folder.write_text("summary.md", redactor.redact(summary_markdown(results)))


def _commit() -> str:
    """This project's commit, for τ²'s `info.git_commit` (empty when unknown)."""
    import subprocess

    from airline_agent.project import PROJECT_ROOT as root

    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _print_table(results: dict[str, Any], folder: Path) -> None:
    strict = results["pass_hat_k_strict"]
    for k, value in results["pass_hat_k"].items():
        extra = f" (strict {strict[k]:.3f})" if results["recovered_tool_calls"] else ""
        typer.echo(f"pass^{k}  {value:.3f}{extra}")
    if not results["pass_hat_k"]:
        typer.echo("pass^k  – (no trial counted)")
    average = results["average_reward"]
    typer.echo(
        f"{results['counted_trials']} of {results['trials_run']} trials counted, average reward "
        + ("–" if average is None else f"{average:.3f}")
        + f"; {results['infra_errors']} infrastructure errors, "
        f"{results['customer_errors']} customer errors"
    )
    typer.echo(f"{'task':>4}  rewards")
    by_task: dict[str, list[str]] = {}
    for trial in results["trials"]:
        mark = (
            "infra"
            if trial["infra_error"]
            else "cust"
            if trial["customer_error"]
            else f"{trial['reward']:g}"
        )
        by_task.setdefault(trial["task_id"], []).append(mark)
    for task_id, marks in by_task.items():
        typer.echo(f"{task_id:>4}  {' '.join(marks)}")
    typer.echo(f"written to {folder}/ (results.json, tau2_results.json, summary.md, scenarios/)")


def _take_ctrl_c(loop: asyncio.AbstractEventLoop, run: asyncio.Task[RunOutcome] | None) -> None:
    """The first Ctrl-C cancels the run (the finished trials are kept), a second one stops
    at once. Taken on the loop's thread (`add_signal_handler`, as `chat` and `serve` do),
    so it counts whichever thread the signal reaches and even where the shell that started
    us made SIGINT ignored (a job started with `&`), where asyncio.run would not take it."""
    if run is None or threading.current_thread() is not threading.main_thread():
        return

    def pressed() -> None:
        loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # again: at once
        run.cancel()

    loop.add_signal_handler(signal.SIGINT, pressed)


def _compare(run_a: Path, run_b: Path, *, as_json: bool) -> int:
    import json

    from airline_agent.evaluation.results import ResultsUnreadable, compare, read_results

    try:
        before, after = read_results(run_a), read_results(run_b)
    except ResultsUnreadable as exc:
        typer.echo(f"eval --compare: {exc}", err=True)
        return 2
    changes = compare(before, after)
    if as_json:
        body = [{"task_id": c.task_id, "before": c.before, "after": c.after} for c in changes]
        typer.echo(json.dumps({"changed": body}, indent=2))
        return 0
    if not changes:
        typer.echo("no task's outcome changed")
        return 0
    typer.echo(f"{'task':>4}  {'before':>7}  {'after':>7}  (passed/counted trials)")
    for change in changes:
        typer.echo(
            f"{change.task_id:>4}  {change.describe(change.before):>7}  "
            f"{change.describe(change.after):>7}"
        )
    typer.echo(f"{len(changes)} task(s) changed")
    return 0
