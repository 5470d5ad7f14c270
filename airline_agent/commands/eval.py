"""`airline-agent eval`: the agent against a simulated customer on τ²'s airline tasks,
scored as τ²-bench scores it; `eval --compare RUN_A RUN_B` lists the tasks whose outcome
changed between two runs.

`--like tau2` (the default) runs each trial as τ²-bench's runner does, τ²'s texts read from
the τ² folder (evaluation/like_tau2.py); `--like ours` runs this project's own agent and
customer (our prompt and tool descriptions, the guard as chosen).

Exit status: 0 when every trial ran (whatever it scored); 1 when any trial ended in an
infrastructure error (a server unreachable or failing: the figures leave it out, and
--resume runs it again); 2 for bad usage (a missing or malformed task directory, an
existing run without --resume/--force, no model); 130 when interrupted (Ctrl-C: the
finished trials are kept, --resume goes on).

The options are here; what the command does is `eval_work.py`'s, loaded only when it
runs; --compare is `eval_compare.py`'s (two results files read: light enough to import
with the options).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from airline_agent.commands import eval_compare


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
            help="τ² task folder: tasks.json and db.json, and for --like tau2 τ²'s runner/ "
            "texts (AIRLINE_AGENT_TAU2_DIR, then ../shared/reference/tau2).",
        ),
    ] = None,
    like: Annotated[
        str,
        typer.Option(
            "--like",
            help="tau2: each trial as τ²-bench's runner runs it (its prompt, tools, greeting, "
            "customer, seeds and ends); ours: this project's agent and customer.",
        ),
    ] = "tau2",
    seed: Annotated[
        int | None,
        typer.Option("--seed", help="--like tau2: τ²'s --seed, whence each trial's (300)."),
    ] = None,
    max_steps: Annotated[
        int | None,
        typer.Option("--max-steps", min=1, help="--like tau2: τ²'s steps per trial (200)."),
    ] = None,
    max_errors: Annotated[
        int | None,
        typer.Option("--max-errors", min=1, help="--like tau2: τ²'s tool errors per trial (10)."),
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
    api: Annotated[
        str | None,
        typer.Option(
            "--api",
            help="The agent's wire: chat (Chat Completions, the default) or responses (the "
            "Responses API); the simulated customer speaks Chat Completions.",
        ),
    ] = None,
    guard: Annotated[
        bool,
        typer.Option(
            "--guard/--no-guard",
            help="--like ours: the policy guard (default off: τ²'s semantics; "
            "AIRLINE_AGENT_GUARD does not apply here).",
        ),
    ] = False,
    prompt: Annotated[
        str | None,
        typer.Option("--prompt", help="--like ours: the agent's system prompt, lean or full."),
    ] = None,
    max_turns: Annotated[
        int | None,
        typer.Option("--max-turns", min=1, help="--like ours: most customer messages (30)."),
    ] = None,
    max_tool_calls: Annotated[
        int | None,
        typer.Option(
            "--max-tool-calls",
            min=1,
            help="--like ours: the agent's tool calls per turn (AIRLINE_AGENT_MAX_TOOL_CALLS, "
            "default 8).",
        ),
    ] = None,
    recover_text_tool_calls: Annotated[
        bool,
        typer.Option(
            "--recover-text-tool-calls",
            help="--like ours: make tool calls the agent model wrote as text (counted; "
            "pass^k strict counts those trials as failed).",
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
    if compare is not None:  # two results files read, nothing of a run loaded
        raise typer.Exit(eval_compare.compare(*compare, as_json=as_json))
    # The door: the evaluation, the agent and the database load only when eval runs.
    from airline_agent.commands import eval_work

    eval_work.evaluate(
        tasks=tasks,
        like=like,
        seed=seed,
        max_steps=max_steps,
        max_errors=max_errors,
        task_ids=task_ids,
        trials=trials,
        concurrency=concurrency,
        agent_model=agent_model,
        agent_base_url=agent_base_url,
        user_model=user_model,
        user_base_url=user_base_url,
        api=api,
        guard=guard,
        prompt=prompt,
        max_turns=max_turns,
        max_tool_calls=max_tool_calls,
        recover_text_tool_calls=recover_text_tool_calls,
        rerun_customer_errors=rerun_customer_errors,
        out=out,
        db=db,
        resume=resume,
        force=force,
        as_json=as_json,
    )
