"""The sample generator: deterministic, the showcase exact, distributions sane."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from airline_agent.domain.db import Database
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.provisioning import DatabaseExists, build_database, ensure_database
from airline_agent.domain.sample import generate_sample
from airline_agent.domain.showcase import SHOWCASE_RESERVATIONS, SHOWCASE_USER
from airline_agent.domain.tau2 import export_tau2


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> dict:
    database = build_database(tmp_path_factory.mktemp("seed") / "sample.db")
    try:
        return export_tau2(database)
    finally:
        database.close()


def test_default_scale_matches_the_reference_counts(sample: dict):
    assert len(sample["flights"]) == 300
    assert sorted(sample["flights"]) == [f"HAT{i:03d}" for i in range(1, 301)]
    assert all(len(f["dates"]) == 30 for f in sample["flights"].values())
    assert len(sample["users"]) == 500
    assert len(sample["reservations"]) == 2000


def test_same_seed_gives_identical_export(sample: dict, tmp_path: Path):
    again = build_database(tmp_path / "again.db")
    assert json.dumps(export_tau2(again)) == json.dumps(sample)


def test_different_seeds_differ():
    one, two = generate_sample(seed=1), generate_sample(seed=2)
    assert one.reservations != two.reservations
    assert one.users != two.users


def test_showcase_records_are_exactly_the_reference(sample: dict):
    assert sample["users"]["emma_kim_9957"] == SHOWCASE_USER
    for reservation in SHOWCASE_RESERVATIONS:
        assert sample["reservations"][reservation["reservation_id"]] == reservation
    ehglp3 = sample["reservations"]["EHGLP3"]
    assert [s["flight_number"] for s in ehglp3["flights"]] == ["HAT156", "HAT021"]
    assert ehglp3["payment_history"] == [{"payment_id": "credit_card_5832574", "amount": 208}]
    hat156, hat021 = sample["flights"]["HAT156"], sample["flights"]["HAT021"]
    assert (hat156["origin"], hat156["destination"]) == ("PHX", "SEA")
    assert (hat156["scheduled_departure_time_est"], hat156["scheduled_arrival_time_est"]) == (
        "07:00:00",
        "10:00:00",
    )
    assert (hat021["origin"], hat021["destination"]) == ("SEA", "JFK")
    assert hat156["dates"]["2024-05-17"]["status"] == "available"
    assert hat021["dates"]["2024-05-17"]["status"] == "available"


def test_showcase_is_present_whatever_the_seed():
    rows = generate_sample(seed=99)
    assert any(r["reservation_id"] == "EHGLP3" for r in rows.reservations)
    assert any(u["user_id"] == "emma_kim_9957" for u in rows.users)


def test_every_segment_is_a_real_flight_date_on_its_route(sample: dict):
    flights = sample["flights"]
    for reservation in sample["reservations"].values():
        segments = reservation["flights"]
        assert segments[0]["origin"] == reservation["origin"]
        for segment in segments:
            flight = flights[segment["flight_number"]]
            assert (flight["origin"], flight["destination"]) == (
                segment["origin"],
                segment["destination"],
            )
            assert segment["date"] in flight["dates"]
        for leg, following in itertools.pairwise(segments):
            if reservation["flight_type"] == "one_way":
                assert leg["destination"] == following["origin"]
        if reservation["flight_type"] == "one_way":
            assert segments[-1]["destination"] == reservation["destination"]
        else:
            assert segments[-1]["destination"] == reservation["origin"]


def test_payments_add_up_and_come_from_the_profile(sample: dict):
    for reservation in sample["reservations"].values():
        travellers = len(reservation["passengers"])
        assert 1 <= travellers <= 4
        expected = sum(s["price"] for s in reservation["flights"]) * travellers
        expected += 30 * travellers if reservation["insurance"] == "yes" else 0
        expected += 50 * reservation["nonfree_baggages"]
        assert sum(p["amount"] for p in reservation["payment_history"]) == expected
        methods = sample["users"][reservation["user_id"]]["payment_methods"]
        for payment in reservation["payment_history"]:
            assert methods[payment["payment_id"]]["source"] in ("credit_card", "gift_card")


def test_user_reservation_lists_match_the_reservations(sample: dict):
    owned = Counter(r["user_id"] for r in sample["reservations"].values())
    for user_id, user in sample["users"].items():
        assert len(user["reservations"]) == owned[user_id]
        for rid in user["reservations"]:
            assert sample["reservations"][rid]["user_id"] == user_id


def test_statuses_follow_the_clock(sample: dict):
    by_when: dict[str, Counter] = {"before": Counter(), "today": Counter(), "after": Counter()}
    for flight in sample["flights"].values():
        for day, info in flight["dates"].items():
            when = "before" if day < "2024-05-15" else "today" if day == "2024-05-15" else "after"
            by_when[when][info["status"]] += 1
            if info["status"] == "available":
                assert all(0 <= n <= 20 for n in info["available_seats"].values())
                assert 50 <= info["prices"]["basic_economy"] <= 100
                assert info["prices"]["basic_economy"] < info["prices"]["business"]
    assert set(by_when["before"]) == {"landed", "cancelled"}
    assert by_when["before"]["cancelled"] < by_when["before"]["landed"] / 5
    assert set(by_when["today"]) == {"landed", "flying", "on time", "delayed"}
    assert set(by_when["after"]) == {"available"}


def test_distributions_are_like_the_reference(sample: dict):
    reservations = list(sample["reservations"].values())
    cabins = Counter(r["cabin"] for r in reservations)
    assert all(500 < cabins[c] < 800 for c in ("basic_economy", "economy", "business"))
    kinds = Counter(r["flight_type"] for r in reservations)
    assert 800 < kinds["round_trip"] < 1200
    memberships = Counter(u["membership"] for u in sample["users"].values())
    assert set(memberships) == {"regular", "silver", "gold"}
    sources = Counter(
        m["source"] for u in sample["users"].values() for m in u["payment_methods"].values()
    )
    assert all(sources[s] > 300 for s in ("credit_card", "gift_card", "certificate"))


def test_scale_multiplies_users_and_reservations():
    rows = generate_sample(scale=2)
    assert len(rows.users) == 1000
    assert len(rows.reservations) == 4000
    assert len(rows.flights) == 300
    assert len({r["reservation_id"] for r in rows.reservations}) == 4000


def test_build_refuses_to_overwrite_without_force(tmp_path: Path):
    path = tmp_path / "db.sqlite"
    path.write_text("precious")
    with pytest.raises(DatabaseExists, match=r"already exists.*--force"):
        build_database(path)
    assert path.read_text() == "precious"
    # `force` replaces only one of our databases (issue 19 item 7): never this file...
    with pytest.raises(DatabaseUnavailable, match="replaces only an airline-agent database"):
        build_database(path, seed=3, force=True)
    assert path.read_text() == "precious"
    # ...and a database of ours, rebuilt as asked.
    ours = tmp_path / "ours.sqlite"
    build_database(ours).close()
    with pytest.raises(DatabaseExists, match=r"already exists.*--force"):
        build_database(ours)
    build_database(ours, seed=3, force=True).close()
    assert Database.open(ours).meta()["source"] == "sample seed=3 scale=1"


def test_failed_build_leaves_nothing_behind(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match=r"bad\.json"):
        build_database(tmp_path / "x.db", tau2=bad)
    assert list(tmp_path.iterdir()) == [bad]


def test_ensure_database_builds_when_missing_and_refuses_garbage(tmp_path: Path):
    database = ensure_database(tmp_path / "new.db")
    assert database.meta()["source"].startswith("sample seed=")
    database.close()
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database" * 100)
    with pytest.raises(DatabaseUnavailable, match=r"garbage\.db"):
        ensure_database(garbage)
    assert garbage.read_bytes() == b"not a database" * 100
