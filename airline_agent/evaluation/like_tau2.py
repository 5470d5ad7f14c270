"""`eval --like tau2`: each trial as τ²-bench's runner (`tau2 run`, at a2c0247) runs it, so
that the requests on the wire are its requests and a pass^k stands beside its leaderboard.

- The agent: τ²'s system message (its instructions and its policy) and its 14 tool schemas,
  sent as they are (our tools run the calls); τ²'s greeting first, as an assistant message;
  `temperature` 0, `tool_choice` auto and the trial's seed; no guard, no per-turn limit.
- The customer: τ²'s system message for the task (its simulation guidelines and the task's
  scenario), answering τ²'s greeting (the conversation seen from its side, the agent's
  messages as `user`), `temperature` 0 and the same seed.
- The seed of trial k is τ²'s: `random.seed(--seed)`, then one `randint(0, 1000000)` per
  trial (τ²'s `runner/batch.py`), the same for every task; a re-run after a customer error
  adds 1000 per attempt, as τ²'s re-runs after a hallucination do.
- The end: τ²'s orchestrator counts a step per message (the customer's, the agent's, and
  the tool results of one agent message together) and a tool error per failed call, and
  ends the call at `max_steps` steps or `max_errors` errors (checked after every step but
  the one that sends calls to the tools), or when the customer writes a stop signal. An
  agent's transfer does not end it: τ²'s customer answers it with ###TRANSFER###.

τ²'s texts are read at run time from the τ² folder (`Tau2Runner.read`): this project does
not contain them. `scripts/tau2_texts.py` writes them from an installed τ²-bench.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from airline_agent.agent.prompt import (
    TAU2_AGENT_PROMPT,
    TAU2_AGENT_TOOLS,
    AgentTexts,
    AgentTextsUnreadable,
    read_tau2_agent,
)

# The one definition of the choice (`eval --like`).
Like = Literal["tau2", "ours"]
LIKES: tuple[Like, ...] = get_args(Like)

TAU2_USER_PROMPTS = "runner/user_system_prompts.json"
# τ²'s global simulation guidelines as a file of their own (scripts/tau2_texts.py writes
# it): only for tau2_results.json's `info`; without it they are read off the prompts.
TAU2_USER_GUIDELINES = "runner/user_simulation_guidelines.md"
RUNNER_FILES = (TAU2_AGENT_PROMPT, TAU2_AGENT_TOOLS, TAU2_USER_PROMPTS)
HOW_TO_GET = (
    "write them with `python scripts/tau2_texts.py {folder}` where τ²-bench is installed "
    "(docs/eval-like-tau2.md), or run `eval --like ours`"
)

# τ²'s defaults (its config.py), and what its info says of its agent and customer.
DEFAULT_SEED = 300
DEFAULT_MAX_STEPS = 200
DEFAULT_MAX_ERRORS = 10
TEMPERATURE = 0.0
AGENT_IMPLEMENTATION = "llm_agent"
USER_IMPLEMENTATION = "user_simulator"
RERUN_SEED_STEP = 1000  # τ²'s seed for a re-run after a hallucination: seed + 1000 × retries


class RunnerTextsMissing(Exception):
    """τ²'s runner texts cannot be had from the folder; one line says what and how to get
    them."""


@dataclass(frozen=True)
class Tau2Runner:
    """τ²'s texts for one run, as read from the τ² folder."""

    agent: AgentTexts
    user_prompts: dict[str, str]  # task id -> the customer's system message
    guidelines: str  # τ²'s global user simulation guidelines (for `info`)
    policy: str  # τ²'s policy (for `info`): policy.md, else the agent's system message

    @classmethod
    def read(
        cls, folder: Path, task_ids: tuple[str, ...], known_tools: frozenset[str]
    ) -> Tau2Runner:
        """Raises RunnerTextsMissing, in one line."""
        missing = [name for name in RUNNER_FILES if not (folder / name).is_file()]
        if missing:
            raise RunnerTextsMissing(
                f"--like tau2 needs τ²'s own texts, and {folder} lacks {', '.join(missing)}: "
                + HOW_TO_GET.format(folder=folder)
            )
        try:
            agent = read_tau2_agent(folder, known_tools)
        except AgentTextsUnreadable as exc:
            raise RunnerTextsMissing(f"--like tau2: {exc}") from None
        prompts_file = folder / TAU2_USER_PROMPTS
        try:
            prompts = json.loads(prompts_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise RunnerTextsMissing(
                f"--like tau2: {prompts_file}: cannot be read ({exc})"
            ) from None
        if not isinstance(prompts, dict) or not all(
            isinstance(text, str) for text in prompts.values()
        ):
            raise RunnerTextsMissing(
                f"--like tau2: {prompts_file}: not an object of task id → system message"
            )
        lacking = [task_id for task_id in task_ids if task_id not in prompts]
        if lacking:
            raise RunnerTextsMissing(
                f"--like tau2: {prompts_file} has no customer for task "
                f"{', '.join(lacking)}: " + HOW_TO_GET.format(folder=folder)
            )
        return cls(agent, prompts, _guidelines(folder, prompts), _policy(folder, agent))


def _guidelines(folder: Path, prompts: dict[str, str]) -> str:
    """τ²'s guidelines as its `info` gives them: their own file, else what every prompt
    says before the task's `<scenario>`."""
    try:
        return (folder / TAU2_USER_GUIDELINES).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    heads = {text.partition("<scenario>")[0] for text in prompts.values()}
    return heads.pop().rstrip("\n") + "\n" if len(heads) == 1 else ""


def _policy(folder: Path, agent: AgentTexts) -> str:
    try:
        return (folder / "policy.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return agent.system_prompt


def trial_seeds(seed: int, trials: int) -> tuple[int, ...]:
    """The seed of each trial, as τ²'s runner derives them from its `--seed`."""
    draw = random.Random(seed)
    return tuple(draw.randint(0, 1_000_000) for _ in range(trials))


@dataclass(frozen=True)
class Tau2Setting:
    """What every trial of a `--like tau2` run shares."""

    runner: Tau2Runner
    seed: int  # the run's --seed
    seeds: tuple[int, ...]  # each trial's
    max_steps: int = DEFAULT_MAX_STEPS
    max_errors: int = DEFAULT_MAX_ERRORS

    @classmethod
    def of(
        cls, runner: Tau2Runner, seed: int, trials: int, max_steps: int, max_errors: int
    ) -> Tau2Setting:
        return cls(runner, seed, trial_seeds(seed, trials), max_steps, max_errors)

    def trial_seed(self, trial: int, attempt: int = 1) -> int:
        return self.seeds[trial] + RERUN_SEED_STEP * (attempt - 1)


Ending = Literal["max_steps", "too_many_errors"]


@dataclass
class StepCount:
    """τ²'s orchestrator's count of one call: its steps and its tool errors."""

    max_steps: int
    max_errors: int
    steps: int = 0
    errors: int = 0

    def step(self, *, errors: int = 0, to_tools: bool = False) -> Ending | None:
        """One step (`errors`: failed calls among the tool results it brought); how it
        ends the call, if it does. A step that sends calls to the tools is not checked."""
        self.steps += 1
        self.errors += errors
        if to_tools:
            return None
        # τ² sets both, in this order: too many errors wins over the last step.
        if self.errors >= self.max_errors:
            return "too_many_errors"
        if self.steps >= self.max_steps:
            return "max_steps"
        return None
