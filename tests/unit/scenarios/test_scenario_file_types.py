"""A scenario "file" that is not a regular file (a FIFO, a device) is refused in one plain
line before it is opened: opening a FIFO to read waits for a writer forever, so `replay
f.yaml`, `replay DIR` and the TUI's library hung with no output."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from airline_agent.scenarios.library import library_dir
from airline_agent.scenarios.loader import ScenarioLoadError, load_all, load_scenario
from tests.support.cli import run_cli

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
Result = TypeVar("Result")
DEADLINE = 60  # seconds: generous; the answer comes at once, a hang never does


def within_deadline(fifo: Path, work: Callable[[], Result]) -> Result:
    """`work()`'s result; fails if it is still waiting at the deadline (and then lets the
    stuck reader go by opening the FIFO for writing)."""
    outcome: list[Result] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # handed to the test below
            failure.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLINE)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY))  # the reader opens, reads nothing, ends
        thread.join(DEADLINE)
        pytest.fail(f"still waiting on the FIFO {fifo} after {DEADLINE} s")
    if failure:
        raise failure[0]
    return outcome[0]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A library of one good scenario and one FIFO named like a scenario."""
    library = tmp_path / "library"
    library.mkdir()
    good = library_dir() / "cancel-ehglp3.yaml"
    (library / good.name).write_text(good.read_text())
    os.mkfifo(library / "waiting.yaml")
    return library


def test_a_fifo_is_refused_before_it_is_opened(folder: Path) -> None:
    fifo = folder / "waiting.yaml"

    def load() -> str:
        with pytest.raises(ScenarioLoadError) as refused:
            load_scenario(fifo)
        return str(refused.value)

    assert within_deadline(fifo, load) == f"{fifo}: is a FIFO (named pipe), not a regular file"


def test_a_folder_holding_a_fifo_loads_its_other_files(folder: Path) -> None:
    loaded = within_deadline(folder / "waiting.yaml", lambda: load_all([folder]))
    assert [type(item).__name__ for item in loaded] == ["Scenario", "ScenarioLoadError"]


def test_replay_of_a_folder_holding_a_fifo_says_so_and_goes_on(folder: Path) -> None:
    def replay() -> tuple[int, str]:
        result = run_cli("replay", str(folder))
        return result.returncode, result.stdout

    status, output = within_deadline(folder / "waiting.yaml", replay)
    assert status == 1
    [row] = [line for line in output.splitlines() if line.startswith("waiting ")]
    assert "invalid" in row and "is a FIFO (named pipe), not a regular file" in row
    assert "1 of 2 passed" in output


def test_the_tui_library_lists_a_fifo_as_a_problem(folder: Path) -> None:
    from airline_agent.tui.library import quick_choices, scenario_choices

    fifo = folder / "waiting.yaml"
    within_deadline(fifo, lambda: quick_choices(folder, {}))
    choices = within_deadline(fifo, lambda: scenario_choices(folder, {}))
    [problem] = [choice for choice in choices if choice.problem]
    assert problem.name == "waiting" and "is a FIFO (named pipe)" in problem.problem
