"""`r` in live mode: the user's database put back exactly as it was built, after saying
what would be lost.

The database records how it was built (the generator's seed and scale, or the τ² import);
a reset builds that again in a scratch file, counts the records that differ from the
database as it is now (`dbdiff.diff_databases`: what the reset would lose), and only
after the user said yes copies the scratch build over the database. A database that
cannot be rebuilt as built (a τ² import whose file was not recorded or has changed, an
unknown build) goes back instead to the copy taken when the app opened it.

Everything here is slow (a build takes a second or more): the callers run it in a thread.
It imports the stack at its top: it is reached through the live database
(tui/live_database.py), opened after the first frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from airline_agent.domain.sqlite_files import copy_sqlite
from airline_agent.scenarios import datasets
from airline_agent.scenarios.dbdiff import RecordChange, diff_databases
from airline_agent.stack import build_as_built

if TYPE_CHECKING:
    from airline_agent.domain.loading import Progress
    from airline_agent.domain.provenance import Provenance

SHOWN_CHANGES = 5  # records named in the question; the rest counted

# -- The reset ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ResetPlan:
    """What a reset would do, worked out before asking: the database it would change,
    what it would put back (and the file holding exactly that), and what would be lost."""

    location: Path  # the user's database file
    restores: str  # "the sample (seed 7) it was built as", "the copy taken when …"
    replacement: Path  # a scratch file holding what the reset puts back
    changes: tuple[RecordChange, ...]  # the records that differ now: lost by the reset
    not_as_built: str | None = None  # why it is not rebuilt as built (the copy instead)

    @property
    def differing(self) -> int:
        return len(self.changes)

    def question(self) -> str:
        records = "record differs" if self.differing == 1 else "records differ"
        return (
            f"Reset {self.location} to {self.restores}? {self.differing} {records} "
            "and would be lost."
        )

    def details(self) -> str:
        """The records that would be lost (the first few), and what else the reset does."""
        lines = [f"{change.kind} {change.key}: {_change_words(change)}" for change in self.changes]
        if len(lines) > SHOWN_CHANGES:
            lines = [*lines[:SHOWN_CHANGES], f"… and {len(lines) - SHOWN_CHANGES} more"]
        if self.not_as_built:
            lines.append(f"Not rebuilt as built: {self.not_as_built}.")
        lines.append("The conversation starts anew.")
        return "\n".join(lines)

    def apply(self) -> None:
        """The database becomes the replacement (the caller has closed it)."""
        copy_sqlite(self.replacement, self.location)  # SQLite's backup API: whole, atomic

    def discard(self) -> None:
        """The replacement goes (applied, or the user kept the database)."""
        datasets.discard(self.replacement)


def plan_reset(
    database_file: Path,
    built: Provenance,
    opened_copy: Path | None,
    scratch: Path,
    progress: Progress | None = None,
) -> ResetPlan:
    """Build what the reset would put back in `scratch` (or take the copy from opening)
    and compare it with the database as it is now."""
    why_not = built.why_not_rebuildable()
    if why_not is None:
        build_as_built(built, scratch, progress=progress)
        restores = f"{built.describe()} it was built as"
    elif opened_copy is not None:
        copy_sqlite(opened_copy, scratch)
        restores = "the copy taken when the app opened it"
    else:
        raise RuntimeError(f"{database_file} cannot be reset: {why_not}, and no copy was taken")
    changes = tuple(diff_databases(scratch, database_file))
    return ResetPlan(database_file, restores, scratch, changes, why_not)


def _change_words(change: RecordChange) -> str:
    if change.created:
        return "would be removed (created since)"
    if change.removed:
        return "would come back (removed since)"
    fields = ", ".join(change.paths[:3]) + (" …" if len(change.paths) > 3 else "")
    return f"{fields} would change back"
