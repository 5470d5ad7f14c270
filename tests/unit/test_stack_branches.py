"""The debugger's branch databases (stack.py `BranchCopies`): their temporary folder is
made with the first copy, not with the stack, and removed on close."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from airline_agent.agent.debugger import ForkFailed
from airline_agent.stack import BranchCopies, open_existing_database, toolbox


@pytest.fixture
def temporary(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Where `tempfile` makes its folders during the test."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_no_folder_until_the_first_copy_and_none_after_close(temporary: Path, db: Path) -> None:
    copies = BranchCopies()
    assert list(temporary.iterdir()) == []  # a debugger that never forks leaves nothing
    tools = toolbox(open_existing_database(db))
    try:
        start = copies.file_copy(tools)
        branch = copies.copy(start, like=tools)
        assert [path.parent for path in temporary.iterdir()] == [temporary]
        assert start.parent == copies.folder and start.is_file()
        copies.discard(branch)
        assert not branch.database.sqlite_file.path.exists()  # type: ignore[union-attr]
    finally:
        tools.database.close()
        copies.close()
    assert list(temporary.iterdir()) == []


def test_closing_copies_never_made_removes_nothing(temporary: Path) -> None:
    copies = BranchCopies()
    copies.close()
    copies.close()
    assert list(temporary.iterdir()) == []


def test_a_database_that_is_no_sqlite_file_makes_no_folder(
    temporary: Path, monkeypatch: pytest.MonkeyPatch, db: Path
) -> None:
    tools = toolbox(open_existing_database(db))
    monkeypatch.setattr(tools.database, "sqlite_file", None)  # as a PostgreSQL database
    copies = BranchCopies()
    try:
        with pytest.raises(ForkFailed, match="not a SQLite file"):
            copies.file_copy(tools)
        with pytest.raises(ForkFailed, match="not a SQLite file"):
            copies.copy(tools, like=tools)
        assert list(temporary.iterdir()) == []
    finally:
        tools.database.close()
        copies.close()
