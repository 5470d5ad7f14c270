"""The run: every (task, trial) pair, N at once, each trial on its own database copy.

A trial's files are written as soon as it finishes (`trials/…json`, `scenarios/…yaml`),
so Ctrl-C (which cancels the trials under way: their copies are discarded, nothing of
them is kept) loses no finished trial, and `--resume` skips them. A trial that ended in
an infrastructure error is run again by --resume (the server may be up now). A trial
whose customer invented a fact is run again up to `rerun_customer_errors` times; the
last attempt is kept, and says which attempt it was.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from airline_agent.agent.usage import add_cost
from airline_agent.evaluation.reward import ReferenceStates
from airline_agent.evaluation.run_folder import RUN_FILE, SCENARIOS, TRIALS, RunFolder
from airline_agent.evaluation.tasks import EvalTask
from airline_agent.evaluation.tau2_format import Simulation, simulation
from airline_agent.evaluation.trial import (
    TrialResult,
    TrialRun,
    TrialSettings,
    off_loop,
    run_trial,
    scenario_name,
)

if TYPE_CHECKING:
    from airline_agent.stack import EvalBackends


@dataclass
class Finished:
    """A finished trial as the run folder keeps it."""

    record: TrialResult
    simulation: Simulation


@dataclass
class RunState:
    """What the progress line shows, updated as trials finish."""

    total: int
    done: int = 0
    resumed: int = 0
    passed: int = 0
    infra_errors: int = 0
    customer_errors: int = 0
    tokens: int = 0
    cost: float | None = 0.0
    running: int = 0

    def add(self, record: TrialResult) -> None:
        self.done += 1
        self.passed += record.success and record.counted
        self.infra_errors += record.infra_error
        self.customer_errors += record.customer_error
        self.tokens += record.agent_tokens.get("total", 0) + record.user_tokens.get("total", 0)
        self.cost = add_cost(self.cost, record.cost.get("total"))


@dataclass
class RunOutcome:
    finished: dict[tuple[str, int], Finished] = field(default_factory=dict)
    interrupted: bool = False
    system_prompt: str | None = None


def trial_file(task_id: str, trial: int) -> str:
    return f"{TRIALS}/{scenario_name(task_id, trial)}.json"


def finished_trials(folder: RunFolder) -> dict[tuple[str, int], Finished]:
    """The trials a previous run of this folder finished (a torn file is run again)."""
    found: dict[tuple[str, int], Finished] = {}
    for relative in folder.trial_files():
        data = folder.read_json(relative)
        if not isinstance(data, dict) or "record" not in data or "simulation" not in data:
            continue
        try:
            record = TrialResult.from_json(data["record"])
        except TypeError:
            continue
        found[(record.task_id, record.trial)] = Finished(record, data["simulation"])
    return found


async def run_eval(
    tasks: tuple[EvalTask, ...],
    trials: int,
    settings: TrialSettings,
    backends: EvalBackends,
    references: ReferenceStates,
    folder: RunFolder,
    *,
    run_id: str,
    concurrency: int = 1,
    rerun_customer_errors: int = 0,
    resume: bool = False,
    on_progress: Callable[[RunState], None] = lambda state: None,
) -> RunOutcome:
    # A thread for each trial under way and a few more: trials wait there on the disk (their
    # databases, their files) and on tool calls, so as not to hold up the others' requests.
    asyncio.get_running_loop().set_default_executor(
        ThreadPoolExecutor(max_workers=concurrency + 4, thread_name_prefix="eval")
    )
    outcome = RunOutcome()
    if resume:
        kept = finished_trials(folder)
        outcome.finished = {key: done for key, done in kept.items() if not done.record.infra_error}
    state = RunState(total=len(tasks) * trials)
    for done in outcome.finished.values():
        state.add(done.record)
    state.resumed = state.done
    run_info = folder.read_json(RUN_FILE) or {}
    outcome.system_prompt = run_info.get("system_prompt")
    pending = [
        (task, trial)
        for task in tasks
        for trial in range(trials)
        if (task.id, trial) not in outcome.finished
    ]
    on_progress(state)
    queue: asyncio.Queue[tuple[EvalTask, int]] = asyncio.Queue()
    for item in pending:
        queue.put_nowait(item)

    async def worker() -> None:
        while not queue.empty():
            task, trial = queue.get_nowait()
            state.running += 1
            on_progress(state)
            try:
                run = await _run_with_reruns(
                    task, trial, settings, backends, references, rerun_customer_errors
                )
            finally:
                state.running -= 1
            done = await off_loop(partial(_kept, folder, task, run, run_id, outcome))
            outcome.finished[(task.id, trial)] = done
            state.add(run.record)
            on_progress(state)

    workers = [asyncio.create_task(worker()) for _ in range(max(1, min(concurrency, len(pending))))]
    try:
        await asyncio.gather(*workers)
    except asyncio.CancelledError:
        outcome.interrupted = True
        for running in workers:
            running.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    return outcome


async def _run_with_reruns(
    task: EvalTask,
    trial: int,
    settings: TrialSettings,
    backends: EvalBackends,
    references: ReferenceStates,
    reruns: int,
) -> TrialRun:
    attempt = 1
    while True:
        run = await run_trial(task, trial, settings, backends, references, attempt=attempt)
        if not run.record.customer_error or attempt > reruns:
            return run
        attempt += 1


def _kept(
    folder: RunFolder, task: EvalTask, run: TrialRun, run_id: str, outcome: RunOutcome
) -> Finished:
    """The trial's files, written now: a later Ctrl-C cannot lose it."""
    done = Finished(run.record, simulation(task, run, run_id))
    name = scenario_name(run.record.task_id, run.record.trial)
    if run.scenario_yaml is not None:
        folder.write_text(f"{SCENARIOS}/{name}.yaml", run.scenario_yaml)
    folder.write_json(
        trial_file(run.record.task_id, run.record.trial),
        {"record": run.record.to_json(), "simulation": done.simulation},
        indent=None,  # read by --resume only: results.json and tau2_results.json are indented
    )
    if outcome.system_prompt is None and run.system_prompt:  # "": no agent ran
        outcome.system_prompt = run.system_prompt
    return done
