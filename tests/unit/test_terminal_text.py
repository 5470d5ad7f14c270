"""`escape_controls`: nothing a terminal would obey survives it, what it leaves is what it
was given, JSON text stays the same JSON, and pieces are escaped as the whole."""

from __future__ import annotations

import itertools
import json
import re

from hypothesis import given
from hypothesis import strategies as st

from airline_agent.terminal_text import escape_controls

COMMANDS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
)
# Text with many of the characters that matter: controls, bidi, tags, emoji, backslashes.
HOSTILE_TEXT = st.text(
    st.one_of(
        st.characters(max_codepoint=0xA0),
        st.sampled_from("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"),
        st.sampled_from("\U000e0041\U000e007f\\é€😀\u2028"),
        st.characters(exclude_categories=("Cs",)),
    )
)


def test_the_sequences_of_issue_19_are_shown_not_sent() -> None:
    assert escape_controls("a\x1b]0;title\x07b") == "a\\u001b]0;title\\u0007b"
    assert escape_controls("\x1b]52;c;b3duZWQ=\x07") == "\\u001b]52;c;b3duZWQ=\\u0007"
    assert escape_controls("\x1b[2J\x9b31m") == "\\u001b[2J\\u009b31m"
    assert escape_controls("\u202etxt.exe\u202c") == "\\u202etxt.exe\\u202c"
    assert escape_controls("del\x7f cr\r bs\x08") == "del\\u007f cr\\u000d bs\\u0008"
    assert escape_controls("tag\U000e0041") == "tag\\udb40\\udc41"


def test_layout_and_ordinary_text_are_left_as_they_are() -> None:
    text = "Line one\n\tindented: café, 東京, 😀, a\\u001b typed by hand"
    assert escape_controls(text) == text


@given(HOSTILE_TEXT)
def test_no_command_survives(text: str) -> None:
    assert COMMANDS.search(escape_controls(text)) is None


@given(HOSTILE_TEXT)
def test_json_text_stays_the_same_json(text: str) -> None:
    # Also: nothing but the commands changes, or the value would not read back the same.
    document = json.dumps({"reply": text}, ensure_ascii=False)
    assert json.loads(escape_controls(document)) == {"reply": text}


@given(HOSTILE_TEXT, st.lists(st.integers(min_value=0, max_value=200), max_size=6))
def test_pieces_are_escaped_as_the_whole(text: str, cuts: list[int]) -> None:
    bounds = sorted({0, len(text), *(min(c, len(text)) for c in cuts)})
    pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
    assert "".join(escape_controls(piece) for piece in pieces) == escape_controls(text)
