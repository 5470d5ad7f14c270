"""The airline's 20 airports: the fixed list of τ²-bench's `list_all_airports`.

The τ² db.json has no airport table, so both the τ² import and the sample generator
take the airports from here.
"""

from __future__ import annotations

AIRPORTS: tuple[tuple[str, str], ...] = (
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
)

AIRPORT_CODES: tuple[str, ...] = tuple(code for code, _ in AIRPORTS)


def airport_rows() -> list[dict]:
    """Rows for the `airport` table, in the order τ² lists them."""
    return [
        {"iata": code, "city": city, "position": position}
        for position, (code, city) in enumerate(AIRPORTS)
    ]
