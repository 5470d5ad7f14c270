#!/usr/bin/env python
"""Speed targets, each measured beside a baseline in the same run.

    .venv/bin/python scripts/bench.py            # every part
    .venv/bin/python scripts/bench.py writes     # one part: domain writes loop replay eval
                                                 # tui prompt mcp postgres debugger
                                                 # tui prompt mcp startup
    .venv/bin/python scripts/bench.py --quick    # fewer repetitions, smaller scales

Prints a table: median (p10–p90) of ours and of the baseline, the ratio, the target and
whether this run met it. Figures are wall-clock on this machine; the spread says how
noisy they were.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmarks.common import Row

PARTS = (
    "domain",
    "writes",
    "loop",
    "replay",
    "eval",
    "tui",
    "prompt",
    "mcp",
    "postgres",
    "debugger",
    "startup",
)


def print_table(rows: list[Row]) -> None:
    header = (
        f"{'part':7} {'measure':46} {'ours ms (p10–p90)':>24} {'baseline':>30} {'ratio':>7}  target"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        ours = f"{row.ours.median_ms:.3g} ({row.ours.spread})"
        base = f"{row.baseline_name}: {row.baseline.median_ms:.3g}" if row.baseline else "—"
        ratio = f"{row.ratio:.2f}×" if row.ratio is not None else "—"
        verdict = {True: "met", False: "MISSED", None: ""}[row.met]
        print(
            f"{row.part:7} {row.name:46} {ours:>24} {base:>30} {ratio:>7}  {row.target} {verdict}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", metavar="PART", help=f"any of {', '.join(PARTS)}")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and scales")
    args = parser.parse_args()
    unknown = [part for part in args.parts if part not in PARTS]
    if unknown:
        parser.error(f"unknown part {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    rows: list[Row] = []
    for part in args.parts or PARTS:
        try:
            module = importlib.import_module(f"benchmarks.{part}")
        except ModuleNotFoundError as exc:
            print(f"{part}: skipped ({exc})", file=sys.stderr)
            continue
        part_rows = module.run(quick=args.quick)
        rows.extend(part_rows)
        print_table(part_rows)
        print()
    if len(args.parts or PARTS) > 1:
        print("All parts:")
        print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
