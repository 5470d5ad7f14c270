"""The simulated customer's messages are checked with the grounding engine pointed the
other way: a fact that neither its instructions nor the call gave is "invented"."""

from __future__ import annotations

from airline_agent.evaluation.customer_check import CustomerCheck

INSTRUCTIONS = (
    "You want to cancel reservation EHGLP3.",
    "You are Emma Kim.\nYour user id is emma_kim_9957. Your email is emma.kim@example.com.",
)


def test_what_the_instructions_give_is_not_invented() -> None:
    check = CustomerCheck(INSTRUCTIONS)
    said = "Hi, I'm Emma Kim (emma_kim_9957, emma.kim@example.com); please cancel EHGLP3."
    assert check.said(said) == ()


def test_an_id_never_given_is_invented_once() -> None:
    check = CustomerCheck(INSTRUCTIONS)
    (found,) = check.said("My other reservation is ZZ9QX7.")
    assert (found.kind, found.value, found.turn) == ("reservation_id", "ZZ9QX7", 1)
    assert "the customer invented reservation id ZZ9QX7" in found.describe()
    assert check.said("As I said, ZZ9QX7.") == ()  # flagged where it was first invented


def test_what_the_agent_said_may_be_repeated() -> None:
    check = CustomerCheck(INSTRUCTIONS)
    check.heard("Your flight HAT156 on May 17 costs $208.")
    assert check.said("So HAT156 on May 17 for $208, fine.") == ()


def test_amounts_dates_emails_and_names_are_checked() -> None:
    check = CustomerCheck(INSTRUCTIONS)
    kinds = {
        f.kind: f.value
        for f in check.said(
            "I paid $750 on May 3; write to emma@other.org. The passenger is Noah Brown."
        )
    }
    assert kinds == {
        "amount": "$750",
        "date": "May 3",
        "email": "emma@other.org",
        "name": "Noah Brown",
    }
