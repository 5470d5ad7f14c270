"""A run's private copy of a dataset leaves no file open behind it: each replayed scenario
and each eval trial takes one, so one left open per copy made a long `eval` (50 tasks ×
20 trials) or a `replay` of a large folder fail with "Too many open files", and kept the
disk space of every deleted copy until the process ended."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from airline_agent.scenarios import datasets
from airline_agent.scenarios.library import library_dir
from airline_agent.scenarios.loader import load_library
from airline_agent.scenarios.runner import replay_scenario

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="counts open files in /proc/self/fd"
)


def _open_files() -> list[str]:
    found = []
    for descriptor in os.listdir("/proc/self/fd"):
        try:
            found.append(os.readlink(f"/proc/self/fd/{descriptor}"))
        except OSError:  # the descriptor listdir itself held
            continue
    return found


def test_copies_made_and_discarded_leave_no_file_open() -> None:
    before = _open_files()
    for number in range(5):
        copy, _ = datasets.fresh_copy("sample", f"copy-{number}")
        datasets.discard(copy)
        assert not Path(copy).exists()
    assert _open_files() == before


def test_replayed_scenarios_leave_no_file_open() -> None:
    scenarios = list(load_library(library_dir()))[:3]
    before = _open_files()
    for scenario in scenarios:
        assert replay_scenario(scenario, keep_events=False).status == "passed"
    assert _open_files() == before
