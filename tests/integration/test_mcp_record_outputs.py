"""`airline-agent mcp --record FILE` checks FILE as every output of the project is checked
(`output_files.OutputPermissions`), before the server starts: never the database or any SQLite
file, never through a symbolic link, an existing file only with `--force`. Before, the
MCP server had a writer of its own that took a copy of the database under another name
(a hard link, `-journal`) or any SQLite file as a recording target."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from airline_agent.cli import app


def _mcp(db: Path, record: Path, *more: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["mcp", "--db", str(db), "--record", str(record), *more], input=""
    )
    return result.exit_code, result.output


@pytest.mark.parametrize("name", ["airline.db", "airline.db-journal", "hard-link.db"])
def test_the_database_and_its_files_are_refused_even_with_force(
    db: Path, tmp_path: Path, name: str
) -> None:
    if name == "hard-link.db":
        os.link(db, tmp_path / name)
    before = db.read_bytes()
    status, output = _mcp(db, tmp_path / name, "--force")
    assert status == 2, output
    assert "--record" in output and "nothing is written over it" in output
    assert db.read_bytes() == before


def test_another_sqlite_database_is_refused(db: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    other.write_bytes(db.read_bytes())
    status, output = _mcp(db, other, "--force")
    assert status == 2 and "SQLite" in output, output


def test_a_symbolic_link_is_refused_and_its_target_kept(db: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.yaml"
    target.write_text("kept\n")
    link = tmp_path / "session.yaml"
    link.symlink_to(target)
    status, output = _mcp(db, link, "--force")
    assert status == 2 and "symbolic link" in output, output
    assert target.read_text() == "kept\n"


def test_an_existing_recording_is_kept_without_force(db: Path, tmp_path: Path) -> None:
    existing = tmp_path / "session.yaml"
    existing.write_text("an older recording\n")
    status, output = _mcp(db, existing)
    assert status == 2 and "already exists" in output and "--force" in output, output
    assert existing.read_text() == "an older recording\n"
