"""The words a regular expression cannot match without, read from the expression itself.

The claim patterns (agent/claims.py) are some 80 expressions, and scanning a reply with
each of them took most of the grounding check's time, although a reply matches few or
none: "…has been cancelled" cannot match where "been" does not occur. `cues(pattern)`
gives, for an expression, a set of words of which every match contains at least one; a
text holding none of them cannot match, and is not scanned. `required_words` gives every
such set: a text lacking all the words of any one of them is not scanned either.

The words come from the parsed expression (`re._parser`, the standard library's own
parser): a run of literal characters is matched as it stands, so every match of the
sequence holding it contains it; a group or a repeat of at least once requires what its
content requires; of alternatives, each must require something, and a match contains
what one of them requires. Everything else (classes, optional parts, look-arounds)
requires nothing. The words are lowercased: for an ASCII text, a match made ignoring
case holds the word in the lowercased text. Non-ASCII text is always scanned, since
ignoring case in Unicode also matches other letters (`ſ` for `s`, `K` for `k`).
"""

from __future__ import annotations

import re

# The standard library's own parse tree of a pattern; typeshed has no stubs under these
# private names (its sre_constants/sre_parse stubs are the deprecated aliases).
import re._constants as sre  # type: ignore[import-not-found]
import re._parser as sre_parser  # type: ignore[import-not-found]
from collections.abc import Iterator
from typing import Any

_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)


def cues(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """Lowercased words of which every match of `pattern` holds one; None when the
    expression requires no word (every text must then be scanned)."""
    groups = required_words(pattern, flags)
    return groups[0] if groups else None


def required_words(pattern: str, flags: int = 0) -> tuple[frozenset[str], ...]:
    """Every set of lowercased words of which each match of `pattern` holds one, the one
    that rules out most texts first: a text must hold a word of each set to match. One
    set is not enough for "reservation … has been made": nearly every reply of an
    airline agent says "reservation", few say "been" or "now"."""
    required = set(_required(sre_parser.parse(pattern, flags)))
    return tuple(sorted(required, key=lambda words: (_selectivity(words), sorted(words))))


def holds_all(lowered: str, groups: tuple[frozenset[str], ...]) -> bool:
    """Whether the lowercased text holds a word of each of these sets."""
    for words in groups:  # loops, not all(any(…)): this runs a dozen times per reply
        for word in words:
            if word in lowered:
                break
        else:
            return False
    return True


def finditer(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`, without scanning a text that lacks every word of one of
    its sets of required words."""
    seen = _SEEN.get(id(pattern))
    if seen is None or seen[0] is not pattern:
        seen = _remember(pattern)
    groups = seen[1]
    if groups:
        last = _LAST  # ascii_lowered, inlined: a reply asks this of a dozen patterns
        lowered = last[1] if last[0] is text else ascii_lowered(text)
        if lowered is not None and not holds_all(lowered, groups):
            return iter(())
    return pattern.finditer(text)


# The last text lowercased: a reply is asked about by a dozen patterns in a row.
_LAST: tuple[str, str | None] = ("", "")


def ascii_lowered(text: str) -> str | None:
    """`text` lowercased, if it is ASCII (None: every pattern must scan it)."""
    global _LAST
    last = _LAST  # one read: another thread may set it meanwhile
    if last[0] is not text:
        last = _LAST = (text, text.lower() if text.isascii() else None)
    return last[1]


# By the pattern's id, the pattern kept with its words (so that the id is never reused):
# hashing a compiled pattern hashes its code, and this is asked on every reply.
_SEEN: dict[int, tuple[re.Pattern[str], tuple[frozenset[str], ...]]] = {}


def _remember(pattern: re.Pattern[str]) -> tuple[re.Pattern[str], tuple[frozenset[str], ...]]:
    seen = _SEEN[id(pattern)] = (pattern, required_words(pattern.pattern, pattern.flags))
    return seen


def _selectivity(words: frozenset[str]) -> tuple[int, int]:
    # Longer words, then fewer, rule out more texts: "been" before "to" or {"has", "was"}.
    return -min(len(word) for word in words), len(words)


def _required(sequence: Any) -> list[frozenset[str]]:
    """Sets of words, each of which a match of `sequence` holds one of."""
    required: list[frozenset[str]] = []
    run: list[str] = []

    def end_run() -> None:
        # A single letter or digit rules out almost nothing; a "$", "_" or "(" does.
        if len(run) > 1 or (run and not run[0].isalnum()):
            required.append(frozenset({"".join(run).lower()}))
        run.clear()

    for op, value in sequence:
        if op is sre.LITERAL:
            run.append(chr(value))
            continue
        end_run()
        if op is sre.SUBPATTERN:
            required += _required(value[-1])
        elif op in _REPEATS and value[0] >= 1:
            required += _required(value[2])
        elif op is sre.BRANCH:
            each = [_required(branch) for branch in value[1]]
            if all(each):
                required.append(frozenset().union(*(min(r, key=_selectivity) for r in each)))
    end_run()
    return required
