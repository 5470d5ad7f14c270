"""A database records how it was built, and can be rebuilt exactly so (issue 9, defect 1:
the TUI's reset rebuilt the *default* sample whatever the database was built from)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from airline_agent.domain.db import Database
from airline_agent.domain.provenance import Provenance, file_sha256
from airline_agent.domain.provisioning import (
    CannotRebuild,
    build_as_built,
    build_database,
    provenance,
    rebuild_as_built,
)
from airline_agent.domain.tau2 import export_tau2, import_tau2
from airline_agent.scenarios.dbdiff import changed_records
from tests.support.world import world


def _exported(location: Path) -> dict:
    database = Database.open(location)
    try:
        return export_tau2(database)
    finally:
        database.close()


def _cancel(location: Path, reservation_id: str) -> None:
    connection = sqlite3.connect(location)
    with connection:
        connection.execute(
            "UPDATE reservation SET status = 'cancelled' WHERE reservation_id = ?",
            (reservation_id,),
        )
    connection.close()


def test_a_sample_records_its_seed_and_scale_and_rebuilds_as_that_sample(tmp_path: Path) -> None:
    location = tmp_path / "seven.db"
    build_database(location, seed=7).close()
    pristine = _exported(location)
    database = Database.open(location)
    try:
        assert provenance(database) == Provenance.sample(7, 1)
    finally:
        database.close()
    _cancel(location, "EHGLP3")
    assert _exported(location) != pristine
    rebuild_as_built(location).close()
    assert _exported(location) == pristine  # seed 7 again, not the default sample


def test_how_many_records_a_reset_would_undo_is_counted_by_dbdiff(tmp_path: Path) -> None:
    # The reset's confirmation says what will be lost: a fresh build as built, compared
    # with the current database by scenarios/dbdiff (reused, not rewritten).
    location = tmp_path / "seven.db"
    build_database(location, seed=7).close()
    _cancel(location, "EHGLP3")
    database = Database.open(location)
    built = provenance(database)
    database.close()
    build_as_built(built, tmp_path / "as-built.db").close()
    assert changed_records(tmp_path / "as-built.db", location) == {("reservations", "EHGLP3")}


def _tau2_file(tmp_path: Path) -> Path:
    source = tmp_path / "db.json"
    source.write_text(json.dumps(world()), encoding="utf-8")
    return source


def test_a_tau2_import_records_its_file_and_hash_and_rebuilds_from_it(tmp_path: Path) -> None:
    source = _tau2_file(tmp_path)
    location = tmp_path / "tau2.db"
    build_database(location, tau2=source).close()
    database = Database.open(location)
    try:
        assert provenance(database) == Provenance(
            "tau2", tau2_file=str(source.resolve()), tau2_sha256=file_sha256(source)
        )
        assert database.meta()["source"] == "tau2"  # what `seed` prints, as before
    finally:
        database.close()
    pristine = _exported(location)
    _cancel(location, "ECON01")
    rebuild_as_built(location).close()
    assert _exported(location) == pristine


@pytest.mark.parametrize("change", ["edited", "removed"])
def test_a_tau2_file_that_changed_or_went_cannot_be_rebuilt_and_nothing_is_touched(
    tmp_path: Path, change: str
) -> None:
    source = _tau2_file(tmp_path)
    location = tmp_path / "tau2.db"
    build_database(location, tau2=source).close()
    _cancel(location, "ECON01")
    current = _exported(location)
    if change == "edited":
        source.write_text(source.read_text(encoding="utf-8") + " ", encoding="utf-8")
    else:
        source.unlink()
    with pytest.raises(CannotRebuild, match="changed since" if change == "edited" else "gone"):
        rebuild_as_built(location)
    assert _exported(location) == current


def test_data_imported_from_memory_cannot_be_rebuilt(tmp_path: Path) -> None:
    location = tmp_path / "memory.db"
    database = Database.create(location)
    import_tau2(database, world())
    database.close()
    with pytest.raises(CannotRebuild, match="file was not recorded") as refused:
        rebuild_as_built(location)
    assert refused.value.provenance.kind == "tau2"


def test_a_database_built_before_provenance_was_recorded_is_read_from_its_source() -> None:
    assert Provenance.from_meta({"source": "sample seed=3 scale=2"}) == Provenance.sample(3, 2)
    assert Provenance.from_meta({"source": "tau2"}).why_not_rebuildable() is not None
    assert Provenance.from_meta({"provenance": "{not json"}).kind == "unknown"
