"""Actions a reply says the agent took: "I looked up", "I cancelled", "refunded", …

A model that answers without calling a tool often tells a story of the calls it did not
make (issue 12: "I looked up the reservation … I sent the certificate … The customer was
transferred"). A tool declares the claims its successful call backs (`@tool(claims=...)`,
tools/airline.py; the vocabulary is `tools.declarations.ClaimedAction`); the grounding
check compares them with the calls the conversation really made (`backing`). Every write
tool backs some claim: a booking, a cancellation, a flight, cabin, bag or passenger
change, a certificate, a payment or charge, and insurance or a passenger added with a
booking (the finding names M5 or M6, which forbid them after one); "I updated your
reservation" is backed by any of them (`write_tools`, the registry's `write=True`), and
"I looked it up" by any call that ran.

Some actions are claimed that no call may back (`IMPOSSIBLE`): what the policy forbids
after booking (removing a bag, insurance or a passenger, changing a basic-economy flight,
the route or the trip type, refunding to another method than the original) and what no
tool does at all (waiving a fee, a discount, a seat, an email, a profile change, a meal
or assistance, a hold). Such a claim is flagged whatever was called: with the guard off
a tool may even have done it, and the policy still forbids it.

Only the agent's own past or present actions count: "would you like me to cancel it?",
"once it is cancelled", "nothing was charged", "I can't remove a bag" and "the airline
cancelled your flight" claim nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache
from typing import Literal, NamedTuple, get_args

import airline_agent.tools.airline  # noqa: F401  (declares the tools in the registry)
from airline_agent.agent.pattern_cues import ascii_lowered, holds_all, required_words
from airline_agent.tools.declarations import ClaimedAction
from airline_agent.tools.registry import REGISTRY

Action = (
    ClaimedAction
    | Literal[
        "look-up",
        "reservation change",
        # What no call may back: the policy forbids it, or no tool does it.
        "bag removal",
        "insurance removal",
        "passenger removal",
        "basic economy flight change",
        "route change",
        "refund to another method",
        "fee waiver",
        "discount",
        "seat assignment",
        "email",
        "profile change",
        "special service",
        "hold",
    ]
)

# The tools whose successful call backs each claim, as they declare it, in the
# registry's order. A look-up is backed by any call that ran, whatever its result: "I
# looked it up and found no such reservation" is honest. "reservation change" is backed
# by any write tool (`write_tools`).
BACKING: dict[Action, tuple[str, ...]] = {
    "look-up": (),
    **{
        action: tuple(name for name, spec in REGISTRY.items() if action in spec.claims)
        for action in get_args(ClaimedAction)
    },
}
# The rule a backed claim runs into when its tool did not run (said in the finding).
RULES: dict[Action, str] = {
    "insurance addition": "M5: insurance is bought with a booking, never added after",
    "passenger addition": "M6: the number of passengers cannot change after booking",
}
# Why a claim of each of these is flagged whatever was called.
IMPOSSIBLE: dict[Action, str] = {
    "bag removal": "the policy forbids it (M5: bags can be added, never removed)",
    "insurance removal": "no tool removes insurance (M5: it is bought with a booking)",
    "passenger removal": "the policy forbids it (M6: the number of passengers cannot change)",
    "basic economy flight change": "the policy forbids it (M1: basic economy flights cannot "
    "be changed)",
    "route change": "the policy forbids it (M2: not the origin, destination or trip type)",
    "refund to another method": "the policy forbids it (X4: refunds go back to the original "
    "payment methods)",
    "fee waiver": "no tool waives a fee: the tools set every price",
    "discount": "no tool gives a discount: the tools set every price",
    "seat assignment": "no tool assigns seats",
    "email": "no tool sends email",
    "profile change": "no tool changes a customer's profile or payment methods",
    "special service": "no tool arranges meals or special assistance",
    "hold": "no tool holds a seat or a fare",
}


@cache
def write_tools() -> tuple[str, ...]:
    """The tools that change the database, as the registry marks them (`write=True`)."""
    return tuple(name for name, spec in REGISTRY.items() if spec.write)


def backing(action: Action) -> tuple[str, ...]:
    """The tools a successful call of which backs a claim of `action`."""
    return write_tools() if action == "reservation change" else BACKING[action]


# The agent as subject, with the words that may stand between it and its verb.
_AGENT = (
    r"\b(?:I|we)(?:\s*'(?:ve|m)|\s+(?:have|am|just|also|now|already|successfully|then|"
    r"gone ahead and|went ahead and))*\s+"
)
_OBJECT = r"(?:your|the|this|that|its|their|his|her)"
# "I was able to rebook you", "we managed to cancel it": done, in other words.
_ABLE_TO = r"\b(?:I|we)(?:\s+(?:was|were|have\s+been)|\s*'ve\s+been)?\s+(?:able|managed)\s+to\s+"
_CLAUSE = r"[^.;!?\n]{0,40}?"  # the rest of the same clause, briefly

_BAG = r"(?:checked\s+)?(?:bags?|baggages?|luggage|suitcases?)"
_INSURANCE = r"(?:travel\s+)?insurance"
_PERSON = r"(?:passengers?|travell?ers?|persons?|people|adults?|child(?:ren)?|infants?|guests?)"
_NAME = r"(?-i:[A-Z][a-z]+)(?:\s+(?-i:[A-Z][a-z]+))?"  # "Anya", "Anya Silva"
_RESERVATION = r"(?:(?:the|your|this)\s+)?(?:reservation|booking|trip)(?:\s+(?-i:[A-Z0-9]{6}))?"
_ON_RESERVATION = r"(?:" + _RESERVATION + r"|(?-i:[A-Z0-9]{6}))\b"
_CABIN = r"(?:basic[\s-]economy|economy|business)"
_REFUNDED = _AGENT + r"(?:refunded|(?:issued|processed|sent)\s+(?:a|" + _OBJECT + r")\s+refund)\b"
# Refunded where X4 forbids: to another method than the original, or as something else.
_ELSEWHERE = (
    r"[^.;!?\n]{0,60}?\b(?:(?:to|onto|into|on)\s+(?:a|an|your|the)\s+(?:different|other|"
    r"another|new|second)\b|instead\s+of\b|as\s+(?:a\s+)?(?:travel\s+)?(?:certificate|voucher|"
    r"credit|cash|gift\s+card)\b|in\s+cash\b)"
)

# A passenger added or taken off (M6): the verbs, and the word before the reservation.
_PASSENGER_VERBS: tuple[tuple[Action, str, str], ...] = (
    ("passenger removal", r"(?:removed|dropped|taken|took)", r"(?:from|off|of)"),
    ("passenger addition", r"added", r"(?:to|on)"),
)
# What "I was able to …" or "we managed to …" says was done.
_ABLE_TO_VERBS: tuple[tuple[Action, str], ...] = (
    ("look-up", r"(?:look\s+up|find|locate|confirm|verify|see)"),
    ("bag removal", r"remove\s+(?:\w+\s+){0,3}" + _BAG),
    ("fee waiver", r"waive"),
    ("booking", r"(?:book|reserve)"),
    ("cancellation", r"cancel"),
    ("cabin change", r"(?:upgrade|downgrade)"),
    ("flight change", r"(?:rebook|change|move|switch)"),
    ("bag change", r"add\s+(?:\w+\s+){0,3}(?:bags?|baggages?|luggage)"),
    (
        "certificate",
        r"(?:send|issue)\s+(?:you\s+)?(?:a|an|the)\s+(?:\w+\s+){0,2}certificate",
    ),
    ("transfer", r"transfer"),
    ("refund", r"refund"),
)

# In order: where two patterns match at one place, the first names the claim (what no
# tool may do before the write that looks like it: "I've removed a bag" before "I've
# added a bag", "I cancelled your insurance" before "I cancelled").
_PATTERNS: tuple[tuple[Action, str], ...] = (
    (
        "look-up",
        _AGENT + r"(?:looked\s+(?:up|into|at)|checked|pulled\s+up|found|verified|confirmed|"
        r"searched|retrieved|reviewed|located|can\s+(?:see|confirm))\b",
    ),
    (
        "look-up",
        _AGENT + r"(?:could\s*n[o']t|can(?:\s*no|')t|was\s+unable\s+to)\s+(?:find|locate)\b",
    ),
    ("look-up", r"\baccording\s+to\s+(?:our|the|my)\s+(?:records|system|database)\b"),
    ("calculation", _AGENT + r"(?:calculated|computed|worked\s+out)\b"),
    # -- what the policy forbids after booking, or no tool does --------------------------
    (
        "bag removal",
        _AGENT + r"(?:removed|taken\s+off|took\s+off|dropped|reduced)\s+(?:\w+\s+){0,3}" + _BAG,
    ),
    (
        "bag removal",
        r"\b" + _BAG + _CLAUSE + r"\b(?:has|have)\s+been\s+(?:removed|taken\s+off|reduced)\b",
    ),
    (
        "insurance removal",
        _AGENT
        + r"(?:removed|cancell?ed|dropped|taken\s+off|took\s+off)\s+(?:\w+\s+){0,2}"
        + _INSURANCE,
    ),
    (
        "insurance removal",
        r"\b" + _INSURANCE + _CLAUSE + r"\b(?:has|have)\s+been\s+(?:removed|cancell?ed|dropped)\b",
    ),
    (
        "insurance addition",
        _AGENT + r"(?:added|included|purchased|bought|applied)\s+(?:\w+\s+){0,2}" + _INSURANCE,
    ),
    (
        "insurance addition",
        r"\b" + _INSURANCE + _CLAUSE + r"\b(?:has|have)\s+been\s+(?:added|included|purchased|"
        r"applied)\b",
    ),
    ("insurance addition", r"\byou(?:'re|\s+are)\s+now\s+(?:insured|covered)\b"),
    ("bag change", _AGENT + r"added\s+(?:\w+\s+){0,3}" + _BAG + r"\b"),
    (
        "bag change",
        _AGENT
        + r"(?:updated|changed|increased)\s+"
        + _OBJECT
        + r"\s+(?:\w+\s+)?(?:"
        + _BAG
        + r"|bag\s+count|baggage\s+allowance)\b",
    ),
    (
        "bag change",
        r"\b(?:bags?|baggages?|luggage)\b"
        + _CLAUSE
        + r"\b(?:has|have)\s+been\s+(?:added|updated)\b",
    ),
    # A passenger added or taken off (M6); added, it may be a new booking's (backed by it).
    *(
        (action, pattern)
        for action, verbs, to in _PASSENGER_VERBS
        for pattern in (
            _AGENT + verbs + r"(?:\s+off)?\s+(?:\w+\s+){0,3}" + _PERSON + r"\b",
            _AGENT + verbs + r"\s+(?:your\s+\w+(?:\s+" + _NAME + r")?|" + _NAME + r")\s+"
            r"(?:off\s+|out\s+)?" + to + r"\s+" + _ON_RESERVATION,
            r"\b(?:"
            + _PERSON
            + "|"
            + _NAME
            + r")\s+(?:has|have)\s+been\s+"
            + verbs.replace("taken|took", "taken\\s+off")
            + r"\s+"
            + to
            + r"\b",
        )
    ),
    (
        "basic economy flight change",
        _AGENT + r"(?:changed|moved|rebooked|switched|modified)\s+" + _OBJECT + r"\s+basic[\s-]"
        r"economy\s+(?:flights?|trip|reservation|booking|itinerary)\b(?!\s+to\s+(?:economy|"
        r"business))",
    ),
    (
        "basic economy flight change",
        r"\bbasic[\s-]economy\s+(?:flights?|reservation|booking|trip)\b"
        + _CLAUSE
        + r"\b(?:has|have)\s+been\s+(?:changed|moved|rebooked)\b",
    ),
    (
        "route change",
        _AGENT + r"(?:changed|switched|updated|moved|modified)\s+" + _OBJECT + r"\s+(?:origin|"
        r"destination|departure\s+(?:city|airport)|arrival\s+(?:city|airport)|trip\s+type)\b",
    ),
    (
        "route change",
        _AGENT + r"(?:converted|changed|turned|made)\s+" + _OBJECT + r"\s+(?:(?:one[\s-]way|"
        r"round[\s-]trip)\s+)?(?:trip|reservation|booking|flight)(?:\s+(?-i:[A-Z0-9]{6}))?\s+"
        r"(?:(?:in)?to\s+)?(?:a\s+)?(?:one[\s-]way|round[\s-]trip)",
    ),
    (
        "route change",
        r"\b(?:origin|destination|trip\s+type)\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+"
        r"(?:changed|updated|switched)\b",
    ),
    ("refund to another method", _REFUNDED + _ELSEWHERE),
    (
        "refund to another method",
        r"\brefund(?:s|ed)?\b[^.;!?\n]{0,60}?\b(?:has|have|had|was|were)\s+been\s+(?:issued|"
        r"processed|made|sent|given)\s+(?:as|in)\s+(?:a\s+)?(?:travel\s+)?(?:certificate|"
        r"voucher|credit|cash|gift\s+card)\b",
    ),
    (
        "refund to another method",
        r"\brefund(?:ed)?\b[^.;!?\n]{0,60}?\b(?:to|onto)\s+(?:a|an|your)\s+(?:different|other|"
        r"another|new|second)\s+(?:card|credit\s+card|gift\s+card|payment\s+method|method|account)",
    ),
    ("fee waiver", _AGENT + r"waived\b"),
    (
        "fee waiver",
        r"\b(?:fees?|charges?|costs?)\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+waived\b",
    ),
    (
        "discount",
        _AGENT + r"(?:applied|given\s+you|gave\s+you|added)\s+(?:(?:a|an|the)\s+)?(?:\d+\s*%\s+|"
        r"\$\s?[\d,.]+\s+)?(?:special\s+)?discount\b",
    ),
    ("discount", r"\bdiscount\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+(?:applied|added)\b"),
    (
        "seat assignment",
        _AGENT + r"(?:assigned|reserved|selected|booked|got|secured|given)\s+(?:you\s+)?(?:a\s+|"
        r"the\s+|your\s+)?(?:(?:window|aisle|middle|exit[\s-]row)\s+seat|seats?\s+\d{1,2}[A-K]\b)",
    ),
    (
        "seat assignment",
        r"\b(?:seats?\s+\d{1,2}[A-K]|(?:window|aisle)\s+seat)\b" + _CLAUSE + r"\b(?:has|have)\s+"
        r"been\s+(?:assigned|reserved|selected)\b",
    ),
    (
        "email",
        _AGENT + r"(?:sent|emailed|e-mailed|forwarded)\s+(?:you\s+)?(?:(?:a|an|the|your)\s+)?"
        r"(?:\w+\s+){0,2}(?:e-?mails?|receipts?|itinerar(?:y|ies)|confirmations?)\b",
    ),
    ("email", _AGENT + r"e-?mailed\b"),
    (
        "email",
        r"\b(?:e-?mail|receipt|confirmation)\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+(?:sent|"
        r"e-?mailed)\b",
    ),
    (
        "profile change",
        _AGENT + r"(?:updated|changed|corrected|added|removed|replaced|upgraded)\s+(?:(?:a|an|the|"
        r"your)\s+)?(?:new\s+)?(?:e-?mail(?:\s+address)?|(?:home\s+|mailing\s+)?address|phone"
        r"(?:\s+number)?|membership(?:\s+level|\s+status)?|profile|(?:credit|debit|gift)\s+card"
        r"\s+(?:to|on|in|from)\s+your\s+(?:profile|account)|payment\s+methods?)\b",
    ),
    (
        "special service",
        _AGENT + r"(?:added|requested|arranged|booked|ordered|reserved|set\s+up)\s+(?:(?:a|"
        r"an|the|your)\s+)?(?:\w+\s+){0,2}(?:meals?|wheelchairs?|(?:special\s+)?assistance|"
        r"special\s+services?)\b",
    ),
    ("hold", _AGENT + r"(?:put|placed)\s+(?:a|the)\s+(?:courtesy\s+)?hold\s+on\b"),
    (
        "hold",
        _AGENT + r"(?:held|holding)\s+(?:the|your|a|this)\s+(?:\w+\s+)?(?:seats?|fares?|"
        r"reservation|booking|price|flight)\b",
    ),
    (
        "hold",
        r"\b(?:seats?|fares?|price)\b" + _CLAUSE + r"\b(?:is|are|has\s+been|have\s+been)\s+"
        r"(?:now\s+)?(?:on\s+hold|held)\b",
    ),
    # -- what the write tools do ---------------------------------------------------------
    (
        "booking",
        _AGENT + r"(?:booked|reserved|(?:made|created)\s+(?:a|" + _OBJECT + r")\s+(?:new\s+)?"
        r"(?:reservation|booking)|completed\s+" + _OBJECT + r"\s+booking)\b",
    ),
    ("booking", r"\byou(?:'re|\s+are)\s+(?:now\s+|all\s+)?booked\b"),
    (
        "booking",
        r"\b(?:reservation|booking)\b" + _CLAUSE + r"\b(?:has\s+been|is\s+now|was\s+successfully)"
        r"\s+(?:made|created|booked)\b",
    ),
    ("cancellation", _AGENT + r"cancell?ed\b"),
    (
        "cancellation",
        r"\b(?:reservation|booking|trip)\b" + _CLAUSE + r"\b(?:(?:has|have)\s+been|is\s+now|"
        r"was\s+successfully)\s+cancell?ed\b",
    ),
    (
        "cabin change",
        _AGENT + r"(?:(?:changed|moved|switched|modified)\s+" + _OBJECT + r"\s+(?:\w+\s+)?(?:cabin|"
        r"class|fare\s+class)|upgraded|downgraded|(?:moved|switched|changed|put)\s+you\s+(?:up\s+"
        r"|down\s+)?(?:in)?to\s+" + _CABIN + r")\b",
    ),
    (
        "cabin change",
        r"\b(?:cabin|class)\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+(?:successfully\s+)?"
        r"(?:changed|upgraded|downgraded|switched)\b",
    ),
    (
        "cabin change",
        r"\b(?:flights?|trip|reservation|booking|itinerary)\b" + _CLAUSE + r"\b(?:has|have)\s+"
        r"been\s+(?:successfully\s+)?(?:upgraded|downgraded)\b",
    ),
    (
        "flight change",
        _AGENT + r"(?:(?:changed|moved|rebooked|switched|modified)\s+" + _OBJECT + r"\s+(?:\w+\s+)?"
        r"(?:flights?|return|outbound|trip|itinerary|dates?)|rebooked)\b",
    ),
    (
        "flight change",
        _AGENT
        + r"(?:moved|switched|rebooked|put|transferred)\s+you\s+(?:on|onto|to)\s+(?:(?:the|a|"
        r"another)\s+(?:\w+\s+){0,2})?(?:flight\b|(?-i:HAT)\d+)",
    ),
    (
        "flight change",
        r"\b(?:flights?|itinerary|return|trip)\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+"
        r"(?:successfully\s+)?(?:changed|moved|rebooked)\b",
    ),
    (
        "passenger change",
        _AGENT + r"(?:updated|changed|corrected|fixed)\s+" + _OBJECT + r"\s+(?:\w+\s+){0,2}"
        r"(?:passengers?|names?|dates?\s+of\s+birth|spelling)\b",
    ),
    (
        "passenger change",
        r"\b(?:passengers?|names?)\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+(?:updated|changed|"
        r"corrected)\b",
    ),
    (
        "certificate",
        _AGENT + r"(?:sent|issued|added|given)\s+(?:you\s+)?(?:a|an|" + _OBJECT + r")?\s*"
        r"(?:\$\s?[\d,.]+\s+)?(?:travel\s+)?(?:certificate|voucher|compensation)\b",
    ),
    (
        "certificate",
        r"\b(?:certificate|voucher|compensation)\b"
        + _CLAUSE
        + r"\b(?:(?:has|have)\s+been|was|is\s+"
        r"now)\s+(?:sent|issued|added|credited)\b",
    ),
    ("transfer", _AGENT + r"(?:transferred|transferring|put\s+you\s+through|connected\s+you)\b"),
    ("transfer", r"\b(?:(?:has|have)\s+been|was|were|are\s+being|is\s+being)\s+transferred\b"),
    ("refund", _REFUNDED),
    ("refund", r"\b(?:(?:has|have|had)\s+been|was|were)\s+(?:fully\s+)?refunded\b"),
    (
        "refund",
        r"\brefunds?\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+(?:issued|processed|made|sent)\b",
    ),
    ("charge", _AGENT + r"charged\b"),
    ("charge", r"\b(?:was|were|(?:has|have)\s+been)\s+charged\b"),
    (
        "payment",
        _AGENT + r"(?:processed|completed|taken|took|made|applied|submitted|finali[sz]ed)\s+(?:the|"
        r"your|a|this)\s+payment\b",
    ),
    (
        "payment",
        _AGENT + r"(?:applied|used|redeemed)\s+(?:your|the)\s+(?:\w+\s+)?(?:gift\s+card|"
        r"certificate|credit\s+card|card|voucher)\b",
    ),
    (
        "payment",
        r"\bpayment\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+(?:successfully\s+)?(?:processed|"
        r"completed|taken|made|applied|received|accepted)\b",
    ),
    (
        "reservation change",
        _AGENT + r"(?:updated|modified|changed)\s+" + _OBJECT + r"\s+(?:reservation|booking)\b",
    ),
    (
        "reservation change",
        r"\b(?:reservation|booking)\b" + _CLAUSE + r"\b(?:(?:has|have)\s+been|is\s+now|"
        r"was\s+successfully)\s+(?:updated|modified|changed)\b",
    ),
    *((action, _ABLE_TO + verb + r"\b") for action, verb in _ABLE_TO_VERBS),
)


# Where the agent may begin a claim: "I" or "we" before a space or an apostrophe, as
# `_AGENT` and `_ABLE_TO` begin. A pattern that begins with either is tried only there.
_AGENT_AT = re.compile(r"\b(?:I|we)(?=[\s'])", re.I)


class _Claim(NamedTuple):
    action: Action
    pattern: re.Pattern[str]
    led_by_agent: bool  # can match only where `_AGENT_AT` does
    also_required: tuple[frozenset[str], ...]  # its other sets of words: one of each, too


class _Patterns(NamedTuple):
    """The claim patterns compiled, in `_PATTERNS`' order, and which of them need which
    word (agent/pattern_cues.py): scanning the whole reply with each of some 80 patterns
    took a millisecond for a reply of a few sentences, though most replies match none."""

    claims: tuple[_Claim, ...]
    by_cue: dict[str, frozenset[int]]  # a word → the patterns that cannot match without it
    unled_by_cue: dict[str, frozenset[int]]  # the same, of the patterns not led by the agent
    uncued: frozenset[int]  # patterns that need no word: always tried


@cache
def _compiled() -> _Patterns:
    # Compiled on the first reply checked, not at import: some 80 patterns take ~0.1 s,
    # which `chat` would otherwise pay at start-up for a check its first turn needs later.
    claims: list[_Claim] = []
    by_cue: dict[str, set[int]] = {}
    uncued: set[int] = set()
    for index, (action, pattern) in enumerate(_PATTERNS):
        words, *also = required_words(pattern, re.I) or (None,)
        led = pattern.startswith((_AGENT, _ABLE_TO))
        claims.append(_Claim(action, re.compile(pattern, re.I), led, tuple(also)))
        for word in words or ():
            by_cue.setdefault(word, set()).add(index)
        if words is None:
            uncued.add(index)
    unled = {index for index, claim in enumerate(claims) if not claim.led_by_agent}
    return _Patterns(
        tuple(claims),
        {word: frozenset(found) for word, found in by_cue.items()},
        {word: frozenset(found & unled) for word, found in by_cue.items() if found & unled},
        frozenset(uncued),
    )


def _matches(text: str) -> Iterator[tuple[Action, re.Match[str]]]:
    """Each pattern's matches in `text`, pattern by pattern in `_PATTERNS`' order: exactly
    what each pattern's `finditer` finds, without scanning for what cannot be there."""
    patterns = _compiled()
    agent_at = [m.start() for m in _AGENT_AT.finditer(text)]
    lowered = ascii_lowered(text)
    if lowered is not None:
        # Without "I" or "we" in the reply, only the words of the patterns not led by them.
        cued = patterns.by_cue if agent_at else patterns.unled_by_cue
        present = [word for word in cued if word in lowered]  # a few, mostly
        tried: AbstractSet[int] = patterns.uncued.union(*(cued[word] for word in present))
    else:  # ignoring case, Unicode matches other letters too: every pattern is tried
        tried = set(range(len(patterns.claims)))
    for index in sorted(tried):
        action, pattern, led_by_agent, also_required = patterns.claims[index]
        if also_required and lowered is not None and not holds_all(lowered, also_required):
            continue
        if not led_by_agent:
            yield from ((action, m) for m in pattern.finditer(text))
        elif agent_at:
            yield from ((action, m) for m in _matches_at(pattern, text, agent_at))


