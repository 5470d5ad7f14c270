"""The modules the TUI imports late, each in its own worker thread, loaded one thread at a
time: two threads importing SQLAlchemy at once (the library being checked, a scenario
chosen meanwhile) made one fail with "cannot import name … from partially initialized
module", and the user saw "Could not start …" or the app close on the library's error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from airline_agent.project import PROJECT_ROOT

# In a fresh interpreter (this one has every module imported already): the threads the
# app runs after its first frame, let go together — the library's check, the modal
# screens' module, a scenario chosen at once (its settings read: given, as `bench.py`
# gives them, or read by then).
RACE = """
import threading
import traceback
from pathlib import Path

from airline_agent.agent.events import TurnFinished  # as scripts/benchmarks/tui.py does
from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController, _read_playback
from airline_agent.tui.screens.main import later

controller = AgentController(Settings(db="airline.db"), library=Path(LIBRARY))
controller.quick_choices()  # the library as the first frame lists it
together = threading.Barrier(3)
failures = []


def scenario_chosen():
    together.wait()
    playback = _read_playback(
        controller.status,
        Path(LIBRARY) / "cancel-ehglp3.yaml",
        default_clock=controller.settings.now,
        breakpoints=controller.feed.breakpoints,
        tau2=None,
        api=controller.settings.api,
    )
    playback.open()
    playback.close()


def library_checked():
    together.wait()
    controller.scenario_choices()


def screens_loaded():
    together.wait()
    later()


def guarded(work):
    def run():
        try:
            work()
        except BaseException:
            failures.append(traceback.format_exc())

    return run


threads = [
    threading.Thread(target=guarded(work))
    for work in (scenario_chosen, library_checked, screens_loaded)
]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print("".join(failures) or "all loaded")
"""
RUNS = 3  # each a fresh interpreter: the race is there on the first import only (four
# runs in five failed before the doors took turns)


def test_the_threads_after_the_first_frame_import_their_modules_one_at_a_time(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AIRLINE_AGENT_"))}
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    library = tmp_path / "library"
    library.mkdir()
    scenario = PROJECT_ROOT / "data" / "scenarios" / "cancel-ehglp3.yaml"
    (library / scenario.name).write_text(scenario.read_text())
    for _ in range(RUNS):
        done = subprocess.run(
            [sys.executable, "-c", f"LIBRARY = {str(library)!r}\n{RACE}"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "all loaded", done.stdout
