"""A write that cannot happen is a clear result, never SQL (issue 10 §1): a database busy
with another writer past the busy timeout, and failures nobody reported on purpose."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy.exc import IntegrityError

from airline_agent.domain import db as db_module
from airline_agent.domain.db import Database
from airline_agent.domain.tau2 import export_tau2
from tests.support.toolbox_fixtures import toolbox

ONE_PAID_BAG = {
    "reservation_id": "ECON01",
    "total_baggages": 2,
    "nonfree_baggages": 1,
    "payment_id": "gift_card_2222222",
}


def test_a_write_waiting_past_the_busy_timeout_is_a_conflict_not_a_traceback(
    world_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "busy.db"
    path.write_bytes(world_template.read_bytes())
    # A short wait keeps the test quick; the outcome is the same after the real 20 s.
    # (No raising=False: a renamed constant must fail here, not make the test wait 20 s.)
    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 200)
    database = Database.open(path)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("PRAGMA busy_timeout=200")
        holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        outcome = toolbox(database, guard=False).call("update_reservation_baggages", ONE_PAID_BAG)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert outcome.error == "CONFLICT", outcome.result
    assert "busy" in outcome.result["message"]
    assert "waited 0.2 s" in outcome.result["message"]  # the shortened timeout was the one used
    assert "SQL" not in outcome.result["message"]
    # Once the other writer is done, the same write goes through.
    assert toolbox(database, guard=False).call("update_reservation_baggages", ONE_PAID_BAG).ok
    database.close()


def test_an_unexpected_database_error_shows_no_sql_and_no_parameters(
    world_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    from airline_agent.domain import policy

    before = export_tau2(world_db)

    def collides(*args: object, **kwargs: object) -> None:
        raise IntegrityError(
            "INSERT INTO payment (reservation_id, position, payment_id, amount) "
            "VALUES (?, ?, ?, ?)",
            ("ECON01", 1, "gift_card_2222222", 50.0),
            sqlite3.IntegrityError("UNIQUE constraint failed: payment.reservation_id"),
        )

    monkeypatch.setattr(policy, "bag_price", collides)  # inside the write's transaction
    outcome = toolbox(world_db, guard=False).call("update_reservation_baggages", ONE_PAID_BAG)
    message = outcome.result["message"]
    assert outcome.error == "INTERNAL_ERROR"
    assert "UNIQUE constraint failed" in message  # what went wrong, in SQLite's words
    for leaked in ("INSERT", "[SQL", "parameters", "gift_card_2222222", "50.0"):
        assert leaked not in message, message
    assert export_tau2(world_db) == before
