"""The simulated customer's messages are checked with the grounding engine pointed the
other way: a fact that neither its instructions nor the call gave is "invented"."""

from __future__ import annotations

import pytest

from airline_agent.evaluation.customer_check import CustomerCheck, InventedFact

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


def test_times_of_day_and_claims_of_actions_are_no_invented_facts() -> None:
    """The grounding engine also flags times and claimed actions in an agent's reply; a
    customer's "in the morning at 9am" or "I cancelled it" states no fact of the task."""
    check = CustomerCheck(INSTRUCTIONS)
    assert check.said("I want to fly at 9:30 am, and I already cancelled it.") == ()


def test_each_kind_of_fact_is_named_in_its_finding() -> None:
    check = CustomerCheck(INSTRUCTIONS)
    found = check.said(
        "My reservation ZZ9QX7 on flight HAT999, user id noah_lee_1234, card "
        "credit_card_7777777, $12 on 2024-06-01."
    )
    assert {(f.kind, f.value) for f in found} >= {
        ("reservation_id", "ZZ9QX7"),
        ("flight_number", "HAT999"),
        ("user_id", "noah_lee_1234"),
        ("payment_id", "credit_card_7777777"),
        ("amount", "$12"),
    }
    assert any(f.kind == "date" for f in found)
    words = {f.kind: f.describe() for f in found}
    assert words["reservation_id"] == (
        "the customer invented reservation id ZZ9QX7 (message 1): neither its instructions "
        "nor the call so far gave it"
    )
    assert "invented flight number HAT999" in words["flight_number"]
    assert "invented user id noah_lee_1234" in words["user_id"]
    assert "invented payment method credit_card_7777777" in words["payment_id"]
    assert "invented amount $12" in words["amount"]
    assert "invented date" in words["date"]


def test_an_email_and_a_name_are_described_in_words() -> None:
    check = CustomerCheck(INSTRUCTIONS)
    check.said("Hello.")
    email, name = check.said("Write to zed@other.org. The passenger is Noah Brown.")
    assert (email.turn, name.turn) == (2, 2)
    assert email.describe().startswith("the customer invented email address zed@other.org")
    assert name.describe().startswith("the customer invented name Noah Brown (message 2)")
    assert (
        InventedFact("x", "shoe size", 2)
        .describe()
        .startswith("the customer invented shoe size x (message 2)")
    )


def test_messages_are_numbered_from_one() -> None:
    check = CustomerCheck(INSTRUCTIONS)
    assert check.turns == 0
    check.said("Hello.")
    check.said("Hello again.")
    (found,) = check.said("Reservation ZZ9QX7.")
    assert found.turn == 3 and check.turns == 3


def test_an_email_is_known_whatever_its_case_and_only_as_given() -> None:
    check = CustomerCheck(INSTRUCTIONS)
    assert check.said("It is EMMA.KIM@EXAMPLE.COM.") == ()
    (found,) = check.said("Or emma.kim@example.org.")
    assert (found.kind, found.value) == ("email", "emma.kim@example.org")
    check.heard("We wrote to support@airline.example.")
    assert check.said("I wrote to Support@Airline.example too.") == ()


@pytest.mark.parametrize(
    "said",
    [
        "My name is Noah Brown.",
        "my name's Noah Brown.",
        "I am Noah Brown.",
        "I'm Noah Brown.",
        "This is Noah Brown.",
        "The passenger Noah Brown.",
        "The passenger is Noah Brown.",
        "The traveler Noah Brown.",
        "The traveller is Noah Brown.",
        "MY NAME IS Noah Brown.",
    ],
)
def test_a_name_after_any_cue_is_checked(said: str) -> None:
    (found,) = CustomerCheck(INSTRUCTIONS).said(said)
    assert (found.kind, found.value) == ("name", "Noah Brown")


@pytest.mark.parametrize(
    "said",
    [
        "I am Emma Kim.",  # the instructions' name
        "I am emma KIM.",  # known whatever the case of its words
        "I am Noah.",  # one word is no name
        "I am happy Noah Brown.",  # the cue must be right before the name
        "My name is noah brown.",  # a name is capitalised
        "Kim Emma is the passenger.",
    ],
)
def test_what_is_no_new_name(said: str) -> None:
    assert CustomerCheck(INSTRUCTIONS).said(said) == ()


def test_a_name_is_new_when_any_of_its_words_is() -> None:
    (found,) = CustomerCheck(INSTRUCTIONS).said("The passenger is Emma Brown.")
    assert found.value == "Emma Brown"
    # a word is known as a word, not as part of one ("Kimberly" does not give "Kim")
    check = CustomerCheck(("You are Kimberly Emmanuel.",))
    (found,) = check.said("I am Emma Kim.")
    assert found.value == "Emma Kim"


def test_a_fact_stated_once_is_known_afterwards() -> None:
    check = CustomerCheck(INSTRUCTIONS)
    assert len(check.said("Write to zed@other.org; the passenger is Noah Brown.")) == 2
    assert check.said("Again: zed@other.org, and I am Noah Brown.") == ()


def test_what_the_agent_said_gives_names_and_emails_too() -> None:
    check = CustomerCheck(INSTRUCTIONS)
    check.heard("I see a passenger Noah Brown, reachable at noah@b.example.")
    assert check.said("Yes, the passenger is Noah Brown, at noah@b.example.") == ()
