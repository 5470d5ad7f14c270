"""pass^k: the chance that k trials of a task, drawn from its n, all succeed.

Per task C(c, k) / C(n, k) over its n counted trials with c successes, averaged over the
tasks (as τ²-bench's `agent_metrics` computes it, from the paper "τ-bench"). Trials left
out (infrastructure errors, customer errors) are not counted; k runs from 1 to the
fewest counted trials any task has, as in τ², so every task takes part in every k.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb


def pass_hat_k(trials: int, successes: int, k: int) -> float:
    if not 0 <= successes <= trials or not 1 <= k <= trials:
        raise ValueError(f"pass^{k} of {successes} successes in {trials} trials")
    return comb(successes, k) / comb(trials, k)


def pass_hat_ks(outcomes: Mapping[str, Sequence[bool]], most: int) -> dict[int, float]:
    """pass^k for k = 1 .. min(`most`, the fewest counted trials of a task), from each
    task's counted outcomes (True: reward 1); tasks with none counted take no part."""
    counted = {task: list(results) for task, results in outcomes.items() if results}
    if not counted:
        return {}
    top = min(most, *(len(results) for results in counted.values()))
    return {
        k: sum(pass_hat_k(len(r), sum(r), k) for r in counted.values()) / len(counted)
        for k in range(1, top + 1)
    }
