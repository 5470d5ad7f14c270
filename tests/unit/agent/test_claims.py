"""Claimed actions (agent/claims.py) cover every write the tools can make — read from the
registry, not a list of names — and what no tool may do, which is flagged whatever was
called (issue 19 item 21)."""

from __future__ import annotations

import pytest

from airline_agent.agent.claims import BACKING, IMPOSSIBLE, backing, claimed_actions, write_tools
from airline_agent.agent.grounding import Evidence, ground_reply
from airline_agent.tools import airline as _airline  # noqa: F401  (registers the tools)
from airline_agent.tools.registry import REGISTRY

RESERVATION = '{"reservation_id": "RLIVUH", "cabin": "economy", "total_baggages": 1}'


def evidence(*calls: tuple[str, bool]) -> Evidence:
    given = Evidence(["mateo_ito_1609, reservation RLIVUH."])
    for name, ok in calls:
        given.add_tool_result(name, RESERVATION, ok=ok)
    return given


def claims(reply: str, *calls: tuple[str, bool]) -> list[str]:
    return [f.why for f in ground_reply(reply, evidence(*calls)) if f.kind == "claimed_action"]


def test_the_write_tools_are_the_registrys() -> None:
    marked = {name for name, spec in REGISTRY.items() if spec.write}
    assert set(write_tools()) == marked and len(marked) >= 6
    assert set(backing("reservation change")) == marked


def test_every_write_tool_backs_a_claim_of_its_own() -> None:
    backed = {tool for tools in BACKING.values() for tool in tools}
    assert set(write_tools()) <= backed


@pytest.mark.parametrize(
    ("reply", "tool"),
    [
        ("I've upgraded you to business on RLIVUH.", "update_reservation_flights"),
        ("Your cabin has been changed to business.", "update_reservation_flights"),
        ("I've processed the payment with your gift card.", "book_reservation"),
        ("I've added travel insurance to your booking.", "book_reservation"),
        ("I've added Liam to the booking.", "book_reservation"),
        ("I've updated the bags on RLIVUH.", "update_reservation_baggages"),
    ],
)
def test_a_write_claim_is_backed_by_its_tools_call_only(reply: str, tool: str) -> None:
    assert claims(reply) != []  # no call: flagged
    assert claims(reply, (tool, False)) != []  # a failed call backs nothing
    assert claims(reply, (tool, True)) == []


def test_a_claim_the_policy_forbids_after_booking_names_its_rule() -> None:
    [why] = claims("I've added a passenger to RLIVUH.")
    assert "M6" in why and "book_reservation" in why
    [why] = claims("I've added travel insurance to RLIVUH.")
    assert "M5" in why


@pytest.mark.parametrize(
    ("reply", "rule"),
    [
        ("I've removed one checked bag from RLIVUH.", "M5"),
        ("I removed Anya Silva from the reservation RLIVUH.", "M6"),
        ("I've changed your basic economy flights to May 24.", "M1"),
        ("I've changed your destination to Boston.", "M2"),
        ("I've refunded the $50 to a different card.", "X4"),
    ],
)
def test_what_the_policy_forbids_is_flagged_even_after_a_write_succeeded(
    reply: str, rule: str
) -> None:
    every_write = [(name, True) for name in write_tools()]
    [why] = claims(reply, *every_write)
    assert rule in why and "the policy forbids it" in why


@pytest.mark.parametrize(
    "reply",
    [
        "I've waived the bag fee.",
        "I applied a 10% discount to your booking.",
        "I've assigned you seat 14C.",
        "I've sent a confirmation email to you.",
        "I've updated your email address.",
        "I've requested a wheelchair for you.",
        "I've put a hold on the fare.",
    ],
)
def test_what_no_tool_does_is_flagged_whatever_was_called(reply: str) -> None:
    every_tool = [(name, True) for name in REGISTRY]
    [why] = claims(reply, *every_tool)
    assert "no tool" in why


@pytest.mark.parametrize(
    "reply",
    [
        "I can't remove a bag: bags can be added, never removed.",
        "Would you like me to add travel insurance? It can only be bought with a booking.",
        "The number of passengers cannot change.",
        "If I upgraded you, the difference would be charged to your gift card.",
        "I haven't removed anything from RLIVUH.",
        "Refunds go back to the original payment method.",
    ],
)
def test_the_same_words_as_an_offer_a_rule_or_a_negation_claim_nothing(reply: str) -> None:
    assert claimed_actions(reply) == []


def test_each_impossible_action_has_a_reason_and_no_backing() -> None:
    assert set(IMPOSSIBLE).isdisjoint(BACKING)
    assert all(reason for reason in IMPOSSIBLE.values())


def _every_match(text: str) -> list[tuple[str, int, int]]:
    """Each claim pattern's `finditer` over the whole text, in order: what the check
    finds without trying patterns only where they can match."""
    import re

    from airline_agent.agent.claims import _PATTERNS

    return [
        (action, m.start(), m.end())
        for action, pattern in _PATTERNS
        for m in re.compile(pattern, re.I).finditer(text)
    ]


def test_patterns_are_tried_only_where_they_can_match_and_find_all_they_would() -> None:
    from airline_agent.agent.claims import _matches
    from tests.unit.agent.grounding_corpus import HONEST, INVENTED

    texts = [case.reply for case in (*HONEST, *INVENTED)]
    texts += ["We have been added to it. I've removed your bag; I\u0131 we'd ", "ı have booked it"]
    matched = 0
    for text in texts:
        found = [(action, m.start(), m.end()) for action, m in _matches(text)]
        assert found == _every_match(text), text
        matched += bool(found)
    assert matched > len(texts) // 3  # the corpus claims a great deal: the test compares
