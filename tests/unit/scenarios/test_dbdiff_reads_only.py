"""Comparing a database with its pristine copy only reads both files: a database file
that is gone (deleted while the TUI had it open) is not created again, empty, by the
comparison that tells the user what a reset would lose."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from airline_agent.scenarios import datasets
from airline_agent.scenarios.dbdiff import diff_databases


def test_a_database_that_is_gone_is_not_created_by_the_diff(tmp_path: Path) -> None:
    gone = tmp_path / "airline.db"
    with pytest.raises(sqlite3.OperationalError):
        diff_databases(datasets.pristine("sample"), gone)
    assert not gone.exists()


def test_a_pristine_copy_that_is_gone_is_not_created_by_the_diff(tmp_path: Path) -> None:
    gone = tmp_path / "pristine.db"
    with pytest.raises(sqlite3.OperationalError):
        diff_databases(gone, datasets.pristine("sample"))
    assert not gone.exists()
