"""Text and values from outside (a model server, a file, the command line) made safe to
keep, print, send and store.

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

import re
from collections.abc import Callable
from typing import Any

REPLACEMENT = "\ufffd"  # what the Unicode standard puts in place of undecodable text
# Levels of lists and objects a JSON value from outside may have (tool arguments need 3:
# `{"flights": [{"date": …}]}`); well below where recursive code breaks.
MAX_DEPTH = 32
SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH = ("\ud800", "\udbff")
_SPLIT_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_SEQUENCES = (list, tuple)  # a tuple, not a union: isinstance is twice as fast with it
_CONTAINERS = (dict, list, tuple)
_SCALARS = (int, float)  # bool is an int


def has_surrogate(text: str) -> bool:
    """Whether the text holds a surrogate (one that no encoder can write)."""
    return SURROGATE.search(text) is not None


def _combined(match: re.Match[str]) -> str:
    high, low = match.group()
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def clean_text(text: str) -> str:
    """Halves of one character that arrived apart joined again; any other surrogate
    replaced by U+FFFD. Text without surrogates is returned as it is (the usual case)."""
    if text.isascii() or SURROGATE.search(text) is None:
        return text
    return SURROGATE.sub(REPLACEMENT, _SPLIT_PAIR.sub(_combined, text))


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


def is_flat_ascii(arguments: dict[Any, Any]) -> bool:
    """True for the usual tool arguments: ASCII keys, each value a number, a boolean, null
    or ASCII text. Such arguments need no walk for depth or surrogates (a microsecond
    here against a tool call of tens of microseconds)."""
    return flat_ascii_numbers(arguments) is not None


def flat_ascii_numbers(arguments: dict[Any, Any]) -> list[int | float] | None:
    """The numbers among the usual tool arguments (`is_flat_ascii`), in order, found in
    the same pass; None for any other arguments."""
    # Exact types (`type(x) is str`, a set of the others): cheaper than isinstance, and
    # a subclass only takes the long way.
    numbers: list[int | float] = []
    for key, value in arguments.items():
        if type(key) is not str or not key.isascii():
            return None
        kind = type(value)
        if kind is str:
            if not value.isascii():
                return None
        elif kind is int or kind is float:
            numbers.append(value)
        elif kind not in _FLAT_SCALARS:
            return None
    return numbers


_FLAT_SCALARS = frozenset({int, float, bool, type(None)})


def holds_surrogate(value: Any) -> bool:
    """Whether any string of a JSON-like value (keys too) holds a surrogate. Level by
    level, iteratively: a tool call's arguments take a few microseconds."""
    search = SURROGATE.search
    level = [value]
    while level:
        below: list[Any] = []
        for item in level:
            if isinstance(item, str):
                if not item.isascii() and search(item) is not None:
                    return True
            elif isinstance(item, dict):
                below.extend(item)  # the keys
                below.extend(item.values())
            elif isinstance(item, _SEQUENCES):
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


def depth_beyond(value: Any, limit: int) -> bool:
    """Whether lists and dicts are nested more than `limit` levels deep (a scalar is 0,
    `{"a": 1}` is 1). Level by level, iteratively; stops at the first level past the limit."""
    level = [value]
    depth = 0
    while True:
        containers = [item for item in level if isinstance(item, _CONTAINERS)]
        if not containers:
            return False
        depth += 1
        if depth > limit:
            return True
        level = []
        for container in containers:
            level.extend(container.values() if isinstance(container, dict) else container)


def first_surrogate(value: Any) -> tuple[str, str] | None:
    """Where a JSON-like value first holds a surrogate, in document order: its dotted
    path and the string, both escaped; None if nowhere. Keys are checked too."""
    pending: list[tuple[Any, str]] = [(value, "")]
    while pending:
        item, path = pending.pop()
        if isinstance(item, str):
            if SURROGATE.search(item) is not None:
                return escape_surrogates(path), escape_surrogates(item)
        elif isinstance(item, dict):
            children = []
            for key, child in item.items():
                where = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and SURROGATE.search(key) is not None:
                    return escape_surrogates(where), escape_surrogates(key)
                children.append((child, where))
            pending.extend(reversed(children))
        elif isinstance(item, list | tuple):
            pending.extend((item[i], f"{path}[{i}]") for i in reversed(range(len(item))))
    return None
