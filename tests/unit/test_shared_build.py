"""tests/support/shared_build.py: a file built once per test run, however many pytest-xdist
workers ask for it at the same moment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

WORKERS = 4

# One worker: says it has arrived, then asks for the file. Whoever builds it waits until
# every worker has arrived, so all of them ask while the build is under way.
WORKER = """
import os, sys, time
from pathlib import Path
from tests.support.shared_build import built_once

run, worker, workers = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])

class Factory:
    def getbasetemp(self):
        return run / f"popen-{worker}"

def build(path):
    with open(run / "builds", "a") as log:
        log.write(f"{worker}\\n")
    deadline = time.monotonic() + 60
    while len(list(run.glob("arrived-*"))) < workers and time.monotonic() < deadline:
        time.sleep(0.01)
    path.write_text("built")

(run / f"arrived-{worker}").touch()
print(built_once(Factory(), "thing.db", build))
"""


def test_workers_asking_at_once_share_one_build(tmp_path: Path) -> None:
    root = str(Path(__file__).resolve().parents[2])
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path), f"gw{n}", str(WORKERS)],
            env={**os.environ, "PYTHONPATH": root, "PYTEST_XDIST_WORKER": f"gw{n}"},
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(WORKERS)
    ]
    paths = {worker.communicate(timeout=120)[0].strip() for worker in workers}
    assert [worker.returncode for worker in workers] == [0] * WORKERS
    assert len((tmp_path / "builds").read_text().splitlines()) == 1
    assert paths == {str(tmp_path / "built-once" / "thing.db")}
    assert (tmp_path / "built-once" / "thing.db").read_text() == "built"
