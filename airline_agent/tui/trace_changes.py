"""Rows a write changed, in words: "reservations EHGLP3: status active → cancelled".

A value the row did not have before is "(new)", one it no longer has "(removed)"; an
inserted or deleted row says so. τ²'s reservations keep `status` null while a booking
is active (only "cancelled" is ever written), so a null status reads "active".
"""

from __future__ import annotations

import json
from typing import Any

from airline_agent.tools.outcome import RowChange

VALUE_CHARS = 40  # a long value (a list of flights) is cut; the details show it whole
_ABSENT = object()


def describe_change(change: RowChange) -> str:
    """One line per changed row: the table, the key and each field before → after."""
    where = f"{change.table} {change.key}"
    if change.before is None:
        return f"{where}: inserted"
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
    value = row[name]
    if value is None:
        return "active" if (change.table, name) == ("reservations", "status") else "(none)"
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"
