"""Row changes told in the airline's words (tools/describe.py), one wording for the
approval preview and the trace: a null reservation status is "active", never `None`."""

from __future__ import annotations

from airline_agent.tools.describe import describe_changes, describe_row_change, value_words
from airline_agent.tools.outcome import RowChange

CANCELLED = RowChange(
    "reservation",
    "GWL0HE",
    {"reservation_id": "GWL0HE", "status": None},
    {"reservation_id": "GWL0HE", "status": "cancelled"},
)
REFUND = RowChange(
    "payment",
    "GWL0HE/1",
    None,
    {"reservation_id": "GWL0HE", "position": 1, "payment_id": "gift_card_9429371", "amount": -523},
)


def test_the_approval_preview_of_a_cancellation_never_says_none() -> None:
    # Issue 19 item 19: "reservation GWL0HE: status None → cancelled".
    preview = describe_changes("cancel_reservation", [REFUND, CANCELLED])
    assert "None" not in preview
    assert "- reservation GWL0HE: status active → cancelled" in preview
    assert "- refund $523 to gift_card_9429371 (reservation GWL0HE)" in preview


def test_a_missing_value_is_none_in_words_and_a_null_status_active() -> None:
    assert value_words("reservation", "status", None) == "active"
    assert value_words("reservation", "insurance", None) == "(none)"
    assert value_words("user", "status", None) == "(none)"
    assert value_words("reservation", "flights", [1, 2]) == "[1, 2]"


def test_an_inserted_row_of_an_unknown_table_has_no_words() -> None:
    assert describe_row_change(RowChange("t", "k", None, {"a": 1})) is None
    assert describe_changes("x", [RowChange("t", "k", None, {"a": 1})]).endswith("- t k changed")
