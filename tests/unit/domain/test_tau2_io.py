"""τ² db.json import and export: exact round trip, clear messages for bad files."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from airline_agent.domain.db import Database
from airline_agent.domain.tau2 import Tau2FormatError, export_tau2, import_tau2
from tests.support.fixtures import Tau2Reference
from tests.support.world import make_world_db, world


@pytest.fixture(scope="module")
def reference(tau2_reference: Tau2Reference) -> dict:
    return tau2_reference.initial


@pytest.fixture(scope="module")
def imported(tau2_reference: Tau2Reference, tmp_path_factory: pytest.TempPathFactory) -> Database:
    """A copy of the run's τ² import (`Database.create`, then `import_tau2` of db.json)."""
    return tau2_reference.fresh(tmp_path_factory.mktemp("tau2"))


def test_import_then_export_gives_the_reference_back(imported: Database, reference: dict):
    exported = export_tau2(imported)
    # Same JSON up to key order (the check is strict about 1 vs 1.0 too).
    assert json.dumps(exported, sort_keys=True) == json.dumps(reference, sort_keys=True)


def test_list_orders_survive_the_round_trip(imported: Database, reference: dict):
    exported = export_tau2(imported)
    emma = exported["users"]["emma_kim_9957"]
    assert emma["reservations"] == ["EHGLP3", "66EEUA", "MDCLVA", "H1QGCY"]
    assert list(emma["payment_methods"]) == ["credit_card_5832574", "gift_card_9562694"]
    assert [s["flight_number"] for s in exported["reservations"]["EHGLP3"]["flights"]] == [
        "HAT156",
        "HAT021",
    ]


def test_import_records_its_source(imported: Database):
    assert imported.meta()["source"] == "tau2"


def test_cancelled_status_is_kept_and_absent_status_stays_absent(reference: dict, tmp_path: Path):
    data = copy.deepcopy(reference)
    data["reservations"]["EHGLP3"]["status"] = "cancelled"
    database = Database.create(tmp_path / "c.db")
    import_tau2(database, data)
    exported = export_tau2(database)
    assert exported["reservations"]["EHGLP3"]["status"] == "cancelled"
    assert "status" not in exported["reservations"]["66EEUA"]


def test_flight_dates_carry_the_keys_of_their_status(imported: Database):
    expected = {
        "available": {"status", "available_seats", "prices"},
        "landed": {"status", "actual_departure_time_est", "actual_arrival_time_est"},
        "cancelled": {"status"},
        "flying": {"status", "actual_departure_time_est", "estimated_arrival_time_est"},
        "delayed": {"status", "estimated_departure_time_est", "estimated_arrival_time_est"},
        "on time": {"status", "estimated_departure_time_est", "estimated_arrival_time_est"},
    }
    for flight in export_tau2(imported)["flights"].values():
        for day in flight["dates"].values():
            assert set(day) == expected[day["status"]]


def _minimal() -> dict:
    return {
        "flights": {
            "HAT001": {
                "flight_number": "HAT001",
                "origin": "PHL",
                "destination": "LGA",
                "scheduled_departure_time_est": "06:00:00",
                "scheduled_arrival_time_est": "07:00:00",
                "dates": {"2024-05-03": {"status": "cancelled"}},
            }
        },
        "users": {},
        "reservations": {},
    }


def test_minimal_document_round_trips(tmp_path: Path):
    database = Database.create(tmp_path / "m.db")
    import_tau2(database, _minimal())
    assert export_tau2(database) == _minimal()


def test_the_small_world_round_trips_with_every_kind_of_payment_method(tmp_path: Path):
    """Without the τ² reference data (a plain clone): the small world has credit cards,
    gift cards and certificates, each of which must come back in its own shape."""
    database = make_world_db(tmp_path / "w.db")
    try:
        exported = export_tau2(database)
    finally:
        database.close()
    expected = world()
    assert exported["users"]["noah_lee_1001"]["payment_methods"]["certificate_3333333"] == {
        "source": "certificate",
        "id": "certificate_3333333",
        "amount": 250.0,
    }
    assert exported == expected


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("this is not json", r"not valid JSON \(line 1"),
        ("[1, 2, 3]", "expected a JSON object"),
        ('{"flights": {}, "users": {}}', "`reservations` must be an object"),
    ],
)
def test_bad_file_names_the_file_and_the_problem(tmp_path: Path, content: str, problem: str):
    path = tmp_path / "bad.json"
    path.write_text(content)
    database = Database.create(tmp_path / "x.db")
    with pytest.raises(Tau2FormatError, match=rf"bad\.json: .*{problem}"):
        import_tau2(database, path)


def test_missing_key_names_the_record(tmp_path: Path):
    data = _minimal()
    del data["flights"]["HAT001"]["origin"]
    path = tmp_path / "db.json"
    path.write_text(json.dumps(data))
    database = Database.create(tmp_path / "x.db")
    with pytest.raises(Tau2FormatError, match=r"db\.json: flights\.HAT001: missing key 'origin'"):
        import_tau2(database, path)
    assert export_tau2(database)["flights"] == {}


def test_wrong_shapes_write_nothing(tmp_path: Path):
    data = _minimal()
    data["users"]["ghost_1"] = None  # wrong shape for a user
    database = Database.create(tmp_path / "x.db")
    with pytest.raises(Tau2FormatError, match="users"):
        import_tau2(database, data)
    data = _minimal()
    data["flights"]["HAT001"]["dates"]["2024-05-04"] = {"status": "boarding"}
    with pytest.raises(Tau2FormatError, match="unknown status 'boarding'"):
        import_tau2(database, data)
    assert export_tau2(database)["flights"] == {}


def test_missing_file_is_a_clear_error(tmp_path: Path):
    database = Database.create(tmp_path / "x.db")
    with pytest.raises(Tau2FormatError, match=r"nope\.json: cannot be read"):
        import_tau2(database, tmp_path / "nope.json")


def test_dangling_reference_rolls_back(tmp_path: Path):
    data = _minimal()
    data["reservations"]["ABC123"] = {
        "reservation_id": "ABC123",
        "user_id": "nobody_1",
        "origin": "PHL",
        "destination": "LGA",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [],
        "passengers": [],
        "payment_history": [],
        "created_at": "2024-05-01T00:00:00",
        "total_baggages": 0,
        "nonfree_baggages": 0,
        "insurance": "no",
    }
    database = Database.create(tmp_path / "x.db")
    with pytest.raises(Tau2FormatError, match="refer to missing records"):
        import_tau2(database, data)
    assert export_tau2(database) == {"flights": {}, "users": {}, "reservations": {}}
