"""Payments: paying for a booking, charging or refunding a change, certificates.

Balances change relative to what was read inside the write's transaction (under its
lock, see rows.py), so two charges to one gift card at the same moment both count, or
the second is refused because the first used the balance.
"""

from __future__ import annotations

from collections.abc import Sequence

from airline_agent.domain.errors import Conflict, NotFound
from airline_agent.domain.operations.ids import next_certificate_id
from airline_agent.domain.operations.rows import WriteRows, user_row
from airline_agent.domain.operations.values import PaymentLine
from airline_agent.domain.schema import PaymentMethod
from airline_agent.domain.tau2_shape import tau2_amount


def pay_for_booking(
    rows: WriteRows, user_id: str, lines: Sequence[PaymentLine], total_price: float
) -> None:
    """B4 as the reference checks it: every method in the profile, gift cards and the
    certificate covering their lines, the lines adding up to the price. Gift cards are
    debited; a certificate is used up whole (its remainder is lost)."""
    methods = rows.payment_methods(user_id)
    asked: dict[str, float] = {}
    for line in lines:
        method = methods.get(line.payment_id)
        if method is None:
            raise NotFound(f"Payment method {line.payment_id} not found in the customer's profile")
        asked[line.payment_id] = asked.get(line.payment_id, 0) + line.amount
        if (
            method.source in ("gift_card", "certificate")
            and (method.amount or 0) < asked[line.payment_id]
        ):
            raise Conflict(f"Not enough balance in payment method {line.payment_id}")
    paid = sum(line.amount for line in lines)
    if abs(paid - total_price) > 1e-6:
        raise Conflict(
            f"Payment amount does not add up, total price is {tau2_amount(total_price)}, "
            f"but paid {tau2_amount(paid)}"
        )
    for payment_id, amount in asked.items():
        method = methods[payment_id]
        if method.source == "gift_card":
            method.amount = (method.amount or 0) - amount
        elif method.source == "certificate":
            rows.remove_payment_method(method)  # B4: a certificate's remainder is lost


def charge_for_update(method: PaymentMethod | None, payment_id: str, amount: float) -> None:
    """The reference's payment rule for changes: the method must be in the profile, not
    a certificate, and a gift card must cover the amount (a refund credits it)."""
    if method is None:
        raise NotFound(f"Payment method {payment_id} not found in the customer's profile")
    if method.source == "certificate":
        raise Conflict("A certificate cannot be used to pay for a change to a reservation")
    if method.source == "gift_card":
        balance = method.amount or 0.0
        if balance < amount:
            raise Conflict(
                f"Gift card {payment_id} balance is not enough: "
                f"{tau2_amount(balance)} for {tau2_amount(amount)}"
            )
        method.amount = balance - amount


def send_certificate(rows: WriteRows, *, user_id: str, amount: int | float) -> str:
    """Add a travel certificate of `amount` to the customer's payment methods."""
    user = user_row(rows, user_id)
    methods = rows.payment_methods(user.user_id)
    certificate_id = next_certificate_id(methods)
    last = max((m.position for m in methods.values()), default=-1)
    rows.add_payment_method(
        PaymentMethod(
            user_id=user.user_id,
            payment_id=certificate_id,
            position=last + 1,
            source="certificate",
            amount=float(amount),
        )
    )
    rows.session.flush()
    return (
        f"Certificate {certificate_id} added to user {user.user_id} "
        f"with amount {tau2_amount(amount)}."
    )
