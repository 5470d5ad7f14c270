"""Text and values from outside (a model server, a file, the command line) made safe to
keep, print, send and store, and the one reader of JSON text from outside (`parse_json`).

A Python string can hold lone UTF-16 surrogates (U+D800–U+DFFF), and no UTF-8 encoder
accepts one: printing it, sending it to a server or storing it in SQLite raises
`UnicodeEncodeError`. They arrive from JSON text that escapes one half of a pair
(`"\\ud83d"`), from a server that splits an emoji's two halves across two stream chunks
(each chunk decodes to a lone half), and from command-line bytes that are not UTF-8
(Python decodes them to `\\udc80`–`\\udcff`). Values nested thousands deep break every
recursive consumer (json, yaml, pydantic, our own walks) with `RecursionError`.

This module imports nothing of the package. It sits in the tool layer, the lowest that
needs it (tool arguments), so that the agent, the scenarios and the commands may too.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from airline_agent.terminal_text import REPLACEMENT, SURROGATE, clean_text

# Levels of lists and objects a JSON value from outside may have (tool arguments need 3:
# `{"flights": [{"date": …}]}`); well below where recursive code breaks.
MAX_DEPTH = 32
# No tool takes a number beyond a million (a fare, a certificate, bags), nor does a request
# body; one of more digits than this is a mistake or an attack, refused before anything
# converts it (Python will not even turn an integer of over 4,300 digits into text).
MAX_NUMBER_DIGITS = 20
_HIGH = ("\ud800", "\udbff")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_TOO_LARGE = 10**MAX_NUMBER_DIGITS
_NUMBERS_ARE = f"a number is finite and has at most {MAX_NUMBER_DIGITS} digits"

JsonValue: TypeAlias = "dict[str, JsonValue] | list[JsonValue] | str | int | float | bool | None"
JsonObject: TypeAlias = dict[str, "JsonValue"]


def has_surrogate(text: str) -> bool:
    """Whether the text holds a surrogate (one that no encoder can write)."""
    return SURROGATE.search(text) is not None


def escape_surrogates(text: str) -> str:
    """Each surrogate written as its escape (`\\ud800`): to print what was given, as given."""
    if SURROGATE.search(text) is None:
        return text
    return SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class SurrogateJoiner:
    """One stream of text pieces (a reply's content, one call's arguments…): a high
    surrogate at the end of a piece waits for the low one at the start of the next."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece if self._held else piece
        self._held = ""
        if SURROGATE.search(text) is None:
            return text
        if _HIGH[0] <= text[-1] <= _HIGH[1]:
            text, self._held = text[:-1], text[-1]
        return clean_text(text)

    def flush(self) -> str:
        """What is still held at the end of the stream: a half that never found its pair."""
        held, self._held = self._held, ""
        return REPLACEMENT if held else ""


def clean_strings(value: Any) -> Any:
    """A JSON-like value with `clean_text` applied to every string in it, keys included.

    Iterative, so any depth is fine; tuples come back as lists. A value without
    surrogates is returned as it is.
    """
    return map_strings(value, clean_text) if holds_surrogate(value) else value


def holds_surrogate(value: object) -> bool:
    """Whether any string of a JSON-like value (keys too) holds a surrogate (level by
    level, iteratively: any depth is fine)."""
    level = [value]
    while level:
        below: list[object] = []
        for item in level:
            if isinstance(item, str):
                if SURROGATE.search(item) is not None:
                    return True
            elif isinstance(item, dict):
                below.extend(item)  # the keys
                below.extend(item.values())
            elif isinstance(item, list | tuple):
                below.extend(item)
        level = below
    return False


def map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """A copy of a JSON-like value with `change` applied to every string (keys too)."""
    holder: list[Any] = [None]
    pending: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while pending:
        source, target, slot = pending.pop()
        if isinstance(source, str):
            target[slot] = change(source)
        elif isinstance(source, dict):
            copy: dict[Any, Any] = {}
            target[slot] = copy
            for key, item in source.items():
                key = change(key) if isinstance(key, str) else key
                copy[key] = None
                pending.append((item, copy, key))
        elif isinstance(source, list | tuple):
            items: list[Any] = [None] * len(source)
            target[slot] = items
            pending.extend((item, items, index) for index, item in enumerate(source))
        else:
            target[slot] = source
    return holder[0]


