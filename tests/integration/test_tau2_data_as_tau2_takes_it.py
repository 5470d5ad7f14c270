"""τ²'s data as τ² takes it (issue 30): τ²'s own airline test fixture
(tests/test_domains/test_airline/test_tools_airline.py, `airline_db`) has a user whose
list of reservations names three she does not hold and leaves out the one she holds;
τ²'s model (`FlightDB`) takes it, and its `get_user_details` returns the list as stored.
`seed --from-tau2` takes it too, says what was odd in one warning line, and every command
then answers as τ² does: the list as stored, appended to by a booking, exported as
written. A user's `address2` may be null or absent (τ²'s `Optional[str]`). The commands as
a user runs them (typer's runner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import invoke_cli

LISTED = ["NO6JO3", "AIXC49", "HKEG34"]  # none of them Mia's (none exists at all)
HELD = "4WQ150"


def _day(status: str = "available") -> dict:
    if status != "available":
        return {"status": status}
    return {
        "status": "available",
        "available_seats": {"basic_economy": 16, "economy": 10, "business": 13},
        "prices": {"basic_economy": 87, "economy": 122, "business": 471},
    }


def fixture() -> dict:
    """τ²'s airline test database, in substance: two flights, Mia Li, her reservation."""
    return {
        "flights": {
            "HAT001": {
                "flight_number": "HAT001",
                "origin": "PHL",
                "destination": "LGA",
                "scheduled_departure_time_est": "06:00:00",
                "scheduled_arrival_time_est": "07:00:00",
                "dates": {
                    "2024-05-14": _day("cancelled"),
                    "2024-05-15": {
                        "status": "landed",
                        "actual_departure_time_est": "2024-05-15T06:04:00",
                        "actual_arrival_time_est": "2024-05-15T07:30:00",
                    },
                    "2024-05-16": _day(),
                },
            },
            "HAT002": {
                "flight_number": "HAT002",
                "origin": "LGA",
                "destination": "LAX",
                "scheduled_departure_time_est": "08:00:00",
                "scheduled_arrival_time_est": "09:00:00",
                "dates": {"2024-05-16": _day()},
            },
        },
        "users": {
            "mia_li_3668": {
                "user_id": "mia_li_3668",
                "name": {"first_name": "Mia", "last_name": "Li"},
                "address": {
                    "address1": "975 Sunset Drive",
                    "address2": "Suite 217",
                    "city": "Austin",
                    "country": "USA",
                    "state": "TX",
                    "zip": "78750",
                },
                "email": "mia.li3818@example.com",
                "dob": "1990-04-05",
                "payment_methods": {
                    "credit_card_4421486": {
                        "source": "credit_card",
                        "brand": "visa",
                        "last_four": "7447",
                        "id": "credit_card_4421486",
                    },
                    "certificate_4856383": {
                        "source": "certificate",
                        "amount": 100,
                        "id": "certificate_4856383",
                    },
                },
                "saved_passengers": [
                    {"first_name": "Amelia", "last_name": "Ahmed", "dob": "1957-03-21"}
                ],
                "membership": "gold",
                "reservations": list(LISTED),
            }
        },
        "reservations": {
            HELD: {
                "reservation_id": HELD,
                "user_id": "mia_li_3668",
                "origin": "PHL",
                "destination": "LGA",
                "flight_type": "one_way",
                "cabin": "economy",
                "flights": [
                    {
                        "origin": "PHL",
                        "destination": "LGA",
                        "flight_number": "HAT001",
                        "date": "2024-05-16",
                        "price": 122,
                    }
                ],
                "passengers": [
                    {"first_name": "Chen", "last_name": "Jackson", "dob": "1956-07-07"},
                    {"first_name": "Raj", "last_name": "Smith", "dob": "1967-04-01"},
                ],
                "payment_history": [{"payment_id": "credit_card_4421486", "amount": 500}],
                "created_at": "2024-05-02T03:10:19",
                "total_baggages": 5,
                "nonfree_baggages": 0,
                "insurance": "no",
            }
        },
    }


