"""Databases that are not what they seem (issue 10 §4), through the real command in a
child process: read-only files and folders, and a `seed` killed half-way.

Permissions are real: the child runs without the root capability that ignores them
(`setpriv`), since these tests may run as root.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.cli import cli_env

_NO_OVERRIDE = "-dac_override,-dac_read_search"


def _unprivileged(command: list[str]) -> list[str]:
    """The command as a user bound by file permissions, even when the tests run as root."""
    if os.geteuid() != 0:
        return command
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, and `setpriv` is not there to honour file permissions")
    prefix = [setpriv, "--bounding-set", _NO_OVERRIDE, "--inh-caps", _NO_OVERRIDE]
    if subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
        pytest.skip("running as root, and root's permission override cannot be dropped here")
    return [*prefix, *command]


def _call(db: Path | str, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "airline_agent", "call", *arguments, "--db", str(db)]
    return subprocess.run(
        _unprivileged(command), capture_output=True, text=True, env=cli_env(), timeout=120
    )


@contextmanager
def _read_only(path: Path) -> Iterator[None]:
    mode = path.stat().st_mode
    path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        yield
    finally:
        path.chmod(mode)


EHGLP3 = '{"reservation_id": "EHGLP3"}'
NEW_NAMES = json.dumps(
    {
        "reservation_id": "EHGLP3",
        "passengers": [
            {"first_name": "Evelyn", "last_name": "Taylor", "dob": "1965-01-16"},
            {"first_name": "Anya", "last_name": "Silva", "dob": "1971-11-22"},
        ],
    }
)


@pytest.mark.parametrize("read_only", ["folder", "file"])
def test_a_read_only_database_is_read_and_refuses_writes_saying_read_only(
    db: Path, read_only: str
) -> None:
    before = db.read_bytes()
    with _read_only(db.parent if read_only == "folder" else db):
        read = _call(db, "get_reservation_details", EHGLP3)
        write = _call(db, "update_reservation_passengers", NEW_NAMES, "--no-guard")
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["reservation_id"] == "EHGLP3"
    assert write.returncode == 1, write.stderr
    refusal = json.loads(write.stdout)
    assert refusal["error"] == "PERMISSION_DENIED"
    assert "read-only" in refusal["message"]
    for output in (read.stdout, read.stderr, write.stdout, write.stderr):
        assert "--force" not in output  # never advise destroying an intact database
    assert db.read_bytes() == before


def _seed_killed_while_writing(target: str, folder: Path, name: str) -> int:
    """Start `seed --scale 2` and kill -9 it inside its load transaction, every row
    written (> 2 MB of `name`'s files on disk, build files included) but the facts that
    mark the database complete (tests/support/stalled_seed.py stops it there); its pid."""
    ready = folder / "stalled"
    stalled_seed = [sys.executable, "-m", "tests.support.stalled_seed", str(ready)]
    seeding = subprocess.Popen(
        [*stalled_seed, "seed", "--db", target, "--scale", "2"],
        env=cli_env(PYTHONPATH=str(Path(__file__).resolve().parents[2])),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 180
    try:
        while not ready.exists():
            assert seeding.poll() is None, "the seed ended before its last write"
            assert time.monotonic() < deadline, "the seed did not reach its last write in 180 s"
            time.sleep(0.01)  # polling a condition, with a deadline
        assert _bytes_on_disk(folder, name) > 2_000_000  # the load's pages are on disk
    finally:
        seeding.send_signal(signal.SIGKILL)
        seeding.wait(60)
    return seeding.pid


def _database_files(folder: Path, name: str) -> list[Path]:
    """`name`'s files, build files too."""
    return [path for path in folder.iterdir() if path.name.startswith((name, f".{name}"))]


def _bytes_on_disk(folder: Path, name: str) -> int:
    """The size of `name`'s files, each read once: SQLite and the seed remove a journal or
    a build file at any moment, also between listing and reading it."""
    total = 0
    for path in _database_files(folder, name):
        try:
            total += path.stat().st_size
        except FileNotFoundError:
            continue  # removed while we looked
    return total


def test_a_seed_killed_into_a_url_leaves_a_database_that_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "half.db"
    _seed_killed_while_writing(f"sqlite:///{target}", tmp_path, "half.db")
    used = _call(f"sqlite:///{target}", "get_user_details", '{"user_id": "emma_kim_9957"}')
    assert used.returncode == 1, used.stdout
    assert "incomplete" in used.stderr
    assert f"airline-agent seed --db sqlite:///{target} --force" in used.stderr


def test_a_seed_killed_into_a_file_leaves_nothing_the_next_build_keeps(tmp_path: Path) -> None:
    target = tmp_path / "airline.db"
    pid = _seed_killed_while_writing(str(target), tmp_path, "airline.db")
    # The kill left its build behind (never the target itself).
    assert (tmp_path / f".airline.db.building-{pid}").exists() and not target.exists()
    rebuilt = subprocess.run(
        [sys.executable, "-m", "airline_agent", "seed", "--db", str(target)],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=300,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    left = sorted(p.name for p in _database_files(tmp_path, "airline.db"))  # nothing runs now
    assert [n for n in left if ".building-" in n] == [], left
    used = _call(target, "get_user_details", '{"user_id": "emma_kim_9957"}')
    assert used.returncode == 0, used.stderr