def depth_beyond(value: object, limit: int) -> bool:
    """Whether lists and dicts are nested more than `limit` levels deep (a scalar is 0,
    `{"a": 1}` is 1). Level by level, iteratively; stops at the first level past the limit."""
    level = [value]
    depth = 0
    while True:
        containers = [item for item in level if isinstance(item, dict | list | tuple)]
        if not containers:
            return False
        depth += 1
        if depth > limit:
            return True
        level = []
        for container in containers:
            level.extend(container.values() if isinstance(container, dict) else container)


@dataclass(frozen=True, slots=True)
class LoneSurrogate:
    """Where a value holds a lone surrogate: the dotted path and the string, both escaped
    (so that they can be printed)."""

    path: str
    text: str

    def describe(self) -> str:
        shown = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return (
            f'`{self.path}` is not valid text ("{shown}"): it holds a lone surrogate '
            "(U+D800–U+DFFF: half of a UTF-16 pair, or bytes that were not UTF-8)"
        )


def first_surrogate(value: object) -> LoneSurrogate | None:
    """Where a JSON-like value first holds a surrogate, in document order; None if
    nowhere. Keys are checked too."""
    pending: list[tuple[object, str]] = [(value, "")]
    while pending:
        item, path = pending.pop()
        if isinstance(item, str):
            if SURROGATE.search(item) is not None:
                return LoneSurrogate(escape_surrogates(path), escape_surrogates(item))
        elif isinstance(item, dict):
            children = []
            for key, child in item.items():
                where = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and SURROGATE.search(key) is not None:
                    return LoneSurrogate(escape_surrogates(where), escape_surrogates(key))
                children.append((child, where))
            pending.extend(reversed(children))
        elif isinstance(item, list | tuple):
            pending.extend((item[i], f"{path}[{i}]") for i in reversed(range(len(item))))
    return None


# ---------------------------------------------------------------- JSON text from outside


@dataclass(frozen=True, slots=True)
class ParsedJson:
    """JSON text from outside, read: no `NaN` or `Infinity`, no number out of range, no
    nesting past the depth asked for. `value` is what the text says; a lone surrogate in
    it (written as an escape, or as a character) is never passed on unnoticed:
    `lone_surrogate` names the first, for a caller to refuse it, and `safe_value()`
    replaces each with U+FFFD, for a caller that keeps what it can."""

    value: JsonValue
    lone_surrogate: LoneSurrogate | None = None

    def safe_value(self) -> JsonValue:
        if self.lone_surrogate is None:
            return self.value
        cleaned: JsonValue = clean_strings(self.value)
        return cleaned


@dataclass(frozen=True, slots=True)
class UnusableJson:
    """JSON text from outside that cannot be used: what is wrong (`problem`), and one
    phrase saying so for a person (`message`, to follow "the arguments:" or the like)."""

    problem: Literal["syntax", "depth", "number", "duplicate"]
    message: str


def parse_json(
    text: str, *, max_depth: int = MAX_DEPTH, unique_keys: bool = False
) -> ParsedJson | UnusableJson:
    """The one reader of JSON text from outside (a model's tool arguments, a body edited
    at the debugger, the command line): never raises, whatever the text. `unique_keys`:
    refuse an object that names a key twice, which JSON leaves to each reader (Python's
    keeps the last, others the first): text that goes on the wire as written must mean
    to the server what it meant to the check."""
    try:
        value = json.loads(
            text,
            parse_int=_integer,
            parse_float=_real,
            parse_constant=_not_a_number,
            object_pairs_hook=_unique if unique_keys else None,
        )
    except _NumberRefused as refused:
        return UnusableJson("number", refused.message)
    except _KeyTwice as twice:
        return UnusableJson("duplicate", f"the key {twice.key!r} is given twice in one object")
    except RecursionError:
        return UnusableJson("depth", f"nested more than {max_depth} levels deep")
    except ValueError as exc:  # json.JSONDecodeError, and text Python cannot decode
        return UnusableJson("syntax", f"not valid JSON ({exc})")
    if depth_beyond(value, max_depth):
        return UnusableJson("depth", f"nested more than {max_depth} levels deep")
    # A surrogate is written either as itself (not ASCII) or as an escape in the text.
    maybe = not text.isascii() or _SURROGATE_ESCAPE.search(text) is not None
    return ParsedJson(value, first_surrogate(value) if maybe else None)


