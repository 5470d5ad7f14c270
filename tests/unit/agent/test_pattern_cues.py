"""The words an expression cannot match without (agent/pattern_cues.py)."""

from __future__ import annotations

import re

import pytest

from airline_agent.agent.pattern_cues import cues


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"\bhas\s+been\s+sent\b", {"been"}),  # the longest run of letters
        (r"(?:cancell?ed|refunded)\b", {"cancel", "refunded"}),  # one of each alternative
        (r"(?:travel\s+)?insurance", {"insurance"}),  # what is optional requires nothing
        (r"(?:ab|[xy])c", None),  # one alternative requires nothing: nor does the whole
        (r"(?-i:HAT)\d{3}", {"hat"}),  # lowercased, as looked for in lowercased text
        (r"(?:seat\s+){1,2}", {"seat"}),  # a repeat of at least once requires its part
        (r"x(?=been)", None),  # a look-ahead consumes nothing: not counted
        (r"\$\s?\d+", {"$"}),  # one sign is a word; one letter or digit is none
        (r"a\d", None),
    ],
)
def test_the_words_come_from_what_every_match_holds(pattern, words) -> None:
    assert cues(pattern, re.I) == (None if words is None else frozenset(words))


def test_every_claim_match_holds_one_of_its_patterns_words() -> None:
    from airline_agent.agent.claims import _PATTERNS
    from tests.unit.agent.grounding_corpus import HONEST, INVENTED

    matched = 0
    for _, pattern in _PATTERNS:
        words = cues(pattern, re.I)
        for case in (*HONEST, *INVENTED):
            for m in re.finditer(pattern, case.reply, re.I):
                matched += 1
                assert words is None or any(w in m.group(0).lower() for w in words), pattern
    assert matched > 50


def test_a_cued_scan_finds_what_a_full_scan_finds() -> None:
    from airline_agent.agent import grounding_values as values
    from airline_agent.agent.pattern_cues import finditer
    from tests.unit.agent.grounding_corpus import HONEST, INVENTED

    texts = [case.reply for case in (*HONEST, *INVENTED)]
    texts += ["Paid with gift ca\u0280d 123456", "ending in 1234", "HAT156", "\u017fent"]
    patterns = [values.FLIGHT, values.USER, values.PAYMENT, values.PAYMENT_IN_WORDS]
    patterns += [values.LAST_DIGITS, values.FLIGHT_IN_WORDS, values.AMOUNT, values.AMOUNT_IN_WORDS]
    found = 0
    for pattern in patterns:
        for text in texts:
            full = [m.span() for m in pattern.finditer(text)]
            assert [m.span() for m in finditer(pattern, text)] == full, (pattern, text)
            found += len(full)
    assert found > 20