def _seeded(tmp_path: Path, data: dict) -> tuple[Path, object]:
    source, db = tmp_path / "db.json", tmp_path / "airline.db"
    source.write_text(json.dumps(data))
    return db, invoke_cli("seed", "--db", str(db), "--from-tau2", str(source))


def _call(db: Path, tool: str, arguments: dict) -> dict:
    result = invoke_cli("call", tool, json.dumps(arguments), "--db", str(db), "--no-guard")
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_taus_own_test_data_is_taken_with_one_warning(tmp_path) -> None:
    _, seeded = _seeded(tmp_path, fixture())
    assert seeded.returncode == 0, seeded.stderr
    warnings = [line for line in seeded.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, seeded.stderr
    (warning,) = warnings
    assert "users.mia_li_3668.reservations lists NO6JO3, AIXC49, HKEG34" in warning
    assert f"does not list {HELD}" in warning and "kept as written" in warning


def test_get_user_details_returns_the_list_as_stored(tmp_path) -> None:
    db, _ = _seeded(tmp_path, fixture())
    user = _call(db, "get_user_details", {"user_id": "mia_li_3668"})
    assert user["reservations"] == LISTED
    # the reservation she holds is hers to read and change, as in τ²
    assert _call(db, "get_reservation_details", {"reservation_id": HELD})["user_id"] == (
        "mia_li_3668"
    )
    cancelled = _call(db, "cancel_reservation", {"reservation_id": HELD})
    assert cancelled["status"] == "cancelled"
    assert cancelled["payment_history"][1]["amount"] == -500


def test_a_booking_appends_to_the_list_as_stored(tmp_path) -> None:
    """τ²'s test books for Mia: its booking appends the new id to her list."""
    db, _ = _seeded(tmp_path, fixture())
    booked = _call(
        db,
        "book_reservation",
        {
            "user_id": "mia_li_3668",
            "origin": "PHL",
            "destination": "LGA",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [{"flight_number": "HAT001", "date": "2024-05-16"}],
            "passengers": [{"first_name": "Noah", "last_name": "Brown", "dob": "1990-01-01"}],
            "payment_methods": [{"payment_id": "credit_card_4421486", "amount": 122}],
            "total_baggages": 2,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    )
    user = _call(db, "get_user_details", {"user_id": "mia_li_3668"})
    assert user["reservations"] == [*LISTED, booked["reservation_id"]]


def test_the_export_gives_the_list_back_as_written(tmp_path) -> None:
    db, _ = _seeded(tmp_path, fixture())
    exported = invoke_cli("export", "--db", str(db))
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout) == fixture()


@pytest.mark.parametrize("absent", [True, False], ids=["absent", "null"])
def test_a_user_without_a_second_address_line(tmp_path, absent: bool) -> None:
    data = fixture()
    data["users"]["mia_li_3668"]["reservations"] = [HELD]  # nothing else odd
    address = data["users"]["mia_li_3668"]["address"]
    if absent:
        del address["address2"]
    else:
        address["address2"] = None
    db, seeded = _seeded(tmp_path, data)
    assert seeded.returncode == 0, seeded.stderr
    assert "warning" not in seeded.stderr
    user = _call(db, "get_user_details", {"user_id": "mia_li_3668"})
    assert user["address"]["address2"] is None and user["reservations"] == [HELD]


def test_a_list_that_is_no_list_of_ids_is_one_line(tmp_path) -> None:
    data = fixture()
    data["users"]["mia_li_3668"]["reservations"] = "NO6JO3"
    _, seeded = _seeded(tmp_path, data)
    assert seeded.returncode == 1
    assert (
        seeded.stderr.strip()
        .splitlines()[-1]
        .endswith("users.mia_li_3668.reservations: not a list of ids")
    )
    assert "Traceback" not in seeded.stderr
