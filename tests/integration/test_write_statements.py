"""A guarded write reads what it decides on once (issue 31): the guard reads the rows in the
write's own transaction and hands them to the operation, which reads them no more, and the
result is built from the rows the write holds instead of read back.

Counted as `airline-agent call cancel_reservation … --as USER` runs it (`stack.tool_caller`,
guard on), with sqlite3's own trace callback on every driver connection: the statements
that read or change rows between the write's `BEGIN IMMEDIATE` and its `COMMIT`.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from airline_agent.config import Settings
from airline_agent.stack import tool_caller
from tests.support.statements import traced
from tests.support.world import NOW

# ECON01: Noah's insured economy trip, two segments, one payment line; cancelled for
# health reasons, which its insurance covers (X3), so the guard lets it through.
CANCEL = ("cancel_reservation", {"reservation_id": "ECON01", "reason": "health"})
OWNER = "noah_lee_1001"
AT_MOST = 10


def _in_the_write(statements: list[str]) -> list[str]:
    begin = statements.index("BEGIN IMMEDIATE")
    end = statements.index("COMMIT", begin)
    return [
        s for s in statements[begin + 1 : end] if re.match(r"(SELECT|INSERT|UPDATE|DELETE)\b", s)
    ]


def test_a_guarded_cancellation_reads_its_reservation_once_in_few_statements(
    world_template: Path, tmp_path: Path
) -> None:
    path = tmp_path / "world.db"
    shutil.copyfile(world_template, path)
    with traced() as statements:
        caller = tool_caller(Settings(db=str(path), now=NOW, guard=True), customer=OWNER)
        try:
            outcome = caller.call(*CANCEL)
        finally:
            caller.close()
    assert outcome.ok, outcome.result
    assert outcome.result["status"] == "cancelled"
    written = _in_the_write(statements)
    reservation_reads = [s for s in written if re.search(r"\bFROM reservation\b", s)]
    assert len(reservation_reads) == 1, "\n".join(reservation_reads)
    assert len(written) <= AT_MOST, "\n".join(written)
