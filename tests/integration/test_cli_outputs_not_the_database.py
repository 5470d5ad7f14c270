"""No output is ever written over the database, one of its files (-wal, -shm, -journal,
the `.NAME.checked` record, a build in progress) or an input of the run — not through a
symbolic link or a hard link, and not with `--force`: refused up front, in one line,
and the database is byte for byte what it was."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from tests.support.cli import invoke_cli

CANCEL_EHGLP3 = Path(__file__).resolve().parents[2] / "data/scenarios/cancel-ehglp3.yaml"
NOWHERE = "http://127.0.0.1:9/v1"  # never reached: these chats send no message


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def chat(db: Path, *args: str):
    return invoke_cli("chat", "--db", str(db), "--base-url", NOWHERE, *args, "--force")


def assert_refused(result, flag: str, path: Path, what: str) -> None:
    assert result.returncode == 2, result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {flag} {path}: is {what}"), line
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("{db}", "the database"),
        ("{db}-wal", "the write-ahead log of the database"),
        ("{db}-shm", "the shared-memory index of the database"),
        ("{db}-journal", "the rollback journal of the database"),
        (".{name}.checked", "the record of the last check of the database"),
        (".{name}.building-4242", "a build of the database"),
    ],
)
def test_chat_never_records_over_the_database_or_its_files(db: Path, name: str, what: str) -> None:
    before = digest(db)
    target = Path(name.format(db=db, name=db.name))
    if not target.is_absolute():
        target = db.parent / target
    result = chat(db, "--record", str(target))
    assert_refused(result, "--record", target, what)
    assert digest(db) == before


def test_chat_never_records_over_the_database_through_a_link(db: Path, tmp_path: Path) -> None:
    before = digest(db)
    link = tmp_path / "session.yaml"
    link.symlink_to(db)
    assert_refused(chat(db, "--record", str(link)), "--record", link, "the database")
    assert digest(db) == before


def test_chat_never_writes_a_transcript_over_the_database(db: Path, tmp_path: Path) -> None:
    named = tmp_path / "chat.md"  # the transcript's Markdown file would be the database
    shutil.copy(db, named)
    before = digest(named)
    result = chat(named, "--transcript", str(tmp_path))
    assert_refused(result, "--transcript", tmp_path / "chat.md", "the database")
    assert digest(named) == before


def test_export_never_writes_over_the_database(db: Path, tmp_path: Path) -> None:
    before = digest(db)
    hard_link = tmp_path / "db.json"
    os.link(db, hard_link)
    for target in (db, hard_link):
        result = invoke_cli("export", "--db", str(db), "-o", str(target), "--force")
        assert_refused(result, "-o", target, "the database")
    assert digest(db) == before


def test_export_never_writes_over_another_sqlite_database(db: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    shutil.copy(db, other)
    before = digest(other)
    result = invoke_cli("export", "--db", str(db), "-o", str(other), "--force")
    assert result.returncode == 2
    assert "holds an SQLite database" in result.stderr
    assert digest(other) == before


def test_replay_never_writes_a_transcript_over_its_input(tmp_path: Path) -> None:
    scenario = tmp_path / "cancel-ehglp3.md"  # a scenario file, whatever its suffix
    scenario.write_text(CANCEL_EHGLP3.read_text())
    before = digest(scenario)
    result = invoke_cli(
        "replay", str(scenario), "--transcript", str(tmp_path), "--force"
    )  # fmt: skip
    assert_refused(result, "--transcript", scenario, "an input of this run")
    assert result.stdout == ""
    assert digest(scenario) == before


def test_seed_never_builds_over_its_own_input(tmp_path: Path) -> None:
    source = tmp_path / "db.json"
    source.write_text('{"flights": {}, "users": {}, "reservations": {}}')
    before = digest(source)
    result = invoke_cli("seed", "--db", str(source), "--from-tau2", str(source), "--force")
    assert result.returncode == 2
    assert "is an input of this run" in result.stderr
    assert digest(source) == before
