"""τ²-bench compatibility: every task's reference actions replay through our tools (guard
off, no acting customer) with no error result and exactly the database changes of the
reference tools, as computed by an independent oracle on the plain db.json dicts. On SQLite
and on a real PostgreSQL server (tests/support/postgres.py)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from sqlalchemy import text

from airline_agent.domain.clock import Clock
from airline_agent.domain.tau2 import export_tau2
from airline_agent.scenarios.dbdiff import _OWNER as OWNER
from airline_agent.scenarios.dbdiff import _RESERVATION as RESERVATION
from airline_agent.scenarios.dbdiff import changed_records, export_records
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.toolbox import Toolbox
from tests.conftest import tau2_files
from tests.support import tau2_batches, tau2_oracle
from tests.support.profile import SLOW
from tests.support.toolbox_fixtures import Tools

pytestmark = pytest.mark.both_dialects

CLOCK = Clock.at("2024-05-15T15:00:00")


@cache
def _initial_text() -> str:
    return tau2_files()[0].read_text(encoding="utf-8")


def _fresh_initial() -> dict:
    """A new copy of db.json's data (parsing its text is ~6× faster than a deepcopy)."""
    return json.loads(_initial_text())


def _expected_changes(initial: dict, actions: list[dict]) -> dict[tuple[str, str], dict]:
    """The records the oracle's replay of `actions` leaves different from db.json."""
    expected = tau2_batches.copied_on_use(initial)
    for action in actions:
        tau2_oracle.apply(expected, action["name"], action["arguments"])
    return {
        (kind, key): records[key]
        for kind, records in expected.items()
        for key in records.used
        if dict.get(records, key) != initial[kind].get(key)
    }


class _RowsWritten:
    """Which records a replay changed in a copy on a PostgreSQL server, from what the
    server keeps: every row a transaction inserts or updates carries its id (`xmin`), so
    the rows written after `mark()` are those with a newer one; a record that only lost
    rows shows in its count of rows. Exact (a superset only where a row was rewritten with
    the same values), without reading every row: md5s of whole tables took ~0.5 s a task
    on this machine's loaded server. (The tables and the record each row belongs to:
    dbdiff's, as `changed_records` uses on SQLite.)"""

    def __init__(self, database) -> None:
        self._counts = {table: self._counts_of(database, table) for table in OWNER}

    @staticmethod
    def _counts_of(database, table: str) -> dict[str, int]:
        key = OWNER[table][1]
        with database.read() as session:
            rows = session.execute(
                text(f'SELECT "{key}", count(*) FROM "{table}" GROUP BY "{key}"')
            ).all()
        return {owner: count for owner, count in rows}

    @staticmethod
    def mark(database) -> int:
        """The first transaction id not yet given out: what the replay writes is newer."""
        with database.read() as session:
            xmax = session.execute(text("SELECT pg_snapshot_xmax(pg_current_snapshot())::text"))
            return int(xmax.scalar_one())

    def changed(self, database, mark: int) -> set[tuple[str, str]]:
        changed: set[tuple[str, str]] = set()
        newer = {"mark": mark}
        for table, (kind, key) in OWNER.items():
            with database.read() as session:
                # A reservation made changes its owner's list of reservations too.
                owner = ', "user_id"' if table == RESERVATION else ""
                written = session.execute(
                    text(f'SELECT "{key}"{owner} FROM "{table}" WHERE xmin::text::bigint >= :mark'),
                    newer,
                ).all()
                total = session.execute(text(f'SELECT count(*) FROM "{table}"')).scalar_one()
            changed |= {(kind, row[0]) for row in written}
            changed |= {("users", row[1]) for row in written if owner}
            if written or total != sum(self._counts[table].values()):
                before, after = self._counts[table], self._counts_of(database, table)
                changed |= {
                    (kind, o) for o in before.keys() | after.keys() if before.get(o) != after.get(o)
                }
        return changed


def _actions(task: dict) -> list[dict]:
    return (task.get("evaluation_criteria") or {}).get("actions") or []


def _replay(toolbox: Tools, actions: list[dict]) -> list:
    outcomes = []
    for action in actions:
        outcome = toolbox.call(action["name"], action["arguments"])
        assert outcome.error is None, (action, outcome.result)
        outcomes.append(outcome)
    return outcomes


def test_all_fifty_tasks_replay_to_the_reference_state(tau2_reference, tau2_fresh) -> None:
    """Each task's whole end state is compared: the records that the oracle's replay or
    our tools changed (rows found changed by SQL, `_changed_records`) are exported and
    compared with the oracle's, every other record is as imported on both sides (the
    import equals db.json: one whole export). With AIRLINE_AGENT_SLOW=1 the whole database
    is exported and compared after every task as well (~1 s a task)."""
    _, initial, tasks = tau2_reference
    assert len(tasks) == 50
    pristine = None
    for task in tasks:
        database = tau2_fresh()
        sqlite = database.dialect == "sqlite"
        if pristine is None:
            assert export_tau2(database) == initial
            pristine = tau2_reference.path if sqlite else _RowsWritten(database)
        mark = 0 if sqlite else _RowsWritten.mark(database)
        toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
        _replay(toolbox, _actions(task))
        if sqlite:  # `EXCEPT` against the pristine file
            changed = changed_records(pristine, Path(database.engine.url.database))
        else:
            changed = pristine.changed(database, mark)
        expected = _expected_changes(initial, _actions(task))
        keys = set(expected) | changed
        actual = export_records(database, keys)
        for key in sorted(keys):
            wanted = expected.get(key, initial[key[0]].get(key[1]))
            assert actual.get(key) == wanted, f"task {task['id']}: {key[0]}/{key[1]}"
        if SLOW:
            reference = _fresh_initial()
            for action in _actions(task):
                tau2_oracle.apply(reference, action["name"], action["arguments"])
            assert export_tau2(database) == reference, f"task {task['id']}"
        database.close()


