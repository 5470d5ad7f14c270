"""What `airline-agent eval` does (its options are `eval.py`'s): the tasks and the τ²
runner's texts read, the run folder opened, the trials run and scored, the results
written and printed. (`eval --compare` is `eval_compare.py`'s.)
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import typer

from airline_agent.agent.backends import BackendConfigError
from airline_agent.agent.prefix import token_counter
from airline_agent.choices import APIS
from airline_agent.commands.settings import settings_or_exit
from airline_agent.config import Settings
from airline_agent.domain.database_urls import passwords_in
from airline_agent.domain.db import describe
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.evaluation.like_tau2 import (
    DEFAULT_MAX_ERRORS,
    DEFAULT_MAX_STEPS,
    DEFAULT_SEED,
    LIKES,
    TEMPERATURE,
    RunnerTextsMissing,
    Tau2Runner,
    Tau2Setting,
)
from airline_agent.evaluation.progress import EvalProgress
from airline_agent.evaluation.results import (
    results_json,
    summary_markdown,
)
from airline_agent.evaluation.reward import ReferenceStates
from airline_agent.evaluation.run_folder import RUN_FILE, RunFolder, RunFolderError
from airline_agent.evaluation.runner import RunOutcome, run_eval
from airline_agent.evaluation.tasks import EvalTask, TaskSetError, load_task_set
from airline_agent.evaluation.tau2_format import results_document, run_info
from airline_agent.evaluation.trial import TrialSettings
from airline_agent.project import PROJECT_ROOT
from airline_agent.redaction import Redactor, url_login, url_password
from airline_agent.scenarios.datasets import DatasetUnavailable, tau2_dir
from airline_agent.stack import eval_backends, eval_databases
from airline_agent.terminal_text import escape_controls
from airline_agent.tools.toolbox import tool_names

DEFAULT_MAX_TURNS = 30  # customer messages per trial, --like ours (eval.py's help says so)


def evaluate(
    *,
    tasks: Path | None,
    like: str,
    seed: int | None,
    max_steps: int | None,
    max_errors: int | None,
    task_ids: str | None,
    trials: int,
    concurrency: int,
    agent_model: str | None,
    agent_base_url: str | None,
    user_model: str | None,
    user_base_url: str | None,
    api: str | None,
    guard: bool,
    prompt: str | None,
    max_turns: int | None,
    max_tool_calls: int | None,
    recover_text_tool_calls: bool,
    rerun_customer_errors: int,
    out: Path | None,
    db: str | None,
    resume: bool,
    force: bool,
    as_json: bool,
) -> None:
    """Run the agent against a simulated customer on the τ² airline tasks; exits with the
    run's status (the module's docstring in eval.py)."""
    if like not in LIKES:
        _usage(f"--like must be {' or '.join(LIKES)}, not {like!r}")
    if prompt is not None and prompt not in ("lean", "full"):
        _usage(f"--prompt must be lean or full, not {prompt!r}")
    if resume and force:
        _usage("--resume and --force do not go together")
    _check_like(
        like,
        ours={
            "--guard": guard,
            "--prompt": prompt is not None,
            "--max-turns": max_turns is not None,
            "--max-tool-calls": max_tool_calls is not None,
            "--recover-text-tool-calls": recover_text_tool_calls,
            # τ²'s runner speaks Chat Completions (a wire that is none is said so below).
            f"--api {api}": api in APIS and api != "chat",
        },
        tau2={
            "--seed": seed is not None,
            "--max-steps": max_steps is not None,
            "--max-errors": max_errors is not None,
        },
    )
    agent = settings_or_exit(
        model=agent_model,
        base_url=agent_base_url,
        api="chat" if like == "tau2" and api in (None, *APIS) else api,
        prompt=prompt,
        approve="auto",  # the simulated customer consents in words, as in τ²
        max_tool_calls=max_tool_calls,
        # Nobody watches a trial's replies arrive: a whole reply is cheaper to read.
        stream=False,
        recover_text_tool_calls=recover_text_tool_calls or None,
    )
    if not agent.model:
        _usage("no model for the agent: --agent-model or AIRLINE_AGENT_MODEL")
    # The simulated customer speaks Chat Completions, whatever the agent's wire.
    customer = agent.with_overrides(model=user_model, base_url=user_base_url, api="chat")
    directory = tasks or tau2_dir()
    try:
        task_set = load_task_set(directory)
        chosen = task_set.select(_ids(task_ids))
    except TaskSetError as exc:
        _usage(str(exc))
    tau2: Tau2Setting | None = None
    if like == "tau2":
        try:
            runner = Tau2Runner.read(
                directory, tuple(t.id for t in chosen), frozenset(tool_names())
            )
        except RunnerTextsMissing as exc:
            _usage(str(exc))
        tau2 = Tau2Setting.of(
            runner,
            DEFAULT_SEED if seed is None else seed,
            trials,
            max_steps or DEFAULT_MAX_STEPS,
            max_errors or DEFAULT_MAX_ERRORS,
        )
    max_turns = max_turns or DEFAULT_MAX_TURNS
    settings = _run_settings(agent, customer, guard, max_turns, directory, concurrency, db, tau2)
    out = out or Path("runs") / datetime.now().strftime("%Y%m%d-%H%M%S")
    try:
        folder = RunFolder.open(
            out,
            resume=resume,
            force=force,
            inputs=(directory,),
            redactor=_redactor(agent, customer, db),
        )
    except RunFolderError as exc:
        _usage(str(exc))
    if resume:
        _check_resumable(folder, settings)
    status = _run(
        agent,
        customer,
        guard,
        max_turns,
        tau2,
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


def _redactor(agent: Settings, customer: Settings, db: str | None) -> Redactor:
    """What the run's files and messages must not hold: the API key and the passwords of
    both servers (each also as HTTP Basic sends it) and of the database server."""
    key = agent.api_key.get_secret_value() if agent.api_key else None
    servers = (agent.base_url, customer.base_url)
    return Redactor.of(
        key,
        *(url_password(url) for url in servers),
        *passwords_in(db or ""),
        logins=[url_login(url) for url in servers],
    )


def _usage(message: str) -> None:
    typer.echo(f"eval: {message}", err=True)
    raise typer.Exit(2)


def _check_like(like: str, *, ours: dict[str, bool], tau2: dict[str, bool]) -> None:
    """A flag of the other setting is refused, in one line: it would not do what it says."""
    other = ours if like == "tau2" else tau2
    given = [flag for flag, present in other.items() if present]
    if given:
        owner = "ours" if like == "tau2" else "tau2"
        _usage(
            f"{', '.join(given)} belong{'s' * (len(given) == 1)} to --like {owner}; "
            f"--like {like} runs {'as τ²-bench runs' if like == 'tau2' else 'our own agent'}"
        )


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
    tau2: Tau2Setting | None,
) -> dict[str, Any]:
    common = {
        "agent_model": agent.model,
        "agent_base_url": agent.base_url,
        "api": agent.api,  # the agent's wire (the customer's is Chat Completions)
        "user_model": customer.model,
        "user_base_url": customer.base_url,
        "now": agent.now,
        "tasks_dir": str(directory),
        "concurrency": concurrency,
        # Where the trials' databases were (no password): null for files of the run.
        "db": None if db is None else describe(db),
    }
    if tau2 is None:
        return {
            "like": "ours",
            **common,
            "guard": guard,
            "prompt": agent.prompt,
            "max_turns": max_turns,
            "max_tool_calls": agent.max_tool_calls,
            "recover_text_tool_calls": agent.recover_text_tool_calls,
            "tool_results": "ours",  # search_direct_flight gives the searched date
        }
    return {
        "like": "tau2",
        **common,
        "guard": False,
        "prompt": None,
        "max_turns": None,
        "max_tool_calls": None,
        "recover_text_tool_calls": False,
        "tool_results": "tau2",  # search_direct_flight gives "date": null, as τ²'s
        "seed": tau2.seed,
        "trial_seeds": list(tau2.seeds),
        "max_steps": tau2.max_steps,
        "max_errors": tau2.max_errors,
        "temperature": TEMPERATURE,
    }


_MUST_MATCH = (
    "like",
    "agent_model",
    "user_model",
    "guard",
    "prompt",
    "max_turns",
    "max_tool_calls",
    "recover_text_tool_calls",
    "seed",
    "max_steps",
    "max_errors",
)


def _check_resumable(folder: RunFolder, settings: dict[str, Any]) -> None:
    previous = (folder.read_json(RUN_FILE) or {}).get("settings")
    if previous is None:
        return
    previous = {"like": "ours", **previous}  # a run from before --like was ours
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
    tau2: Tau2Setting | None,
    chosen: tuple[EvalTask, ...],
    trials: int,
    concurrency: int,
    folder: RunFolder,
    settings: dict[str, Any],
    tau2_directory: Path,
    rerun_customer_errors: int,
    resume: bool,
    as_json: bool,
    db: str | None,
) -> int:

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
        # The tokenizer every session counts its prefix with, loaded once before any trial:
        # loaded by the first trial's session, it held every trial under way meanwhile.
        token_counter()
        previous = folder.read_json(RUN_FILE) or {}
        run_id = previous.get("run_id") or datetime.now().strftime("run-%Y%m%d-%H%M%S")
        folder.write_json(RUN_FILE, {**previous, "run_id": run_id, "settings": settings})
        trial_settings = TrialSettings(
            agent, customer.model or "", guard, max_turns, tau2, redactor=folder.redactor
        )
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
        _write_results(folder, outcome, chosen, trials, settings, run_id, tau2)
        results = folder.read_json("results.json")  # as written: redacted
        assert isinstance(results, dict)  # written just above
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
    folder: RunFolder,
    outcome: RunOutcome,
    chosen: tuple[EvalTask, ...],
    trials: int,
    settings: dict[str, Any],
    run_id: str,
    tau2: Tau2Setting | None,
) -> None:
    """results.json, tau2_results.json and summary.md (the folder redacts each)."""
    wanted = {task.id for task in chosen}
    kept = {
        key: done for key, done in outcome.finished.items() if key[0] in wanted and key[1] < trials
    }
    records = [done.record for done in kept.values()]
    complete = not outcome.interrupted and len(records) == len(chosen) * trials
    results = results_json(chosen, trials, records, settings=settings, complete=complete)
    order = {task.id: position for position, task in enumerate(chosen)}
    simulations = [
        done.simulation
        for key, done in sorted(kept.items(), key=lambda i: (order[i[0][0]], i[0][1]))
    ]
    info = run_info(
        tau2,
        trials=trials,
        max_turns=settings["max_turns"],
        agent_model=settings["agent_model"] or "",
        customer_model=settings["user_model"] or "",
        system_prompt=outcome.system_prompt or "",
        commit=_commit(),
    )
    document = results_document(
        chosen, simulations, info, timestamp=datetime.now().isoformat(timespec="seconds")
    )
    if outcome.system_prompt is not None:
        run = folder.read_json(RUN_FILE) or {}
        folder.write_json(RUN_FILE, {**run, "system_prompt": outcome.system_prompt})
    folder.write_json("results.json", results)
    folder.write_json("tau2_results.json", document)
    folder.write_text("summary.md", summary_markdown(results))


def _commit() -> str:
    """This project's commit, for τ²'s `info.git_commit` (empty when unknown)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(PROJECT_ROOT), "rev-parse", "HEAD"],
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
        typer.echo(f"{escape_controls(task_id):>4}  {' '.join(marks)}")
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
