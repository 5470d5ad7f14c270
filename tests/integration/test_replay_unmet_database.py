"""A scenario's database expectation is checked even when nothing changed (issue 14): a
cancellation that the guard refuses, or that the customer declines, while `database:`
expects `status: cancelled`, fails and names the record and the field."""

from __future__ import annotations

import pytest

from airline_agent.scenarios.dbdiff import MISSING
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.runner import replay_scenario

EXPECTS_CANCELLED = {"reservations": {"EHGLP3": {"status": "cancelled"}}}


def cancel_scenario(settings: dict, error: str) -> Scenario:
    """Emma asks to cancel EHGLP3; the one call fails with `error`; the file expects the
    reservation cancelled all the same."""
    return Scenario.model_validate(
        {
            "name": "cancel-expected-but-not-done",
            "customer": "emma_kim_9957",
            "settings": settings,
            "turns": [
                {
                    "customer": "Please cancel EHGLP3.",
                    "responses": [
                        {
                            "tool_calls": [
                                {
                                    "name": "cancel_reservation",
                                    "arguments": {
                                        "reservation_id": "EHGLP3",
                                        "reason": "change_of_plan",
                                    },
                                }
                            ]
                        },
                        {"content": "I could not cancel EHGLP3."},
                    ],
                    "expect": {"calls": [{"tool": "cancel_reservation", "error": error}]},
                }
            ],
            "database": EXPECTS_CANCELLED,
        }
    )


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({"guard": True}, "POLICY_VIOLATION"),  # X3: basic economy, booked long ago
        ({"guard": False, "approval": "ask-decline"}, "PERMISSION_DENIED"),
    ],
    ids=["refused-by-the-guard", "declined-by-the-customer"],
)
def test_an_expected_change_that_did_not_happen_fails_naming_record_and_field(
    settings: dict, error: str
) -> None:
    report = replay_scenario(cancel_scenario(settings, error))
    assert report.changes == []  # nothing changed: the call itself went as expected
    assert report.status == "failed", report.why()
    assert [str(f) for f in report.failures] == [
        'database: reservations EHGLP3 status: expected "cancelled", got <missing>'
    ]
    (failure,) = report.failures
    assert (failure.where, failure.what) == ("database", "reservations EHGLP3 status")
    assert (failure.expected, failure.actual) == ("cancelled", MISSING)  # active: no status
