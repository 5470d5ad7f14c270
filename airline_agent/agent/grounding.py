"""The grounding check (policy C3): what a reply states that nothing in the conversation gave.

A reply is read for values — reservation ids, flight numbers, user and payment ids (also
written in words: "credit card 7815826", "flight 156"), amounts, dates and times — and
for the actions it says were taken ("I looked up", "I cancelled", "refunded"), and for
tool calls written as text instead of made. Each finding names the value or claim and
why nothing supports it:
- a value must appear in a piece of evidence: a customer message, a tool result, or the
  system prompt (its clock, the identified customer);
- an amount must come from a customer message or a tool result. The rules' figures ($100
  per passenger for a cancelled flight) support a reply only where it states that rule
  (the sentence shares a subject word with the rule's clause: certificate, bag,
  insurance…), not as a refund or a price for this customer;
- an action must be backed by a successful call of its tool in this conversation (a
  look-up by any call that ran: finding nothing is still a look-up).
It is a warning for the person watching, not a filter: a sum the model worked out itself
is flagged too, so that it can be checked.

Measured on the corpus of tests/unit/agent/grounding_corpus.py (written for this check, with
the evidence each reply had): see test_grounding_corpus.py for the figures it asserts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Generic, TypeVar

from airline_agent.agent import grounding_values as values
from airline_agent.agent import pattern_cues as cued
from airline_agent.agent.claims import IMPOSSIBLE, RULES, backing, claimed_actions
from airline_agent.agent.findings import Finding, FindingKind
from airline_agent.agent.text_tool_calls import text_tool_calls
from airline_agent.tools.untrusted import ParsedJson, parse_json

TEXT_TOOL_CALL_WHY = "the model wrote a tool call as text; nothing was run"
_NOT_GIVEN = "no tool result or customer message gave this {what}"


@dataclass(frozen=True)
class _RuleFigure:
    rule: str  # the rule's id, e.g. "P3", or "" when the line has none
    subject: frozenset[str]  # the stems of its clause's words


_TOKEN = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"\.(?=\s|$)|[!?;\n]")  # not the point of "$1,234.50"
_RULE_ID = re.compile(r"^\W*([A-Z]\d{1,2})\b")
# Words that any sentence about money may have: they say nothing about which rule.
_GENERIC = frozenset(
    re.findall(
        r"[a-z]+",
        """the and for with that this are was were has have had per each every any all can
        not but from into your you our its their his her will would get gets one two three
        which who what when then than also only customer customers reservation reservations
        flight flights travel agent airline cost costs price prices pay paid payment amount
        dollars usd total charge charged""",
    )
)


def _stem(word: str) -> str:
    word = word[:-1] if word.endswith("s") and len(word) > 3 else word
    return word[:5]


def _subject(text: str) -> frozenset[str]:
    words = re.findall(r"[a-z]+", text.lower())
    return frozenset(_stem(w) for w in words if len(w) >= 3 and w not in _GENERIC)


def _sentence_bounds(text: str, position: int) -> tuple[int, int]:
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() >= position:
            return start, m.start()
        start = m.end()
    return start, len(text)


def _sentence_at(text: str, position: int) -> str:
    start, end = _sentence_bounds(text, position)
    return text[start:end]


def _words_around(text: str, position: int, count: int = 4) -> str:
    """The few words either side of `position` in its sentence: what a rule's figure is
    for ("a travel certificate of $100 per passenger"), without the rule's condition
    ("for a cancelled flight"), which a made-up refund may share."""
    start, end = _sentence_bounds(text, position)
    before = text[start:position].split()[-count:]
    after = text[position:end].split()[: count + 1]  # the figure itself and `count` more
    return " ".join(before + after)


Key = TypeVar("Key", bound=Hashable)


class _Index(Generic[Key]):
    """One kind of value the texts give (ids, amounts, dates, times), read from each text
    only when a check first asks for that kind: a reply that states no date never has the
    conversation's tool results read for dates, and most replies state one or two kinds.

    Each text is read once; what it gave is kept, to gather the kind again when a text is
    taken back and to fork a conversation without reading its texts again."""

    def __init__(self, read: Callable[[str], Collection[Key]]) -> None:
        self._read = read
        self._per_text: list[Collection[Key]] = []
        self._all: set[Key] = set()

    def of(self, texts: Sequence[str]) -> set[Key]:
        """What `texts` give of this kind (the conversation's texts: they only grow, or
        lose their latest through `keep_first`)."""
        if len(self._per_text) < len(texts):
            for text in texts[len(self._per_text) :]:
                found = self._read(text)
                self._per_text.append(found)
                self._all.update(found)
        return self._all

    def keep_first(self, count: int) -> None:
        """Forget what the texts after the first `count` gave."""
        if len(self._per_text) > count:
            del self._per_text[count:]
            self._all = set().union(*self._per_text)

    def prefix(self, count: int) -> _Index[Key]:
        """The same kind, read as far as the first `count` texts were."""
        copy = _Index(self._read)
        copy._per_text = self._per_text[:count]
        copy._all = set().union(*copy._per_text)
        return copy


def _dates_and_days(text: str) -> set[values.Day | tuple[int, int]]:
    """Each date a text gives, and also its (month, day): a reply's date without a year
    is supported by that day in any year."""
    found: set[values.Day | tuple[int, int]] = set()
    for _, _, (month, day, year) in values.dates(text):
        found.add((month, day, year))
        found.add((month, day))
    return found


@dataclass(frozen=True)
class _Rules:
    """What the rules (a system prompt) give, read once."""

    tokens: frozenset[str]
    dates: frozenset[values.Day]
    times: frozenset[values.Clock]
    figures: tuple[tuple[float, _RuleFigure], ...]  # each amount, with what it is for


@lru_cache(maxsize=8)
def _read_rules(text: str) -> _Rules:
    # Every conversation of a session starts with the same prompt, and reading its 2,400
    # characters took longer than a whole scripted turn: read once, and shared.
    figures = []
    for position, _, amount in values.amounts(text):
        line = text[text.rfind("\n", 0, position) + 1 :]
        rule = _RULE_ID.match(line)
        figure = _RuleFigure(rule.group(1) if rule else "", _subject(_words_around(text, position)))
        figures.append((amount, figure))
    return _Rules(
        tokens=frozenset(_TOKEN.findall(text)),
        dates=frozenset(when for _, _, when in values.dates(text)),
        times=frozenset(values.clock_times(text)),
        figures=tuple(figures),
    )


def _union(these: frozenset[Key], more: frozenset[Key]) -> frozenset[Key]:
    return (these | more) if these else more  # the usual one rule text: no copy


class Evidence:
    """What the conversation gave, each text read at most once.

    A long conversation gives hundreds of tool results: scanning all of them again for
    every reply made the check, and so the turn, slower with every turn. `rules` (the
    system prompt) support ids, dates and times; their amounts only a reply stating the
    rule. Tool results also record which tools ran, and which succeeded.

    What all texts give is kept as sets, one per kind of value, each brought up to date
    when a check asks for its kind (`_Index`); taking a text back (rare: a message never
    answered) gathers them again from what each text gave.
    """

    def __init__(self, texts: Iterable[str] = (), *, rules: Iterable[str] = ()) -> None:
        self._texts: list[str] = []
        self._calls: list[tuple[str, bool] | None] = []  # per text: (tool, succeeded)
        self._tokens: _Index[str] = _Index(_TOKEN.findall)
        self._numbers: _Index[float] = _Index(values.numbers)
        self._dates: _Index[values.Day | tuple[int, int]] = _Index(_dates_and_days)
        self._times: _Index[values.Clock] = _Index(values.clock_times)
        self._gather_calls()
        # Frozen, and replaced when another rule text comes: shared with the cache of
        # `_read_rules` and with the prefixes of this evidence.
        self._rule_tokens: frozenset[str] = frozenset()
        self._rule_dates: frozenset[values.Day] = frozenset()
        self._rule_times: frozenset[values.Clock] = frozenset()
        self._rule_figures: dict[float, list[_RuleFigure]] = {}
        for rule_text in rules:
            self._add_rules(rule_text)
        for text in texts:
            self.add(text)

    def _add_rules(self, text: str) -> None:
        rules = _read_rules(text)
        self._rule_tokens = _union(self._rule_tokens, rules.tokens)
        self._rule_dates = _union(self._rule_dates, rules.dates)
        self._rule_times = _union(self._rule_times, rules.times)
        for amount, figure in rules.figures:
            self._rule_figures.setdefault(amount, []).append(figure)

    def add(self, text: str) -> None:
        """A text the conversation gave: a customer message, a tool result (read when a
        check first needs what it gives)."""
        self._texts.append(text)
        self._calls.append(None)

    def add_tool_result(self, name: str, content: str, *, ok: bool) -> None:
        """The result of a tool call that ran (`ok`: it was no error result)."""
        self.add(content)
        self._calls[-1] = (name, ok)
        self._count_call(name, ok)

    def __len__(self) -> int:
        """How many texts the conversation gave so far (the rules not counted)."""
        return len(self._texts)

    def prefix(self, count: int) -> Evidence:
        """A new Evidence of the same rules and the first `count` texts (as far as they
        were read: nothing is read again), for a conversation forked when it had given them."""
        copy = Evidence()
        copy._rule_tokens, copy._rule_dates = self._rule_tokens, self._rule_dates
        copy._rule_times, copy._rule_figures = self._rule_times, self._rule_figures
        copy._texts = self._texts[:count]
        copy._calls = self._calls[:count]
        copy._tokens, copy._numbers = self._tokens.prefix(count), self._numbers.prefix(count)
        copy._dates, copy._times = self._dates.prefix(count), self._times.prefix(count)
        copy._gather_calls()
        return copy

    @classmethod
    def of_history(cls, history: Iterable[Mapping[str, object]]) -> Evidence:
        """What a history gives, read whole: its system messages are the rules, its
        customer messages and tool results the texts (a tool result that is an error
        result counts as a call that did not succeed). For a history you edited at the
        debugger: the model was given what it holds now."""
        messages = list(history)
        names: dict[str, str] = {}
        for message in messages:
            calls = message.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                if isinstance(call, dict) and isinstance(call.get("function"), dict):
                    names[str(call.get("id"))] = str(call["function"].get("name") or "")
        evidence = cls(rules=[_text_of(m) for m in messages if m.get("role") == "system"])
        for message in messages:
            text = _text_of(message)
            if message.get("role") == "user":
                evidence.add(text)
            elif message.get("role") == "tool":
                name = names.get(str(message.get("tool_call_id")), "")
                evidence.add_tool_result(name, text, ok=not _is_error_result(text))
        return evidence

    def pop(self) -> str:
        """Take back the latest text (a message the model never answered)."""
        text = self._texts.pop()
        self._calls.pop()
        for index in (self._tokens, self._numbers, self._dates, self._times):
            index.keep_first(len(self._texts))
        self._gather_calls()
        return text

    def _gather_calls(self) -> None:
        """Which tools ran and which succeeded, as the texts' calls say, and no more."""
        self._ran: set[str] = set()
        self._succeeded: set[str] = set()
        for call in self._calls:
            if call is not None:
                self._count_call(*call)

    def _count_call(self, name: str, ok: bool) -> None:
        self._ran.add(name)
        if ok:
            self._succeeded.add(name)

    def mentions(self, value: str) -> bool:
        return value in self._rule_tokens or value in self._tokens.of(self._texts)

    def has_number(self, value: float) -> bool:
        """Given by a customer message or a tool result (not by the rules)."""
        return value in self._numbers.of(self._texts)

    def has_date(self, month: int, day: int, year: int | None) -> bool:
        given = self._dates.of(self._texts)
        if year:
            return (month, day, year) in given or (month, day, year) in self._rule_dates
        return (month, day) in given or any((m, d) == (month, day) for m, d, _ in self._rule_dates)

    def has_time(self, readings: set[values.Clock]) -> bool:
        given = self._times.of(self._texts)
        return any(t in given or t in self._rule_times for t in readings)

    def rule_figures(self, amount: float) -> list[_RuleFigure]:
        return self._rule_figures.get(amount, [])

    def ran_any_tool(self) -> bool:
        return bool(self._ran)

    def succeeded(self, names: Iterable[str]) -> bool:
        return any(name in self._succeeded for name in names)


