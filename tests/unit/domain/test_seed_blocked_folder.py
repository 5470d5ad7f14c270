"""A database whose folder cannot be made is one line naming the file in the way."""

from __future__ import annotations

from pathlib import Path

import pytest

from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.provisioning import build_database, ensure_database
from tests.support.cli import invoke_cli


@pytest.fixture
def blocker(tmp_path: Path) -> Path:
    path = tmp_path / "blocker"
    path.write_text("a file, not a folder\n")
    return path


def test_build_names_the_file_in_the_way(blocker: Path) -> None:
    target = blocker / "deeper" / "airline.db"
    with pytest.raises(DatabaseUnavailable) as caught:
        build_database(target)
    assert str(caught.value) == f"{target}: cannot be created ({blocker} is a file, not a folder)"


def test_first_use_reports_it_the_same_way(blocker: Path) -> None:
    with pytest.raises(DatabaseUnavailable, match="is a file, not a folder"):
        ensure_database(blocker / "airline.db")


def test_seed_command_prints_that_line(blocker: Path) -> None:
    target = blocker / "airline.db"
    result = invoke_cli("seed", "--db", str(target))
    assert result.returncode == 1
    assert result.stderr == (
        f"error: {target}: cannot be created ({blocker} is a file, not a folder)\n"
    )
