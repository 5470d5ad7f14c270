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


def has_surrogate(text: str) -> bool:
    """Whether the text holds a surrogate (one that no encoder can write)."""
    return SURROGATE.search(text) is not None


def _combined(match: re.Match[str]) -> str:
    high, low = match.group()
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def clean_text(text: str) -> str:
    """Halves of one character that arrived apart joined again; any other surrogate
    replaced by U+FFFD. Text without surrogates is returned as it is (the usual case)."""
    if SURROGATE.search(text) is None:
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
    return map_strings(value, clean_text) if _holds_surrogate(value) else value


def _holds_surrogate(value: Any) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if SURROGATE.search(item) is not None:
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
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
    `{"a": 1}` is 1). Iterative, and stops at the first level past the limit."""
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


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
