"""The domain part: seeding (domain_seed) and read tools (domain_reads)."""

from __future__ import annotations

import importlib

from benchmarks.common import Row


def run(quick: bool) -> list[Row]:
    rows: list[Row] = []
    for name in ("domain_seed", "domain_reads"):
        rows.extend(importlib.import_module(f"benchmarks.{name}").run(quick=quick))
    return rows