def _is_error_result(text: str) -> bool:
    """Whether a tool message says `{"error": …}`: its text may be anything (you may edit
    it at the debugger), so it is read as JSON from outside is."""
    parsed = parse_json(text)
    return (
        isinstance(parsed, ParsedJson)
        and isinstance(parsed.value, dict)
        and ("error" in parsed.value)
    )


def _text_of(message: Mapping[str, object]) -> str:
    """A message's content as text (the text parts of a list of parts, joined)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def ground_reply(
    reply: str, evidence: Evidence | Iterable[str], tool_names: frozenset[str] = frozenset()
) -> tuple[Finding, ...]:
    """What `reply` states that the `evidence` does not support, in reply order.

    `tool_names` are the agent's tools: a call written as `name(...)` counts only for one of
    them (a JSON-shaped call counts for any name).
    """
    given = evidence if isinstance(evidence, Evidence) else Evidence(evidence)
    found: dict[str, tuple[int, Finding]] = {}

    def flag(position: int, value: str, kind: FindingKind, why: str) -> None:
        if value not in found:
            found[value] = (position, Finding(value, kind, why))

    for call in text_tool_calls(reply, tool_names):
        flag(call.position, call.written, "tool_call_as_text", TEXT_TOOL_CALL_WHY)
    for position, value, kind, why in (
        *_unsupported_ids(reply, given),
        *_unsupported_amounts(reply, given),
        *_unsupported_dates_and_times(reply, given),
        *_unbacked_claims(reply, given),
    ):
        flag(position, value, kind, why)
    return tuple(finding for _, finding in sorted(found.values(), key=lambda f: f[0]))


def unsupported_values(reply: str, evidence: Evidence | Iterable[str]) -> tuple[str, ...]:
    """The values and claims of `reply` that the `evidence` does not support, in reply order."""
    return tuple(finding.value for finding in ground_reply(reply, evidence))


_Flag = tuple[int, str, FindingKind, str]  # position, as written, kind, why


_IDS: tuple[tuple[re.Pattern[str], FindingKind, str], ...] = (
    (values.FLIGHT, "flight_number", "flight number"),
    (values.USER, "user_id", "user id"),
    (values.PAYMENT, "payment_id", "payment method"),
)


def _unsupported_ids(reply: str, given: Evidence) -> list[_Flag]:
    # A reply is scanned only for the ids whose words it holds (agent/pattern_cues.py):
    # "HAT" for a flight number, "card" or "certificate" for a payment method in words…
    flags: list[_Flag] = []
    for pattern, kind, what in _IDS:
        for m in cued.finditer(pattern, reply):
            if not given.mentions(m.group(0)):
                flags.append((m.start(), m.group(0), kind, _NOT_GIVEN.format(what=what)))
    for m in values.RESERVATION.finditer(reply):
        code = m.group(0)
        if code.isdigit() or given.mentions(code):
            continue
        if code.isalpha() and not values.RESERVATION_CUE.search(reply[: m.start()]):
            continue
        flags.append((m.start(), code, "reservation_id", _NOT_GIVEN.format(what="reservation id")))
    for m in cued.finditer(values.PAYMENT_IN_WORDS, reply):
        source = f"{m.group(1).lower()}_card" if m.group(1) else "certificate"
        number = m.group(3)
        if not (given.mentions(f"{source}_{number}") or given.has_number(float(number))):
            why = _NOT_GIVEN.format(what=f"payment method ({source}_{number})")
            flags.append((m.start(), m.group(0), "payment_id", why))
    for m in cued.finditer(values.LAST_DIGITS, reply):
        if not given.has_number(float(m.group(1))):
            why = _NOT_GIVEN.format(what="card number")
            flags.append((m.start(), m.group(0), "payment_id", why))
    for m in cued.finditer(values.FLIGHT_IN_WORDS, reply):
        if not given.mentions(f"HAT{m.group(1)}"):
            why = _NOT_GIVEN.format(what=f"flight number (HAT{m.group(1)})")
            flags.append((m.start(), m.group(0), "flight_number", why))
    return flags


def _unsupported_amounts(reply: str, given: Evidence) -> list[_Flag]:
    flags: list[_Flag] = []
    for position, written, amount in values.amounts(reply):
        if given.has_number(amount):
            continue
        figures = given.rule_figures(amount)
        if not figures:
            flags.append((position, written, "amount", _NOT_GIVEN.format(what="amount")))
            continue
        subject = _subject(_sentence_at(reply, position))
        if any(figure.subject & subject for figure in figures):
            continue  # the reply states the rule the figure belongs to
        rules = ", ".join(sorted({f.rule for f in figures if f.rule})) or "the rules"
        why = (
            f"a figure of the rules ({rules}), but no tool result or customer message gave "
            "it as an amount for this conversation"
        )
        flags.append((position, written, "amount", why))
    return flags


def _unsupported_dates_and_times(reply: str, given: Evidence) -> list[_Flag]:
    flags: list[_Flag] = [
        (position, written, "date", _NOT_GIVEN.format(what="date"))
        for position, written, (month, day, year) in values.dates(reply)
        if not given.has_date(month, day, year)
    ]
    flags += [
        (time.position, time.written, "time", _NOT_GIVEN.format(what="time"))
        for time in values.times(reply)
        if not given.has_time(time.readings())
    ]
    return flags


def _unbacked_claims(reply: str, given: Evidence) -> list[_Flag]:
    flags: list[_Flag] = []
    for claim in claimed_actions(reply):
        forbidden = IMPOSSIBLE.get(claim.action)
        if forbidden is not None:
            why = f"claims {_with_article(claim.action)}, which {forbidden}"
            flags.append((claim.position, claim.written, "claimed_action", why))
            continue
        tools = backing(claim.action)
        if not tools:
            if given.ran_any_tool():
                continue
            why = "claims a look-up, but no tool was called in this conversation"
        elif given.succeeded(tools):
            continue
        else:
            why = (
                f"claims {_with_article(claim.action)}, but no {' or '.join(tools)} call "
                "succeeded in this conversation"
            )
            if claim.action in RULES:
                why += f" ({RULES[claim.action]})"
        flags.append((claim.position, claim.written, "claimed_action", why))
    return flags


def _with_article(action: str) -> str:
    """`a cancellation`, `an insurance addition`, `an email`."""
    return f"{'an' if action[0] in 'aeiou' else 'a'} {action}"
