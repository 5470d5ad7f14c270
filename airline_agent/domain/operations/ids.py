"""Ids: finding a stored id the way the reference does, and making new ones.

Lookups tolerate case, accents and surrounding spaces. New ids follow the reference's
sequences (HATHAT, HATHAU, …; certificate_3221322, …), so the τ² replays get exactly
the ids the benchmark expects; a write computes them inside its transaction, under the
write lock (see `Database.write`), so concurrent writers never pick the same one.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from sqlalchemy import func
from sqlalchemy.orm import Mapped
from sqlmodel import Session, col, select

from airline_agent.domain.errors import NotFound
from airline_agent.domain.schema import Flight, Reservation, User

FIRST_RESERVATION_ID = "HATHAT"
FIRST_CERTIFICATE_NUMBER = 3221322


def lookup_key(key: str) -> str:
    """The form ids are compared in: stripped, accents removed, case folded."""
    decomposed = unicodedata.normalize("NFKD", key.strip())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


# The columns ids are looked up in.
IdColumn = Mapped[str]
USER_ID: IdColumn = col(User.user_id)
RESERVATION_ID: IdColumn = col(Reservation.reservation_id)
FLIGHT_NUMBER: IdColumn = col(Flight.flight_number)


def resolve(session: Session, column: IdColumn, key: str) -> str | None:
    """The stored id matching `key` exactly, then stripped, then by `lookup_key`."""
    if not isinstance(key, str):
        return None
    found = session.scalar(select(column).where(column == key))
    return found if found is not None else resolve_tolerantly(session, column, key)


def resolve_tolerantly(session: Session, column: IdColumn, key: str) -> str | None:
    """The stored id matching `key` once stripped, then by `lookup_key`: for a key that
    was not found as it is."""
    stripped = key.strip()
    if stripped != key and stripped:
        found = session.scalar(select(column).where(column == stripped))
        if found is not None:
            return found
    folded = lookup_key(key)
    if not folded:
        return None
    # Stored ids are ASCII, so SQL lower() equals casefold for them; a miss scans.
    return session.scalar(select(column).where(func.lower(column) == folded))


def require(session: Session, column: IdColumn, key: str, what: str) -> str:
    found = resolve(session, column, key)
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
        session.execute(select(func.pg_advisory_xact_lock(RESERVATION_IDS_LOCK)))
    candidate = FIRST_RESERVATION_ID
    used = set(taken or ())
    while True:
        exists = candidate in used
        if not exists and session is not None:
            taken_now = select(col(Reservation.seq)).where(Reservation.reservation_id == candidate)
            exists = session.scalar(taken_now) is not None
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
