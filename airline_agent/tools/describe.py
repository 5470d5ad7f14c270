"""Row changes told in the airline's words (for previews and approval prompts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from airline_agent.domain.schema import CABINS
from airline_agent.tools.outcome import RowChange


def _money(amount: Any) -> str:
    value = float(amount or 0)
    return f"${value:,.0f}" if value.is_integer() else f"${value:,.2f}"


def describe_changes(name: str, changes: Sequence[RowChange]) -> str:
    lines = [_describe(change) for change in changes]
    lines = [line for line in lines if line]
    charged = sum(
        c.after["amount"]
        for c in changes
        if c.table == "payment" and c.before is None and c.after and c.after["amount"] > 0
    )
    refunded = -sum(
        c.after["amount"]
        for c in changes
        if c.table == "payment" and c.before is None and c.after and c.after["amount"] < 0
    )
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


def _describe(change: RowChange) -> str:
    before, after = change.before, change.after
    row = after or before or {}
    match change.table:
        case "reservation":
            if before is None:
                return (
                    f"new reservation {row['reservation_id']}: "
                    f"{row['origin']} → {row['destination']}, "
                    f"{row['flight_type'].replace('_', ' ')}, {row['cabin'].replace('_', ' ')}, "
                    f"{row['total_baggages']} bag(s) ({row['nonfree_baggages']} paid), "
                    f"insurance {row['insurance']}"
                )
            return f"reservation {row['reservation_id']}: " + _fields(before, after)
        case "reservationflight":
            where = f"reservation {row['reservation_id']} segment {row['position'] + 1}"
            if before is None:
                return (
                    f"{where}: {row['flight_number']} on {row['date']} "
                    f"({row['origin']} → {row['destination']}) "
                    f"at {_money(row['price'])} per passenger"
                )
            if after is None:
                return f"{where}: {row['flight_number']} on {row['date']} removed"
            return f"{where}: " + _fields(before, after)
        case "reservationpassenger":
            where = f"reservation {row['reservation_id']} passenger {row['position'] + 1}"
            if before is None:
                return f"{where}: {row['first_name']} {row['last_name']} (born {row['dob']})"
            return f"{where}: " + _fields(before, after)
        case "payment":
            amount, where = row["amount"], f"reservation {row['reservation_id']}"
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
                f"{cabin.replace('_', ' ')} seats "
                f"{before[f'seats_{cabin}']} → {after[f'seats_{cabin}']}"
                for cabin in CABINS
                if before and after and before[f"seats_{cabin}"] != after[f"seats_{cabin}"]
            ]
            return f"flight {row['flight_number']} on {row['date']}: " + ", ".join(
                seats or ["updated"]
            )
    return f"{change.table} {change.key} changed"


def _fields(before: dict | None, after: dict | None) -> str:
    before, after = before or {}, after or {}
    changed = [
        f"{field} {before.get(field)!s} → {after.get(field)!s}"
        for field in after
        if before.get(field) != after.get(field)
    ]
    return ", ".join(changed) or "unchanged"
