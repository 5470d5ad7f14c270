"""`dbdiff.export_records` gives exactly `export --format tau2`'s records (it reads them
with SQL filtered on their keys instead of exporting a scratch copy), from a SQLite file
and from a database on a PostgreSQL server (eval's trials there)."""

from __future__ import annotations

import pytest

from airline_agent.domain.tau2 import export_tau2
from airline_agent.scenarios.dbdiff import export_records
from airline_agent.stack import toolbox
from airline_agent.tools.conversation import ToolConversation

pytestmark = pytest.mark.both_dialects


def test_the_records_are_the_exports_own(world_db) -> None:
    exported = export_tau2(world_db)
    user_id = next(iter(exported["users"]))
    reservation_id = exported["users"][user_id]["reservations"][0]
    flight = exported["reservations"][reservation_id]["flights"][0]["flight_number"]
    # A cancelled reservation (status set) and a new payment line too.
    toolbox(world_db, guard=False).call(
        "cancel_reservation", {"reservation_id": reservation_id}, ToolConversation()
    )
    exported = export_tau2(world_db)
    keys = {("users", user_id), ("reservations", reservation_id), ("flights", flight)}
    keys.add(("reservations", "NOSUCH"))
    url = world_db.engine.url
    location = url.database if url.get_backend_name() == "sqlite" else url.render_as_string(False)
    world_db.close()
    found = export_records(location, keys)
    assert set(found) == keys - {("reservations", "NOSUCH")}
    for kind, key in found:
        assert found[(kind, key)] == exported[kind][key]
    assert found[("reservations", reservation_id)]["status"] == "cancelled"
