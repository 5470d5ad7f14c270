"""Ids: finding a stored id the way the reference does, and making new ones.

Lookups tolerate case, accents and surrounding spaces. New ids follow the reference's
sequences (HATHAT, HATHAU, …; certificate_3221322, …), so the τ² replays get exactly
the ids the benchmark expects; a write computes them inside its transaction, under the
write lock (see `Database.write`), so concurrent writers never pick the same one.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from sqlalchemy import select, text
from sqlmodel import Session

from airline_agent.domain.errors import NotFound
from airline_agent.domain.read_snapshots import Reads
from airline_agent.domain.schema import Reservation

FIRST_RESERVATION_ID = "HATHAT"
FIRST_CERTIFICATE_NUMBER = 3221322

_reservation = Reservation.__table__.c


def lookup_key(key: str) -> str:
    """The form ids are compared in: stripped, accents removed, case folded."""
    decomposed = unicodedata.normalize("NFKD", key.strip())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


class IdColumn:
    """How to find a stored id: exactly, and case-insensitively (a scan, only on a miss)."""

    __slots__ = ("exact", "folded")

    def __init__(self, table: str, column: str) -> None:
        self.exact = f"SELECT {column} FROM {table} WHERE {column} = :key"
        self.folded = f"SELECT {column} FROM {table} WHERE lower({column}) = :key"


USER_ID = IdColumn('"user"', "user_id")
RESERVATION_ID = IdColumn("reservation", "reservation_id")
FLIGHT_NUMBER = IdColumn("flight", "flight_number")


def resolve(reads: Reads, column: IdColumn, key: str) -> str | None:
    """The stored id matching `key` exactly, then stripped, then by `lookup_key`."""
    if not isinstance(key, str):
        return None
    found = reads.value(column.exact, {"key": key})
    if found is not None:
        return found
    stripped = key.strip()
    if stripped != key and stripped:
        found = reads.value(column.exact, {"key": stripped})
        if found is not None:
            return found
    folded = lookup_key(key)
    if not folded:
        return None
    # Stored ids are ASCII, so SQL lower() equals casefold for them; a miss scans.
    return reads.value(column.folded, {"key": folded})


def require(reads: Reads, column: IdColumn, key: str, what: str) -> str:
    found = resolve(reads, column, key)
    if found is None:
        raise NotFound(f"{what} {key!r} not found")
    return found


# PostgreSQL: the transaction-level advisory lock that makes new reservation ids one at a
# time (any fixed 64-bit number; this one spells "airline!"). SQLite needs none: its
# write lock is the whole database.
RESERVATION_IDS_LOCK = 0x6169726C696E6521


def next_reservation_id(
    taken: Iterable[str] | None = None, *, session: Session | None = None
) -> str:
    """HATHAT, HATHAU, HATHAV, … (base-26 letters): the first one not yet used.

    In a write transaction on PostgreSQL, bookings first take RESERVATION_IDS_LOCK (held
    until they commit), so two of them never pick the same id, and ids follow commit
    order as on SQLite."""
    if session is not None and session.get_bind().dialect.name == "postgresql":
        session.connection().execute(
            text("SELECT pg_advisory_xact_lock(:key)"), {"key": RESERVATION_IDS_LOCK}
        )
    candidate = FIRST_RESERVATION_ID
    used = set(taken or ())
    while True:
        exists = candidate in used
        if not exists and session is not None:
            exists = (
                session.connection()
                .execute(select(_reservation.seq).where(_reservation.reservation_id == candidate))
                .first()
                is not None
            )
        if not exists:
            return candidate
        candidate = _next_code(candidate)


def _next_code(code: str) -> str:
    letters = list(code)
    for i in reversed(range(len(letters))):
        if letters[i] != "Z":
            letters[i] = chr(ord(letters[i]) + 1)
            return "".join(letters)
        letters[i] = "A"
    return "A" + "".join(letters)


def next_certificate_id(existing: Iterable[str]) -> str:
    """certificate_3221322, certificate_3221323, …: the first the customer does not hold."""
    held = set(existing)
    number = FIRST_CERTIFICATE_NUMBER
    while f"certificate_{number}" in held:
        number += 1
    return f"certificate_{number}"
