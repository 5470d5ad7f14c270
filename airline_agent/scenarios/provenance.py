"""Which dataset a recording starts from: the database as the recording began, compared
with the pristine sample and the pristine τ² import.

A replay runs a scenario on a fresh copy of its dataset. A live session may have started
on something else (a τ² import, another seed or scale, a sample earlier sessions changed);
its replay then sees other tool results and drifts. The recording says which dataset the
session's database was, or, when it was neither, the nearest one and how many records
differed, so the user hears about the drift when recording rather than when replaying.

Cost, at save time only: building each pristine dataset once per process (about half a
second each, cached by `datasets`), then SQL `EXCEPT` over the tables (about 0.1 s for
the sample) and an exact `diff_databases` only when few records differ.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from airline_agent.scenarios import datasets
from airline_agent.scenarios.dbdiff import changed_records, diff_databases
from airline_agent.scenarios.model import Dataset

# Past this many differing records the databases are plainly different: the count from
# the row comparison is close enough, and exporting every record (seconds) is not worth it.
_EXACT_UP_TO = 200

_NAMES: dict[Dataset, str] = {"sample": "the sample", "tau2": "the τ² import"}


@dataclass(frozen=True)
class DatasetMatch:
    """The dataset a recording should replay on, and how far its start was from it."""

    dataset: Dataset
    differences: int | None  # records that differ; None: the database could not be compared
    why: str = ""  # why it could not be compared

    @property
    def exact(self) -> bool:
        return self.differences == 0

    @property
    def warning(self) -> str | None:
        """One line for the user when a replay may drift; None when the start was pristine."""
        if self.differences is None:
            return (
                f"the database could not be compared with {_NAMES[self.dataset]} when the "
                f"recording started ({self.why}); the replay runs on {_NAMES[self.dataset]} "
                "and may drift"
            )
        if self.differences == 0:
            return None
        records = "record differs" if self.differences == 1 else "records differ"
        return (
            f"the database differed from {_NAMES[self.dataset]} when the recording started "
            f"({self.differences} {records}); the replay runs on {_NAMES[self.dataset]} and "
            "may drift"
        )

    def describe(self, description: str) -> str:
        """The scenario's description, with the warning as a sentence when there is one."""
        warning = self.warning
        if warning is None:
            return description
        return f"{description} Note: {warning[0].upper()}{warning[1:]}."


def match_dataset(start: Path | None, *, tau2: Path | None = None) -> DatasetMatch:
    """The dataset whose pristine database equals `start` (a SQLite copy of the session's
    database taken when the recording began); if none does, the nearest one.

    The sample is tried first (the usual case; the τ² import is then never built); the τ²
    import only when its data is available (`tau2`, or `datasets.tau2_dir()`).
    """
    if start is None:
        return DatasetMatch("sample", None, "it is not a SQLite file")
    try:
        from_sample = _differences(datasets.pristine("sample"), start)
        if from_sample == 0:
            return DatasetMatch("sample", 0)
        try:
            tau2_file = datasets.pristine("tau2", tau2)
        except datasets.DatasetUnavailable:
            return DatasetMatch("sample", from_sample)
        from_tau2 = _differences(tau2_file, start)
    except sqlite3.Error as error:  # e.g. a database of another schema version
        return DatasetMatch("sample", None, str(error))
    if from_tau2 < from_sample:
        return DatasetMatch("tau2", from_tau2)
    return DatasetMatch("sample", from_sample)


def _differences(pristine: Path, start: Path) -> int:
    """How many τ² records (users, reservations, flights) differ between the two files."""
    rows_differ = changed_records(pristine, start)
    if len(rows_differ) > _EXACT_UP_TO:
        return len(rows_differ)
    # Rows may differ where the records do not (e.g. row order); the export decides.
    return len(diff_databases(pristine, start)) if rows_differ else 0