def _task(tasks: list, task_id: str) -> dict:
    return next(t for t in tasks if str(t["id"]) == task_id)


def test_booking_creates_hathat_takes_seats_and_debits_gift_cards(
    tau2_reference, tau2_fresh
) -> None:
    _, initial, tasks = tau2_reference
    database = tau2_fresh()
    toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
    booking = next(a for a in _actions(_task(tasks, "24")) if a["name"] == "book_reservation")
    args = booking["arguments"]
    outcome = toolbox.call("book_reservation", args)
    assert outcome.error is None
    assert outcome.result["reservation_id"] == "HATHAT"
    assert outcome.result["created_at"] == "2024-05-15T15:00:00"
    # The records looked at, exported as a whole export has them.
    after = export_tau2(
        database,
        flights=[ref["flight_number"] for ref in args["flights"]],
        users=[args["user_id"]],
        reservations=(),
    )
    for ref in args["flights"]:
        before_seats = initial["flights"][ref["flight_number"]]["dates"][ref["date"]][
            "available_seats"
        ]
        now_seats = after["flights"][ref["flight_number"]]["dates"][ref["date"]]["available_seats"]
        assert now_seats[args["cabin"]] == before_seats[args["cabin"]] - len(args["passengers"])
    user = args["user_id"]
    for payment in args["payment_methods"]:
        was = initial["users"][user]["payment_methods"][payment["payment_id"]]["amount"]
        assert after["users"][user]["payment_methods"][payment["payment_id"]][
            "amount"
        ] == pytest.approx(was - payment["amount"])
    assert after["users"][user]["reservations"][-1] == "HATHAT"
    database.close()


def test_three_bookings_take_hathat_hathau_hathav(tau2_reference, tau2_fresh) -> None:
    _, _, tasks = tau2_reference
    database = tau2_fresh()
    toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
    outcomes = _replay(toolbox, _actions(_task(tasks, "23")))
    booked = [o.result["reservation_id"] for o in outcomes if o.name == "book_reservation"]
    assert booked == ["HATHAT", "HATHAU", "HATHAV"]
    database.close()


def test_cancel_appends_refund_lines_and_keeps_seats(tau2_reference, tau2_fresh) -> None:
    _, initial, _ = tau2_reference
    database = tau2_fresh()
    toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
    outcome = toolbox.call("cancel_reservation", {"reservation_id": "EHGLP3"})
    assert outcome.error is None
    assert outcome.result["status"] == "cancelled"
    assert outcome.result["payment_history"] == [
        {"payment_id": "credit_card_5832574", "amount": 208},
        {"payment_id": "credit_card_5832574", "amount": -208},
    ]
    after = export_tau2(database, flights=["HAT156"], users=["emma_kim_9957"], reservations=())
    assert after["flights"]["HAT156"] == initial["flights"]["HAT156"]  # no seat released
    assert after["users"]["emma_kim_9957"] == initial["users"]["emma_kim_9957"]
    tables = {c.table for c in outcome.changes}
    assert tables == {"reservation", "payment"}
    database.close()


def test_send_certificate_adds_the_first_free_certificate(tau2_reference, tau2_fresh) -> None:
    database = tau2_fresh()
    toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
    first = toolbox.call("send_certificate", {"user_id": "emma_kim_9957", "amount": 150})
    second = toolbox.call("send_certificate", {"user_id": "emma_kim_9957", "amount": 50})
    assert first.result.startswith("Certificate certificate_3221322 added")
    assert "certificate_3221323" in second.result
    exported = export_tau2(database, flights=(), users=["emma_kim_9957"], reservations=())
    methods = exported["users"]["emma_kim_9957"]["payment_methods"]
    assert methods["certificate_3221322"] == {
        "source": "certificate",
        "id": "certificate_3221322",
        "amount": 150,
    }
    database.close()


def test_a_flight_change_refund_credits_the_gift_card(tau2_reference, tau2_fresh) -> None:
    """EHGLP3's cabin to economy is a charge; back to basic economy prices is a refund
    that goes to the gift card's balance."""
    _, initial, _ = tau2_reference
    database = tau2_fresh()
    toolbox = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
    flights = [
        {"flight_number": "HAT156", "date": "2024-05-17"},
        {"flight_number": "HAT021", "date": "2024-05-17"},
    ]

    def change_cabin(cabin: str, payment_id: str):
        change = {"reservation_id": "EHGLP3", "cabin": cabin, "flights": flights}
        return toolbox.call("update_reservation_flights", {**change, "payment_id": payment_id})

    def prices(cabin: str) -> list[int]:
        days = [initial["flights"][f["flight_number"]]["dates"]["2024-05-17"] for f in flights]
        return [day["prices"][cabin] for day in days]

    up = change_cabin("economy", "credit_card_5832574")
    assert up.error is None
    economy = prices("economy")
    charge = (sum(economy) - (50 + 54)) * 2
    assert up.result["payment_history"][-1] == {
        "payment_id": "credit_card_5832574",
        "amount": charge,
    }
    down = change_cabin("basic_economy", "gift_card_9562694")
    assert down.error is None
    refund = (sum(prices("basic_economy")) - sum(economy)) * 2
    assert refund < 0  # a negative payment is money back: the name's "refund"
    assert down.result["payment_history"][-1] == {
        "payment_id": "gift_card_9562694",
        "amount": refund,
    }
    balance = export_tau2(database, flights=(), users=["emma_kim_9957"], reservations=())["users"][
        "emma_kim_9957"
    ]["payment_methods"]["gift_card_9562694"]["amount"]
    assert balance == pytest.approx(103.0 - refund)
    database.close()
