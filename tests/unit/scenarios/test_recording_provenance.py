"""`match_dataset`: which dataset a recording's starting database was, and the warning
when it was neither pristine dataset."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from airline_agent.scenarios import datasets
from airline_agent.scenarios.provenance import match_dataset
from tests.conftest import tau2_files


def _cancel(db: Path, reservation_id: str) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE reservation SET status = 'cancelled' WHERE reservation_id = ?",
            (reservation_id,),
        )


def test_a_changed_tau2_import_is_matched_to_tau2_with_a_warning(tmp_path: Path) -> None:
    tau2_db, _ = tau2_files()
    start = tmp_path / "start.db"
    shutil.copyfile(datasets.pristine("tau2", tau2_db.parent), start)
    _cancel(start, "4WQ150")

    match = match_dataset(start, tau2=tau2_db.parent)

    assert (match.dataset, match.differences) == ("tau2", 1)
    assert match.warning == (
        "the database differed from the τ² import when the recording started "
        "(1 record differs); the replay runs on the τ² import and may drift"
    )
    assert match.describe("Recorded.").startswith("Recorded. Note: The database differed")


def test_without_a_copy_of_the_start_the_recording_says_it_could_not_compare() -> None:
    match = match_dataset(None)

    assert (match.dataset, match.differences) == ("sample", None)
    assert match.warning is not None and "could not be compared" in match.warning


def test_a_file_that_is_not_a_database_is_reported_not_raised(tmp_path: Path) -> None:
    start = tmp_path / "start.db"
    start.write_text("not a database")

    match = match_dataset(start)

    assert match.differences is None and match.dataset == "sample"
    assert "could not be compared" in (match.warning or "")
