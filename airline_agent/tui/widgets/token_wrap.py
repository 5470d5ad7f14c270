"""Wrapping a trace row to its pane's width without splitting a token.

A row is wrapped at spaces, but some spaces hold a token together: a bracketed group
(`stream_options={'include_usage': True}`, a call's arguments), a number and the word
after it (`60 ms`, `4 messages`), a separator and what it introduces (`· 60 ms`,
`→ cancelled`), and non-breaking spaces (the producer badge). A token wider than the whole
line is broken at its own spaces (a call's arguments, one per line if need be), and a
word still wider is folded: nothing of a row is ever cut off. A continuation line keeps
the row's indentation (JSON stays readable).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.content import Content
from textual.visual import Visual

if TYPE_CHECKING:
    from textual.css.styles import RulesMap
    from textual.strip import Strip
    from textual.style import Style
    from textual.visual import RenderOptions

OPENERS = {"(": ")", "[": "]", "{": "}"}
NUMBER_THEN_WORD = re.compile(r"\d[\d,.]*%?( )[^\W\d]")
SEPARATOR_THEN_WORD = re.compile(r"(?:^| )[·→=]( )\S")


def _glued_spaces(line: str) -> set[int]:
    """Positions of the spaces a line must not break at (see the module)."""
    glued: set[int] = set()
    for pattern in (NUMBER_THEN_WORD, SEPARATOR_THEN_WORD):
        glued.update(match.start(1) for match in pattern.finditer(line))
    # An opener glues only if its closer comes somewhere after it.
    last = {closer: line.rfind(closer) for closer in OPENERS.values()}
    closing: list[str] = []
    for index, char in enumerate(line):
        if char in OPENERS and last[OPENERS[char]] > index:
            closing.append(OPENERS[char])
        elif closing and char == closing[-1]:
            closing.pop()
        elif closing and char == " ":
            glued.add(index)
    return glued


def _tokens(line: str) -> list[tuple[int, int]]:
    """(start, end) of each token: the runs between the spaces a line may break at."""
    glued = _glued_spaces(line)
    tokens: list[tuple[int, int]] = []
    start = 0
    for index, char in enumerate(line):
        if char == " " and index not in glued:
            if index > start:
                tokens.append((start, index))
            start = index + 1
    if start < len(line):
        tokens.append((start, len(line)))
    return tokens


def _spaced(text: Text, spans: list[tuple[int, int]]) -> list[tuple[Text, Text]]:
    """(gap before, piece) for each (start, end) span of `text`: the text's own spacing.
    One `divide` for them all: a slice of a `Text` costs as much as the whole text, so a
    slice per span would cost a long line its length times its pieces."""
    if not spans:
        return []
    parts = text.divide([offset for span in spans for offset in span])
    return [(parts[2 * index], parts[2 * index + 1]) for index in range(len(spans))]


FOLD_AFTER = "([{,:"  # a word wider than the line folds after one of these if it can


def _folded(word: Text, room: int) -> list[tuple[Text, Text]]:
    """A word wider than the line, in pieces of at most `room` cells, each ending after
    an opening bracket or a separator where one falls in it (nothing is cut off)."""
    plain = word.plain
    cuts: list[int] = []
    start = 0
    while start < len(plain):
        end = start + 1  # measured on the plain text, cut once (see `_spaced`)
        while end < len(plain) and cell_len(plain[start : end + 1]) <= room:
            end += 1
        if end < len(plain):
            after = max(plain.rfind(mark, start, end) for mark in FOLD_AFTER) + 1
            end = after if after > start else end
            cuts.append(end)
        start = end
    return [(Text(), piece) for piece in word.divide(cuts)]


def _fitting(token: Text, room: int) -> list[tuple[Text, Text]]:
    """A token as pieces no wider than the line: broken at its own spaces when it is
    wider (the glue gives way before anything is folded), a word still wider folded."""
    if token.cell_len <= room:
        return [(Text(), token)]
    words = [(m.start(), m.end()) for m in re.finditer(r"[^ ]+", token.plain)]
    pieces: list[tuple[Text, Text]] = []
    for gap, word in _spaced(token, words):
        folded = _folded(word, room) if word.cell_len > room else [(Text(), word)]
        pieces.append((gap, folded[0][1]))
        pieces += folded[1:]
    return pieces


def wrap_line(line: Text, width: int) -> list[Text]:
    """One line of a row, wrapped to `width` cells at the spaces it may break at."""
    if line.cell_len <= width:
        return [line]  # most lines: nothing to wrap
    plain = line.plain
    indent = len(plain) - len(plain.lstrip(" "))
    room = max(width - indent, 1)
    body = line[indent:]
    wrapped: list[Text] = []
    current: Text | None = None
    for gap, token in _spaced(body, _tokens(body.plain)):
        pieces = _fitting(token, room)
        pieces[0] = (gap, pieces[0][1])  # the row's spacing before the token's first piece
        for piece_gap, piece in pieces:
            if current is not None and (
                current.cell_len + piece_gap.cell_len + piece.cell_len <= room
            ):
                current.append_text(piece_gap)
                current.append_text(piece)
                continue
            if current is not None:
                wrapped.append(current)
            current = piece
    wrapped.append(current if current is not None else Text())
    if indent:
        wrapped = [line[:indent] + piece for piece in wrapped]
    return wrapped


def wrap_whole_tokens(text: Text, width: int) -> list[Text]:
    """Every line of `text` wrapped to `width` cells without splitting a token."""
    return [piece for line in text.split("\n") for piece in wrap_line(line, width)]


class WholeTokens(Visual):
    """A Textual visual of `text` wrapped by `wrap_whole_tokens` at the width it is drawn
    at; the wrapping is kept per width (a trace row is measured and drawn many times)."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self._by_width: dict[int, Content] = {}

    def __str__(self) -> str:
        """The row's text, unwrapped (what a test or a copy reads)."""
        return self.text.plain

    def _content(self, width: int) -> Content:
        content = self._by_width.get(width)
        if content is None:
            lines = wrap_whole_tokens(self.text, max(width, 1))
            content = Content.from_rich_text(Text("\n").join(lines))
            self._by_width[width] = content
        return content

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        return self._content(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self._content(container_width).get_optimal_width(rules, container_width)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self._content(width).get_height(rules, width)
