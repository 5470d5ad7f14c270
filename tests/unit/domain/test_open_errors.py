"""Opening what is not a database, or τ² data that is not there, says exactly what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from airline_agent.domain.db import Database
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.scenarios import datasets


def test_a_directory_given_as_the_database_is_named_as_such(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnavailable, match="is a directory, not a database file"):
        Database.open(tmp_path)


def test_missing_tau2_data_in_a_given_folder_does_not_point_at_the_variable(
    tmp_path: Path,
) -> None:
    with pytest.raises(datasets.DatasetUnavailable) as given:
        datasets.pristine("tau2", tmp_path)
    assert str(tmp_path / "db.json") in str(given.value)
    assert "AIRLINE_AGENT_TAU2_DIR" not in str(given.value)


def test_missing_tau2_data_in_the_default_place_points_at_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIRLINE_AGENT_TAU2_DIR", str(tmp_path))
    with pytest.raises(datasets.DatasetUnavailable, match="set AIRLINE_AGENT_TAU2_DIR"):
        datasets.pristine("tau2")
