"""The generator's random draws and calendar, shared by its parts.

Every part draws from one `random.Random` in a fixed order, so a seed gives the same
rows byte for byte; changing the order of any draw changes every sample database.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from typing import TypeVar

FIRST_DATE = date(2024, 5, 1)
DAYS = 30
TODAY = 14  # index of 2024-05-15, the default clock's date
NOW_MINUTES = 15 * 60  # 15:00 on that date

# Day index -1 .. DAYS + 1 as strings: times may spill into the day before or after.
DATES = [(FIRST_DATE + timedelta(days=i)).isoformat() for i in range(-1, DAYS + 2)]

ID_CHARACTERS = string.ascii_uppercase + string.digits
# Random bytes → id characters in one `translate` (a slight bias towards the first
# characters is harmless for sample ids).
ID_TABLE = bytes(ord(ID_CHARACTERS[i % len(ID_CHARACTERS)]) for i in range(256))

T = TypeVar("T")
RandInt = Callable[[int, int], int]
Choice = Callable[[Sequence[T]], T]


def draws(rng: random.Random) -> tuple[RandInt, Choice, Callable[[], float]]:
    """randint, choice and random drawing from one float each: a large sample (`data
    generate` at a high scale) draws millions of values, and the stdlib's randint and
    choice (argument checks, rejection sampling) would be most of what its user waits for."""
    random_ = rng.random

    def randint(low: int, high: int) -> int:
        return low + int(random_() * (high - low + 1))

    def choice(items: Sequence[T]) -> T:
        return items[int(random_() * len(items))]

    return randint, choice, random_


def dob(rng: random.Random, first_year: int, last_year: int) -> str:
    r = rng.random
    year = first_year + int(r() * (last_year - first_year + 1))
    return f"{year}-{1 + int(r() * 12):02d}-{1 + int(r() * 28):02d}"
