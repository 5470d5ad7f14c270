"""Row changes told in the airline's words (for previews and approval prompts)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from airline_agent.domain.cabins import CABINS
from airline_agent.tools.outcome import ColumnValue, RowChange, RowValues


def _number(value: ColumnValue) -> float:
    """A column that holds a number (an amount, a position), as one."""
    return float(value or 0)


def _words(value: ColumnValue) -> str:
    """A column that holds a word with underscores (`round_trip`), told with spaces."""
    return str(value).replace("_", " ")


def _place(row: RowValues) -> int:
    """A segment's or passenger's place in its reservation, counted from 1."""
    return int(_number(row["position"])) + 1


def _money(amount: ColumnValue) -> str:
    value = _number(amount)
    return f"${value:,.0f}" if value.is_integer() else f"${value:,.2f}"


def value_words(table: str, field: str, value: ColumnValue) -> str:
    """A field's value as a change is told (the approval preview, the TUI's trace)."""
    if value is None:
        # τ²'s reservations keep `status` null while a booking is active (only
        # "cancelled" is ever written): "status None → cancelled" told nobody anything.
        return "active" if (table, field) == ("reservation", "status") else "(none)"
    return value if isinstance(value, str) else json.dumps(value, default=str)


def describe_changes(name: str, changes: Sequence[RowChange]) -> str:
    lines = [
        describe_row_change(change) or f"{change.table} {change.key} changed" for change in changes
    ]
    paid = [
        _number(c.after["amount"])
        for c in changes
        if c.table == "payment" and c.before is None and c.after
    ]
    charged = sum(amount for amount in paid if amount > 0)
    refunded = -sum(amount for amount in paid if amount < 0)
    summary = f"{name} would change {len(changes)} record(s)"
    if charged:
        summary += f"; total charged {_money(charged)}"
    if refunded:
        summary += (
            f"; total refunded {_money(refunded)} (to the original methods, 5–7 business days)"
        )
    if not lines:
        return f"{name} would change nothing."
    return summary + ":\n" + "\n".join(f"- {line}" for line in lines)


def describe_row_change(change: RowChange) -> str | None:
    """One changed row in the airline's words ("refund $523 to gift_card_… (reservation
    GWL0HE)"); None for a table these words do not cover."""
    before, after = change.before, change.after
    row = after or before or {}
    match change.table:
        case "reservation":
            if before is None:
                return (
                    f"new reservation {row['reservation_id']}: "
                    f"{row['origin']} → {row['destination']}, "
                    f"{_words(row['flight_type'])}, {_words(row['cabin'])}, "
                    f"{row['total_baggages']} bag(s) ({row['nonfree_baggages']} paid), "
                    f"insurance {row['insurance']}"
                )
            return f"reservation {row['reservation_id']}: " + _fields(change)
        case "reservationflight":
            where = f"reservation {row['reservation_id']} segment {_place(row)}"
            if before is None:
                return (
                    f"{where}: {row['flight_number']} on {row['date']} "
                    f"({row['origin']} → {row['destination']}) "
                    f"at {_money(row['price'])} per passenger"
                )
            if after is None:
                return f"{where}: {row['flight_number']} on {row['date']} removed"
            return f"{where}: " + _fields(change)
        case "reservationpassenger":
            where = f"reservation {row['reservation_id']} passenger {_place(row)}"
            if before is None:
                return f"{where}: {row['first_name']} {row['last_name']} (born {row['dob']})"
            return f"{where}: " + _fields(change)
        case "payment":
            amount, where = _number(row["amount"]), f"reservation {row['reservation_id']}"
            if amount >= 0:
                return f"charge {_money(amount)} to {row['payment_id']} ({where})"
            return f"refund {_money(-amount)} to {row['payment_id']} ({where})"
        case "paymentmethod":
            method = row["payment_id"]
            if before is None:
                worth = _money(row["amount"])
                return f"add {method} worth {worth} to {row['user_id']}'s payment methods"
            if after is None:
                return f"use up {method} ({_money(row['amount'])}; any remainder is lost)"
            return f"{method} balance {_money(before['amount'])} → {_money(after['amount'])}"
        case "flightdate":
            seats = [
                f"{_words(cabin)} seats {before[f'seats_{cabin}']} → {after[f'seats_{cabin}']}"
                for cabin in CABINS
                if before and after and before[f"seats_{cabin}"] != after[f"seats_{cabin}"]
            ]
            return f"flight {row['flight_number']} on {row['date']}: " + ", ".join(
                seats or ["updated"]
            )
    return None


def _fields(change: RowChange) -> str:
    before, after = change.before or {}, change.after or {}
    changed = [
        f"{field} {value_words(change.table, field, before.get(field))} → "
        f"{value_words(change.table, field, after.get(field))}"
        for field in after
        if before.get(field) != after.get(field)
    ]
    return ", ".join(changed) or "unchanged"