def parse_json_at(text: str, start: int = 0) -> ParsedJson | UnusableJson:
    """The JSON value that begins at `start` in a longer text (a call a model wrote in its
    reply, among its words), read as `parse_json` reads JSON from outside; whatever
    follows it is not read. Never raises."""
    decoder = json.JSONDecoder(parse_int=_integer, parse_float=_real, parse_constant=_not_a_number)
    try:
        value, end = decoder.raw_decode(text, start)
    except _NumberRefused as refused:
        return UnusableJson("number", refused.message)
    except RecursionError:
        return UnusableJson("depth", f"nested more than {MAX_DEPTH} levels deep")
    except ValueError as exc:
        return UnusableJson("syntax", f"not valid JSON ({exc})")
    if depth_beyond(value, MAX_DEPTH):
        return UnusableJson("depth", f"nested more than {MAX_DEPTH} levels deep")
    read = text[start:end]
    maybe = not read.isascii() or _SURROGATE_ESCAPE.search(read) is not None
    return ParsedJson(value, first_surrogate(value) if maybe else None)


class _KeyTwice(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = escape_surrogates(key) if len(key) <= 60 else escape_surrogates(key[:57]) + "..."


def _unique(pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
    made = dict(pairs)
    if len(made) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise _KeyTwice(key)
            seen.add(key)
    return made


class _NumberRefused(ValueError):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _NumberRefused(number_refusal(digits))
    return int(digits)


def _real(digits: str) -> float:
    mantissa = digits.lower().partition("e")[0]
    if sum(character.isdigit() for character in mantissa) > MAX_NUMBER_DIGITS:
        raise _NumberRefused(number_refusal(digits))
    value = float(digits)
    if not math.isfinite(value):
        raise _NumberRefused(number_refusal(digits))
    return value


def _not_a_number(name: str) -> float:  # NaN, Infinity, -Infinity: JavaScript's, not JSON's
    raise _NumberRefused(f"{name} is not JSON ({_NUMBERS_ARE})")


def number_out_of_range(item: object) -> bool:
    """Whether a value is a number that JSON text from outside could not have given us
    (`parse_json`): an integer of more than MAX_NUMBER_DIGITS digits, or a float that is
    not finite."""
    if isinstance(item, bool):
        return False
    if isinstance(item, int):
        return not -_TOO_LARGE < item < _TOO_LARGE
    return isinstance(item, float) and not math.isfinite(item)


def first_number_out_of_range(value: object) -> int | float | None:
    """The first number out of range (`number_out_of_range`) at any depth, or None."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
        elif isinstance(item, int | float) and number_out_of_range(item):
            return item
    return None


def number_refusal(number: str | int | float) -> str:
    """Why a number is refused, showing it (`shown_number`)."""
    return f"the number {shown_number(number)} is out of range ({_NUMBERS_ARE})"


def shown_number(number: str | int | float) -> str:
    """A number as a person can read it: a long one by its ends and size."""
    if isinstance(number, str):  # as the text wrote it
        if len(number) > 24:
            return f"{number[:12]}…{number[-4:]}, {len(number):,} characters"
        return number
    if isinstance(number, float):
        return repr(number)
    # Python will not write an integer of over 4,300 digits as text: its size instead.
    sign = "-" if number < 0 else ""
    return f"{sign}10^{int(abs(number).bit_length() * math.log10(2))} or so"
