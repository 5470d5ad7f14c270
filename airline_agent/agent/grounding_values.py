"""The values a text states: ids, flight numbers, amounts, dates and times, as written.

Shared by both sides of the grounding check: a reply is read for what it claims, a piece
of evidence for what it gives. Only the standard library (and agent/pattern_cues.py, which
uses nothing else): the loop imports this on every turn and nothing here needs more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from airline_agent.agent import pattern_cues as cued

FLIGHT = re.compile(r"\bHAT\d{3}\b")
USER = re.compile(r"\b[a-z]+_[a-z]+_\d{4}\b")
PAYMENT = re.compile(r"\b(?:credit_card|gift_card|certificate)_\d+\b")
RESERVATION = re.compile(r"\b[A-Z0-9]{6}\b")
# An all-letter code counts as a reservation id only right after a word that names one;
# otherwise a shouted "PLEASE" would be flagged.
RESERVATION_CUE = re.compile(
    r"(?:reservation|booking|confirmation|record locator|code|id)\W{0,12}$", re.I
)
# Ids written in words, as a model tells them to a person: "credit card 7815826",
# "certificate no. 3221322", "flight 156", "the card ending in 2669".
_ID_NUMBER = r"(?:number\s+|no\.?\s*|id\s+|#\s*)?"
PAYMENT_IN_WORDS = re.compile(
    rf"\b(?:(credit|gift)[\s-]card|(?:travel\s+)?(certificate))\s+{_ID_NUMBER}(\d{{4,}})\b", re.I
)
LAST_DIGITS = re.compile(r"\bending\s+(?:in\s+|with\s+)?(\d{4})\b", re.I)
FLIGHT_IN_WORDS = re.compile(rf"\bflight\s+{_ID_NUMBER}(\d{{3}})\b", re.I)

_DOLLARS = r"(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?"
AMOUNT = re.compile(rf"\$\s?{_DOLLARS}")
# "100 dollars", "USD 100", "100 USD": the same amount without the sign.
AMOUNT_IN_WORDS = re.compile(rf"\b{_DOLLARS}\s*(?:dollars|usd)\b|\busd\s*{_DOLLARS}", re.I)

ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})(?!\d)")  # also inside "…T15:00:00"
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
WORD_DATE = re.compile(
    rf"\b({_MONTH_NAMES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.I
)
DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_NAMES})\.?(?:\s+(\d{{4}}))?\b", re.I
)
# "10:00", "07:00:00", "7:30 pm", also inside "2024-05-12T13:08:10"; "7 am", "11pm".
CLOCK_TIME = re.compile(
    r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?!\d)(?:\s*([ap])(?:\.m\.|m\b))?", re.I
)
HOUR_TIME = re.compile(r"(?<![\d:.,])\b(1[0-2]|0?[1-9])\s*([ap])(?:\.m\.|m\b)", re.I)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")

# What each kind of value cannot be written without, found far faster than the value:
# a text without it is not scanned for that kind (most texts hold no date and no time;
# every text of a conversation and every reply is read).
# Every way to write a month begins with one of these (looked for in lowercased text).
_MONTH_STEM = re.compile("|".join(m[:3] for m in _MONTHS))
# The hour's last digit, then CLOCK_TIME's colon or HOUR_TIME's am or pm.
_TIME_CUE = re.compile(r"\d(?::|\s*[ap])", re.I)

Day = tuple[int, int, int | None]  # (month, day, year or None)
Clock = tuple[int, int]  # (hour 0-23, minute)


def month_number(name: str) -> int:
    # casefold, not lower: the patterns match with re.I, which takes "ſep" for "sep".
    name = name.casefold().rstrip(".")
    return 9 if name == "sept" else [m[:3] for m in _MONTHS].index(name[:3]) + 1


def _may_name_a_month(text: str) -> bool:
    if not text.isascii():
        return True  # re.I matches a few other letters too ("ſep"): the patterns decide
    return _MONTH_STEM.search(text.lower()) is not None


def dates(text: str) -> list[tuple[int, str, Day]]:
    """(position, as written, (month, day, year or None)) for every date in the text."""
    found: list[tuple[int, str, Day]] = [
        (m.start(), m.group(0), (int(m.group(2)), int(m.group(3)), int(m.group(1))))
        for m in (ISO_DATE.finditer(text) if "-" in text else ())
    ]
    if not _may_name_a_month(text):
        return found
    for m in WORD_DATE.finditer(text):
        year = int(m.group(3)) if m.group(3) else None
        found.append((m.start(), m.group(0), (month_number(m.group(1)), int(m.group(2)), year)))
    for m in DAY_MONTH.finditer(text):
        year = int(m.group(3)) if m.group(3) else None
        found.append((m.start(), m.group(0), (month_number(m.group(2)), int(m.group(1)), year)))
    return found


@dataclass(frozen=True)
class WrittenTime:
    position: int
    written: str
    hour: int
    minute: int
    half: str | None  # "a" or "p" when written with am/pm

    def readings(self) -> set[Clock]:
        """The times of day it can mean: "7:00" is 07:00 or 19:00, "7 pm" only 19:00."""
        if self.half is not None:
            hour = self.hour % 12 + (12 if self.half == "p" else 0)
            return {(hour, self.minute)}
        if 1 <= self.hour <= 11:
            return {(self.hour, self.minute), (self.hour + 12, self.minute)}
        return {(self.hour, self.minute)}


def times(text: str) -> list[WrittenTime]:
    found: list[WrittenTime] = []
    if _TIME_CUE.search(text) is None:
        return found
    for m in CLOCK_TIME.finditer(text):
        half = m.group(3).lower() if m.group(3) else None
        found.append(
            WrittenTime(m.start(), m.group(0).strip(), int(m.group(1)), int(m.group(2)), half)
        )
    for m in HOUR_TIME.finditer(text):
        found.append(
            WrittenTime(m.start(), m.group(0).strip(), int(m.group(1)), 0, m.group(2).lower())
        )
    return found


def clock_times(text: str) -> set[Clock]:
    """The times of day a piece of evidence gives, as 24-hour (hour, minute)."""
    given: set[Clock] = set()
    for written in times(text):
        if written.half is None:
            given.add((written.hour, written.minute))
        else:
            given |= written.readings()
    return given


def numbers(text: str) -> set[float]:
    return {float(n) for n in NUMBER.findall(text.replace(",", ""))}


def amounts(text: str) -> list[tuple[int, str, float]]:
    """(position, as written, value) for every amount of money in the text."""
    found = []
    for m in cued.finditer(AMOUNT, text):  # a text without "$" is not read for it
        found.append((m.start(), m.group(0), _value(m.group(1), m.group(2))))
    for m in cued.finditer(AMOUNT_IN_WORDS, text):
        whole, cents = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        found.append((m.start(), m.group(0), _value(whole, cents)))
    return found


def _value(whole: str, cents: str | None) -> float:
    return float(whole.replace(",", "") + (cents or ""))
