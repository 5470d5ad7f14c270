"""The documentation's showcase, copied from the τ²-bench reference data (facts carry
over): customer `emma_kim_9957` with her four reservations, among them `EHGLP3`
(PHX → SEA → JFK on 2024-05-17), and the routes and times of the flights they use.

Every sample database contains these records exactly, so the README, the scenarios and
the tests can rely on them whatever the seed.
"""

from __future__ import annotations

# flight number: origin, destination, scheduled departure, scheduled arrival.
SHOWCASE_FLIGHTS: dict[str, tuple[str, str, str, str]] = {
    "HAT156": ("PHX", "SEA", "07:00:00", "10:00:00"),
    "HAT021": ("SEA", "JFK", "19:00:00", "01:00:00+1"),
    "HAT102": ("ATL", "LAS", "21:00:00", "01:00:00+1"),
    "HAT137": ("LAS", "MCO", "07:00:00", "11:00:00"),
    "HAT299": ("MCO", "LAS", "01:00:00", "05:00:00"),
    "HAT005": ("LAS", "ATL", "13:00:00", "17:00:00"),
    "HAT043": ("EWR", "CLT", "15:00:00", "17:00:00"),
    "HAT167": ("CLT", "DTW", "18:00:00", "20:00:00"),
    "HAT210": ("DTW", "MSP", "06:00:00", "08:00:00"),
    "HAT141": ("MSP", "EWR", "14:00:00", "17:00:00"),
    "HAT245": ("LGA", "PHX", "00:00:00", "04:30:00"),
    "HAT173": ("PHX", "LAS", "09:00:00", "10:00:00"),
}

# The two flights of EHGLP3 on its travel date, as the reference has them.
SHOWCASE_FLIGHT_DATES: dict[tuple[str, str], dict] = {
    ("HAT156", "2024-05-17"): {
        "status": "available",
        "available_seats": {"basic_economy": 11, "economy": 16, "business": 4},
        "prices": {"basic_economy": 63, "economy": 171, "business": 244},
    },
    ("HAT021", "2024-05-17"): {
        "status": "available",
        "available_seats": {"basic_economy": 15, "economy": 16, "business": 16},
        "prices": {"basic_economy": 87, "economy": 143, "business": 454},
    },
}

SHOWCASE_USER: dict = {
    "user_id": "emma_kim_9957",
    "name": {"first_name": "Emma", "last_name": "Kim"},
    "address": {
        "address1": "109 Willow Lane",
        "address2": "Suite 171",
        "city": "Philadelphia",
        "country": "USA",
        "state": "PA",
        "zip": "19151",
    },
    "email": "emma.kim3947@example.com",
    "dob": "1977-09-23",
    "payment_methods": {
        "credit_card_5832574": {
            "source": "credit_card",
            "id": "credit_card_5832574",
            "brand": "visa",
            "last_four": "5241",
        },
        "gift_card_9562694": {"source": "gift_card", "id": "gift_card_9562694", "amount": 103.0},
    },
    "saved_passengers": [
        {"first_name": "Mason", "last_name": "Gonzalez", "dob": "1952-04-21"},
        {"first_name": "Aarav", "last_name": "Taylor", "dob": "1983-05-15"},
    ],
    "membership": "gold",
    "reservations": ["EHGLP3", "66EEUA", "MDCLVA", "H1QGCY"],
}


def _segment(origin: str, destination: str, number: str, date: str, price: int) -> dict:
    return {
        "origin": origin,
        "destination": destination,
        "flight_number": number,
        "date": date,
        "price": price,
    }


def _person(first: str, last: str, dob: str) -> dict:
    return {"first_name": first, "last_name": last, "dob": dob}


def _reservation(rid: str, origin: str, destination: str, flight_type: str, cabin: str,
                 flights: list[dict], passengers: list[dict], payment: tuple[str, int],
                 created_at: str, total_baggages: int) -> dict:  # fmt: skip
    return {
        "reservation_id": rid,
        "user_id": "emma_kim_9957",
        "origin": origin,
        "destination": destination,
        "flight_type": flight_type,
        "cabin": cabin,
        "flights": flights,
        "passengers": passengers,
        "payment_history": [{"payment_id": payment[0], "amount": payment[1]}],
        "created_at": created_at,
        "total_baggages": total_baggages,
        "nonfree_baggages": 0,
        "insurance": "no",
    }


_EMMA = _person("Emma", "Kim", "1977-09-23")

SHOWCASE_RESERVATIONS: list[dict] = [
    _reservation(
        "EHGLP3", "PHX", "JFK", "one_way", "basic_economy",
        [
            _segment("PHX", "SEA", "HAT156", "2024-05-17", 50),
            _segment("SEA", "JFK", "HAT021", "2024-05-17", 54),
        ],
        [_person("Evelyn", "Taylor", "1965-01-16"), _person("Anya", "Silva", "1971-11-22")],
        ("credit_card_5832574", 208), "2024-05-04T23:12:06", 0,
    ),
    _reservation(
        "66EEUA", "ATL", "MCO", "round_trip", "economy",
        [
            _segment("ATL", "LAS", "HAT102", "2024-05-13", 101),
            _segment("LAS", "MCO", "HAT137", "2024-05-14", 193),
            _segment("MCO", "LAS", "HAT299", "2024-05-15", 126),
            _segment("LAS", "ATL", "HAT005", "2024-05-15", 137),
        ],
        [_EMMA, _person("Mason", "Gonzalez", "1952-04-21")],
        ("gift_card_9562694", 1114), "2024-05-05T00:15:54", 1,
    ),
    _reservation(
        "MDCLVA", "EWR", "DTW", "round_trip", "basic_economy",
        [
            _segment("EWR", "CLT", "HAT043", "2024-05-15", 67),
            _segment("CLT", "DTW", "HAT167", "2024-05-15", 78),
            _segment("DTW", "MSP", "HAT210", "2024-05-18", 84),
            _segment("MSP", "EWR", "HAT141", "2024-05-18", 57),
        ],
        [_EMMA],
        ("credit_card_5832574", 286), "2024-05-07T18:40:38", 0,
    ),
    _reservation(
        "H1QGCY", "LGA", "LAS", "one_way", "economy",
        [
            _segment("LGA", "PHX", "HAT245", "2024-05-09", 181),
            _segment("PHX", "LAS", "HAT173", "2024-05-09", 158),
        ],
        [_person("Aarav", "Taylor", "1983-05-15")],
        ("gift_card_9562694", 339), "2024-05-01T18:42:14", 0,
    ),
]  # fmt: skip
