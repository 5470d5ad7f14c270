"""The one definition of the cabins (B2), read by the tools' schemas, the rules, the τ²
shape, the sample generator and the TUI's trace (FlightDate's seats_* and price_* columns
follow it).

Its own module, without SQLModel: the trace words a change by cabin, and the TUI's first
screen must not wait for the database's libraries (about half a second to import).
"""

from __future__ import annotations

from typing import Literal, get_args

Cabin = Literal["basic_economy", "economy", "business"]
CABINS: tuple[Cabin, ...] = get_args(Cabin)
