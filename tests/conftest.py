"""Shared fixtures. Reference data lives beside the project in ../shared/reference."""

from __future__ import annotations

import gc
import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Fixtures for every test, wherever its file lives: world_db (a small airline, fresh per
# test, on SQLite or on PostgreSQL by `dialect`), chat_server, db (the sample),
# tau2_reference; dialect and postgres_server for the tests that run on PostgreSQL too.
pytest_plugins = [
    "tests.support.postgres_fixtures",
    "tests.support.toolbox_fixtures",
    "tests.support.fixtures",
]

# A test process holds far more than a user's process ever does: every test module, the
# τ² reference data, and Textual apps by the hundred, one after another. At Python's own
# thresholds its collector ran some 20,000 times a worker, about 30 s of each worker's CPU
# (25 s of it walking the whole heap), a fifth of the run (gc.callbacks, -n 3); the same
# cycles are collected, after more allocations (tests/tui at -n 2: 58 s of collections
# before, 15 s after). The commands keep Python's thresholds (the TUI defers its full
# collections itself: tui/collector.py).
gc.set_threshold(50_000, 20, 100)

# No timed assertions, even in the property tests: Hypothesis's own limits (200 ms an
# example, and data that is slow to make) fail a test on a busy machine, as one did under
# mutmut (356 ms); the examples and what each asserts are unchanged.
settings.register_profile(
    "airline-agent", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("airline-agent")

ROOT = Path(__file__).resolve().parent.parent
TAU2_DIR = Path(os.environ.get("AIRLINE_AGENT_TAU2_DIR", ROOT.parent / "shared/reference/tau2"))
LLAMA_DIR = Path(
    os.environ.get("AIRLINE_AGENT_LLAMA_DIR", ROOT.parent / "shared/reference/llama-server")
)


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's keys, model or database, or a `.env` file."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "AIRLINE_AGENT_")) and name not in (
            "AIRLINE_AGENT_TAU2_DIR",
            "AIRLINE_AGENT_LLAMA_DIR",
            "AIRLINE_AGENT_SLOW",
        ):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def tau2_files() -> tuple[Path, Path]:
    """The τ² db.json and tasks.json, or skip the test with the reason."""
    db, tasks = TAU2_DIR / "db.json", TAU2_DIR / "tasks.json"
    if not (db.is_file() and tasks.is_file()):
        pytest.skip(
            f"τ²-bench reference data not found in {TAU2_DIR}: set AIRLINE_AGENT_TAU2_DIR "
            "(docs/eval.md, The data)"
        )
    return db, tasks


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Why tests were skipped, one line per reason with its count, in every run (`-q`
    too): a plain clone skips the tests that need ../shared/reference, and says so."""
    reasons: Counter[str] = Counter()
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reasons[reason.removeprefix("Skipped: ")] += 1
    if not reasons:
        return
    total = sum(reasons.values())
    terminalreporter.write_sep("-", f"{total} skipped, and why")
    for reason, count in reasons.most_common():
        terminalreporter.write_line(f"{count:5}  {reason}")
