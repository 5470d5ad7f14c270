"""Actions a reply says the agent took: "I looked up", "I cancelled", "refunded", …

A model that answers without calling a tool often tells a story of the calls it did not
make (issue 12: "I looked up the reservation … I sent the certificate … The customer was
transferred"). Each claim here names the tools that would back it; the grounding check
compares them with the calls the conversation really made. Only the agent's own past or
present actions count: "would you like me to cancel it?", "once it is cancelled",
"nothing was charged" and "the airline cancelled your flight" claim nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Action = Literal[
    "look-up",
    "calculation",
    "booking",
    "cancellation",
    "flight change",
    "bag change",
    "passenger change",
    "certificate",
    "transfer",
    "refund",
    "charge",
    "reservation change",
]

_WRITES = (
    "book_reservation",
    "cancel_reservation",
    "update_reservation_flights",
    "update_reservation_baggages",
    "update_reservation_passengers",
    "send_certificate",
)
# The tools whose successful call backs each claim. A look-up is backed by any call that
# ran, whatever its result: "I looked it up and found no such reservation" is honest.
BACKING: dict[Action, tuple[str, ...]] = {
    "look-up": (),
    "calculation": ("calculate",),
    "booking": ("book_reservation",),
    "cancellation": ("cancel_reservation",),
    "flight change": ("update_reservation_flights",),
    "bag change": ("update_reservation_baggages",),
    "passenger change": ("update_reservation_passengers",),
    "certificate": ("send_certificate",),
    "transfer": ("transfer_to_human_agents",),
    "refund": ("cancel_reservation", "update_reservation_flights"),
    "charge": ("book_reservation", "update_reservation_flights", "update_reservation_baggages"),
    "reservation change": _WRITES,
}

# The agent as subject, with the words that may stand between it and its verb.
_AGENT = (
    r"\b(?:I|we)(?:\s*'(?:ve|m)|\s+(?:have|am|just|also|now|already|successfully|then|"
    r"gone ahead and|went ahead and))*\s+"
)
_OBJECT = r"(?:your|the|this|that|its|their|his|her)"
# "I was able to rebook you", "we managed to cancel it": done, in other words.
_ABLE_TO = r"\b(?:I|we)(?:\s+(?:was|were|have\s+been)|\s*'ve\s+been)?\s+(?:able|managed)\s+to\s+"
_CLAUSE = r"[^.;!?\n]{0,40}?"  # the rest of the same clause, briefly

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
    (
        "booking",
        _AGENT + r"(?:booked|reserved|made\s+(?:a|" + _OBJECT + r")\s+(?:new\s+)?(?:reservation|"
        r"booking)|completed\s+" + _OBJECT + r"\s+booking)\b",
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
        "flight change",
        _AGENT + r"(?:(?:changed|moved|rebooked|switched|modified)\s+" + _OBJECT + r"\s+(?:\w+\s+)?"
        r"(?:flights?|return|outbound|trip|itinerary|dates?|cabin)|rebooked|upgraded|downgraded)\b",
    ),
    (
        "flight change",
        r"\b(?:flights?|itinerary|cabin|return|trip)\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+"
        r"(?:successfully\s+)?(?:changed|moved|rebooked|upgraded|downgraded)\b",
    ),
    ("bag change", _AGENT + r"added\s+(?:\w+\s+){0,3}(?:bags?|baggages?|luggage)\b"),
    (
        "bag change",
        r"\b(?:bags?|baggages?|luggage)\b"
        + _CLAUSE
        + r"\b(?:has|have)\s+been\s+(?:added|updated)\b",
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
    (
        "refund",
        _AGENT + r"(?:refunded|(?:issued|processed|sent)\s+(?:a|" + _OBJECT + r")\s+refund)\b",
    ),
    ("refund", r"\b(?:(?:has|have|had)\s+been|was|were)\s+(?:fully\s+)?refunded\b"),
    (
        "refund",
        r"\brefunds?\b" + _CLAUSE + r"\b(?:has|have)\s+been\s+(?:issued|processed|made|sent)\b",
    ),
    ("charge", _AGENT + r"charged\b"),
    ("charge", r"\b(?:was|were|(?:has|have)\s+been)\s+charged\b"),
    (
        "reservation change",
        _AGENT + r"(?:updated|modified|changed)\s+" + _OBJECT + r"\s+(?:reservation|booking)\b",
    ),
    (
        "reservation change",
        r"\b(?:reservation|booking)\b" + _CLAUSE + r"\b(?:(?:has|have)\s+been|is\s+now|"
        r"was\s+successfully)\s+(?:updated|modified|changed)\b",
    ),
    *(
        (action, _ABLE_TO + verb + r"\b")
        for action, verb in (
            ("look-up", r"(?:look\s+up|find|locate|confirm|verify|see)"),
            ("booking", r"(?:book|reserve)"),
            ("cancellation", r"cancel"),
            ("flight change", r"(?:rebook|change|move|switch|upgrade|downgrade)"),
            ("bag change", r"add\s+(?:\w+\s+){0,3}(?:bags?|baggages?|luggage)"),
            (
                "certificate",
                r"(?:send|issue)\s+(?:you\s+)?(?:a|an|the)\s+(?:\w+\s+){0,2}certificate",
            ),
            ("transfer", r"transfer"),
            ("refund", r"refund"),
        )
    ),
)
_COMPILED = tuple((action, re.compile(pattern, re.I)) for action, pattern in _PATTERNS)

# Verbs that go on the agent's list after a first claim: "I looked up EHGLP3, cancelled
# it and refunded the $208". Each needs an object after it, so that a participle ("your
# reservation, booked on May 4", "HAT030, cancelled by the airline") is no claim.
_THEN = r"(?:,\s*(?:and\s+)?|\s+and\s+)(?:then\s+|also\s+)?"
_ITS_OBJECT = r"(?:\s+(?:it|them|you|your|the|this|that|its|their|a|an)\b|(?=\s*\$))"
_COORDINATED = tuple(
    (action, re.compile(_THEN + verb + _ITS_OBJECT, re.I))
    for action, verb in (
        ("cancellation", r"cancell?ed"),
        ("refund", r"refunded"),
        ("booking", r"booked"),
        ("flight change", r"(?:changed|moved|rebooked)"),
        ("bag change", r"added"),
        ("certificate", r"(?:sent|issued)"),
        ("transfer", r"transferred"),
        ("charge", r"charged"),
        ("calculation", r"(?:calculated|computed)"),
    )
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
    """The actions `text` says were taken, in text order, one per place in the text."""
    found: dict[int, Claim] = {}
    for action, pattern in _COMPILED:
        for m in pattern.finditer(text):
            if _qualified(text, m.start()):
                continue
            written = " ".join(m.group(0).split())
            if m.start() not in found:
                found[m.start()] = Claim(m.start(), written, action)
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
