"""The system prompt carries the key rules, the domain clock and the no-invention rule."""

from __future__ import annotations

import re

from airline_agent.agent.prompt import build_system_prompt
from airline_agent.domain.clock import Clock

PROMPT = build_system_prompt(Clock.at("2024-05-15T15:00:00"))


def test_it_says_who_the_agent_is():
    assert "customer-service agent of an airline" in PROMPT


def test_it_gives_the_domain_clock_not_the_wall_clock():
    assert "2024-05-15 15:00" in PROMPT
    assert "2031-01-02 08:30" in build_system_prompt(Clock.at("2031-01-02T08:30:00"))


def test_it_forbids_inventing_ids_prices_dates_flights_and_rules():
    text = PROMPT.lower()
    assert "never invent" in text
    for word in ("reservation id", "flight number", "date", "price", "rule"):
        assert word in text


def test_every_policy_rule_id_is_present():
    ids = set(re.findall(r"\b([CIBMXP]\d)\b", PROMPT))
    expected = {f"C{i}" for i in (1, 2, 3, 4, 5, 6)} | {"I1", "I2"}
    expected |= {f"B{i}" for i in range(1, 7)} | {f"M{i}" for i in range(1, 8)}
    expected |= {f"X{i}" for i in range(1, 5)} | {f"P{i}" for i in range(1, 6)}
    assert expected <= ids


def test_key_facts_of_the_rules():
    assert 'explicit "yes"' in PROMPT  # C2
    assert "Basic economy flights cannot be changed" in PROMPT  # M1
    assert "$50" in PROMPT and "$30 per passenger" in PROMPT and "$100 per passenger" in PROMPT
    assert "At most 5 passengers" in PROMPT
    assert "within the last 24 hours" in PROMPT


def test_one_call_at_a_time_is_configurable():
    assert "at most one tool call at a time" in PROMPT
    relaxed = build_system_prompt(Clock.at(), one_call_at_a_time=False)
    assert "at most one tool call at a time" not in relaxed
    assert "several independent tools" in relaxed


def test_an_identified_customer_is_named():
    assert "emma_kim_9957" in build_system_prompt(Clock.at(), "emma_kim_9957")
    assert "identified as" not in PROMPT


def test_the_rules_left_to_the_prompt_are_stated_in_the_lean_prompt():
    # tools/guard.py's docstring says which rules only the prompt enforces; the lean
    # prompt may shorten the others (a call that breaks one is refused with its id) but
    # must state each of these as an instruction of its own.
    from airline_agent.tools import guard

    left = guard.__doc__.split("Left to the prompt", 1)[1]
    ids = set(re.findall(r"\b([CIBMXP]\d)\b", left))
    assert {"C2", "C3", "C4", "C6", "P1", "P5", "X1", "B5", "B6"} <= ids
    lines = {line.split(" ", 1)[0] for line in PROMPT.splitlines()}
    assert ids <= lines, ids - lines
