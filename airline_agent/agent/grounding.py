"""The grounding check (policy C3): values in a reply that nothing in the conversation gave.

Looks for reservation ids, flight numbers, user ids, payment method ids, dollar amounts
and dates in the agent's reply, and names those that appear in no piece of evidence
(tool results, customer messages, and the system prompt's rules). It is a warning for
the person watching, not a filter: a sum the model worked out itself is flagged too, so
that it can be checked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

_FLIGHT = re.compile(r"\bHAT\d{3}\b")
_USER = re.compile(r"\b[a-z]+_[a-z]+_\d{4}\b")
_PAYMENT = re.compile(r"\b(?:credit_card|gift_card|certificate)_\d+\b")
_RESERVATION = re.compile(r"\b[A-Z0-9]{6}\b")
# An all-letter code counts as a reservation id only right after a word that names one;
# otherwise a shouted "PLEASE" would be flagged.
_RESERVATION_CUE = re.compile(
    r"(?:reservation|booking|confirmation|record locator|code|id)\W{0,12}$", re.I
)
_AMOUNT = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})(?!\d)")  # also inside "…T15:00:00"
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH_NAMES = "|".join([*_MONTHS, *(m[:3] for m in _MONTHS if len(m) > 3), "sept"])
_WORD_DATE = re.compile(
    rf"\b({_MONTH_NAMES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.I
)
_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_NAMES})\.?(?:\s+(\d{{4}}))?\b", re.I
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _month(name: str) -> int:
    name = name.lower().rstrip(".")
    return 9 if name == "sept" else [m[:3] for m in _MONTHS].index(name[:3]) + 1


Day = tuple[int, int, int | None]  # (month, day, year or None)


def _dates(text: str) -> list[tuple[str, Day]]:
    """(as written, (month, day, year or None)) for every date in the text."""
    found = [
        (m.group(0), (int(m.group(2)), int(m.group(3)), int(m.group(1))))
        for m in _ISO_DATE.finditer(text)
    ]
    for m in _WORD_DATE.finditer(text):
        year = int(m.group(3)) if m.group(3) else None
        found.append((m.group(0), (_month(m.group(1)), int(m.group(2)), year)))
    for m in _DAY_MONTH.finditer(text):
        year = int(m.group(3)) if m.group(3) else None
        found.append((m.group(0), (_month(m.group(2)), int(m.group(1)), year)))
    return found


def _numbers(text: str) -> set[float]:
    return {float(n) for n in _NUMBER.findall(text.replace(",", ""))}


class Evidence:
    """The texts the conversation gave, each read for numbers and dates once.

    A long conversation gives hundreds of tool results: scanning all of them again for
    every reply made the check, and so the turn, slower with every turn.
    """

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self._texts: list[str] = []
        self._found: list[tuple[set[float], set[Day]]] = []
        self._numbers: Counter[float] = Counter()
        self._dates: Counter[Day] = Counter()
        self._days: Counter[tuple[int, int]] = Counter()
        self._corpus: str | None = ""
        for text in texts:
            self.add(text)

    def add(self, text: str) -> None:
        numbers = _numbers(text)
        dates = {when for _, when in _dates(text)}
        self._texts.append(text)
        self._found.append((numbers, dates))
        self._count(numbers, dates, 1)
        self._corpus = None

    def pop(self) -> str:
        """Take back the latest text (a message the model never answered)."""
        numbers, dates = self._found.pop()
        self._count(numbers, dates, -1)
        self._corpus = None
        return self._texts.pop()

    def _count(self, numbers: set[float], dates: set[Day], step: int) -> None:
        for counter, keys in (
            (self._numbers, numbers),
            (self._dates, dates),
            (self._days, {(month, day) for month, day, _ in dates}),
        ):
            for key in keys:
                counter[key] += step
                if counter[key] <= 0:
                    del counter[key]

    def mentions(self, value: str) -> bool:
        if self._corpus is None:
            self._corpus = "\n".join(self._texts)
        return value in self._corpus

    def has_number(self, value: float) -> bool:
        return value in self._numbers

    def has_date(self, month: int, day: int, year: int | None) -> bool:
        return (month, day, year) in self._dates if year else (month, day) in self._days


def unsupported_values(reply: str, evidence: Evidence | Iterable[str]) -> tuple[str, ...]:
    """The values in `reply` that appear in none of the `evidence` texts, in reply order."""
    given = evidence if isinstance(evidence, Evidence) else Evidence(evidence)
    flagged: list[tuple[int, str]] = []

    def flag(position: int, value: str) -> None:
        if all(value != seen for _, seen in flagged):
            flagged.append((position, value))

    for pattern in (_FLIGHT, _USER, _PAYMENT):
        for m in pattern.finditer(reply):
            if not given.mentions(m.group(0)):
                flag(m.start(), m.group(0))
    for m in _RESERVATION.finditer(reply):
        code = m.group(0)
        if code.isdigit() or given.mentions(code):
            continue
        if code.isalpha() and not _RESERVATION_CUE.search(reply[: m.start()]):
            continue
        flag(m.start(), code)

    for m in _AMOUNT.finditer(reply):
        value = float(m.group(1).replace(",", "") + (m.group(2) or ""))
        if not given.has_number(value):
            flag(m.start(), m.group(0))

    for written, (month, day, year) in _dates(reply):
        if not given.has_date(month, day, year):
            flag(reply.find(written), written)
    return tuple(value for _, value in sorted(flagged))
