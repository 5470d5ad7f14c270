"""Timing helpers shared by the benchmark parts: medians, spreads, rows beside a baseline."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    median_ms: float
    p10_ms: float
    p90_ms: float
    runs: int

    @property
    def spread(self) -> str:
        return f"{self.p10_ms:.3g}–{self.p90_ms:.3g}"


@dataclass(frozen=True)
class Row:
    """One line of the table: what we measured, the baseline measured in the same run."""

    part: str
    name: str
    ours: Timing
    baseline_name: str | None = None
    baseline: Timing | None = None
    target: str = ""  # e.g. "≤ 3× baseline"
    met: bool | None = None  # None: no target, or not decidable from this run

    @property
    def ratio(self) -> float | None:
        if self.baseline is None or self.baseline.median_ms == 0:
            return None
        return self.ours.median_ms / self.baseline.median_ms


def measure(fn: Callable[[], object], *, runs: int, warmup: int = 2) -> Timing:
    """Call `fn` `runs` times (after `warmup` calls) and summarise wall time in ms."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return timing(samples)


def timing(samples_ms: list[float]) -> Timing:
    ordered = sorted(samples_ms)
    n = len(ordered)
    return Timing(
        median_ms=statistics.median(ordered),
        p10_ms=ordered[int(0.1 * (n - 1))],
        p90_ms=ordered[int(0.9 * (n - 1))],
        runs=n,
    )