def _matches_at(pattern: re.Pattern[str], text: str, starts: list[int]) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)` for a pattern that can match only at `starts` (in order):
    tried at each start not inside its previous match."""
    end = 0
    for start in starts:
        if start >= end:
            m = pattern.match(text, start)
            if m is not None:
                yield m
                end = m.end()


# Verbs that go on the agent's list after a first claim: "I looked up EHGLP3, cancelled
# it and refunded the $208". Each needs an object after it, so that a participle ("your
# reservation, booked on May 4", "HAT030, cancelled by the airline") is no claim.
_THEN = r"(?:,\s*(?:and\s+)?|\s+and\s+)(?:then\s+|also\s+)?"
_ITS_OBJECT = r"(?:\s+(?:it|them|you|your|the|this|that|its|their|a|an)\b|(?=\s*\$))"
_COORDINATED_VERBS: tuple[tuple[Action, str], ...] = (
    ("cancellation", r"cancell?ed"),
    ("refund", r"refunded"),
    ("booking", r"booked"),
    ("flight change", r"(?:changed|moved|rebooked)"),
    ("cabin change", r"(?:upgraded|downgraded)"),
    ("bag change", r"added"),
    ("certificate", r"(?:sent|issued)"),
    ("transfer", r"transferred"),
    ("charge", r"charged"),
    ("payment", r"processed"),
    ("calculation", r"(?:calculated|computed)"),
)
_COORDINATED = tuple(
    (action, re.compile(_THEN + verb + _ITS_OBJECT, re.I)) for action, verb in _COORDINATED_VERBS
)
_AGENT_FIRST = re.compile(r"(?:I|we)\b", re.I)
_SENTENCE_END = re.compile(r"\.(?=\s|$)|[!?;\n]")

# Words before a claim, in its clause, that make it no claim: a negation ("nothing was
# charged"), a condition or a future ("once it has been cancelled", "after I've booked").
_NOT_A_CLAIM = re.compile(
    r"\b(?:not|never|nothing|no|none|neither|nor|without|if|once|when|whenever|after|before|"
    r"until|unless|would|will|shall|should|could|might|may|must|can|to|whether)\b|n't\b",
    re.I,
)
_CLAUSE_START = re.compile(r"[.!?;:,\n(]|\b(?:and|but|so|then|because)\b", re.I)


@dataclass(frozen=True)
class Claim:
    position: int
    written: str  # as in the reply, e.g. "I cancelled"
    action: Action


def claimed_actions(text: str) -> list[Claim]:
    """The actions `text` says were taken, in text order, one per place in the text (a
    claim found inside another's words is the same claim: "I've refunded the $50 to a
    different card" is one refund to another method, not two)."""
    found: dict[int, Claim] = {}
    ends: dict[int, int] = {}
    for action, m in _matches(text):
        if _qualified(text, m.start()):
            continue
        written = " ".join(m.group(0).split())
        if m.start() not in found:
            found[m.start()] = Claim(m.start(), written, action)
            ends[m.start()] = m.end()
    reach = -1
    for position in sorted(found):
        if position < reach:
            del found[position]
        else:
            reach = ends[position]
    for claim in [c for c in found.values() if _AGENT_FIRST.match(c.written)]:
        for later in _coordinated(text, claim.position + len(claim.written)):
            found.setdefault(later.position, later)
    return [found[position] for position in sorted(found)]


def _coordinated(text: str, start: int) -> list[Claim]:
    """The further actions on the agent's list, from `start` to the end of its sentence."""
    end = _SENTENCE_END.search(text, start)
    rest = text[: end.start() if end else len(text)]
    claims = []
    for action, pattern in _COORDINATED:
        for m in pattern.finditer(rest, start):
            verb = m.group(0).lstrip(", ").split()
            written = " ".join(w for w in verb if w.lower() not in ("and", "then", "also"))
            claims.append(Claim(m.end() - len(written), written, action))
    return claims


def _qualified(text: str, start: int) -> bool:
    """Whether the clause before `start` negates the claim or makes it a condition."""
    before = text[max(0, start - 80) : start]
    boundaries = list(_CLAUSE_START.finditer(before))
    clause = before[boundaries[-1].end() :] if boundaries else before
    return bool(_NOT_A_CLAIM.search(clause))
