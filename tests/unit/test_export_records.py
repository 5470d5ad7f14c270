"""`dbdiff.export_records` gives exactly `export --format tau2`'s records (it reads them
with SQL filtered on their keys instead of exporting a scratch copy)."""

from __future__ import annotations

from airline_agent.domain.tau2 import export_tau2
from airline_agent.scenarios.dbdiff import export_records
from airline_agent.stack import toolbox
from airline_agent.tools.conversation import ToolConversation


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
    path = world_db.engine.url.database
    world_db.close()
    found = export_records(path, keys)
    assert set(found) == keys - {("reservations", "NOSUCH")}
    for kind, key in found:
        assert found[(kind, key)] == exported[kind][key]
    assert found[("reservations", reservation_id)]["status"] == "cancelled"
