"""Rows a write changed, in words: "reservation EHGLP3: status active → cancelled".

Values are worded as the approval preview words them (tools/describe.py: a null
reservation status is "active"); a value the row did not have before is "(new)", one it
no longer has "(removed)"; an inserted row says what it is in the airline's words ("…
inserted, refund $523 to gift_card_… (reservation GWL0HE)"), a deleted one that it went.
"""

from __future__ import annotations

from typing import Any

from airline_agent.tools.describe import describe_row_change, value_words
from airline_agent.tools.outcome import RowChange

VALUE_CHARS = 40  # a long value (a list of flights) is cut; the details show it whole
_ABSENT = object()


def describe_change(change: RowChange) -> str:
    """One line per changed row: the table, the key and each field before → after."""
    where = f"{change.table} {change.key}"
    if change.before is None:
        words = describe_row_change(change)
        return f"{where}: inserted" + (f", {words}" if words else "")
    if change.after is None:
        return f"{where}: deleted"
    fields = [
        f"{name} {_value(change, name, change.before)} → {_value(change, name, change.after)}"
        for name in _changed_fields(change.before, change.after)
    ]
    return f"{where}: " + ("; ".join(fields) if fields else "unchanged")


def _changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    names = list(before) + [name for name in after if name not in before]
    return [name for name in names if before.get(name, _ABSENT) != after.get(name, _ABSENT)]


def _value(change: RowChange, name: str, row: dict[str, Any]) -> str:
    if name not in row:
        return "(new)" if row is change.before else "(removed)"
    text = value_words(change.table, name, row[name])
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"
