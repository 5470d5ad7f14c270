"""Text from outside (a model, a tool result, a server, a scenario file) made safe to show
on a terminal: what a terminal would obey as a command is shown as its escape instead.

A terminal acts on control characters: `ESC ]0;…BEL` sets the window title, `ESC ]52;…`
writes the clipboard, `ESC [2J` clears the screen, a carriage return or a backspace
overwrites what was printed, and C1 controls (U+0080–U+009F, e.g. U+009B, CSI in one
character) do the same on terminals that take them. Bidirectional overrides, embeddings,
isolates and marks (U+202E "right-to-left override" and kin) reorder what follows, so that
`\\u202etxt.exe` reads "exe.txt"; Unicode tag characters (U+E0000–U+E007F) are invisible
text. Each of them is shown as its `\\uXXXX` escape (a tag as its two UTF-16 halves, as
JSON writes it), never sent.
Newline and tab are kept: they lay text out and command nothing.

The escapes are JSON's own, so JSON text stays valid JSON with the same value (the
inspector's copy, a transcript's JSONL), and Markdown shows them as written (a backslash
before a letter is no Markdown escape). The mapping is one character at a time, so text
that arrives in pieces (a streamed reply, a sequence split across chunks) is escaped the
same, piece by piece, as whole. A literal backslash is left as it is: `\\u001b` typed as
six characters and an escaped ESC look alike, and neither commands the terminal.

Every front end applies `escape_controls` where such text reaches a screen or a file a
person reads with `cat`: the chat REPL's output, the TUI's widgets, toasts and status
line, the Markdown transcript. Standard library only, so any front end may import it at
start-up. It also repairs text holding lone UTF-16 halves (`clean_text`), which no terminal
or file takes.
"""

from __future__ import annotations

import re

# C0 controls but tab (U+0009) and newline (U+000A); DEL and the C1 controls; the Arabic
# letter mark; left-to-right/right-to-left marks; embeddings, overrides and their pop;
# isolates and their pop; tag characters.
_COMMANDS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
)

# A lone UTF-16 half (U+D800–U+DFFF): no character, and no file or terminal takes it as
# text. `clean_text` repairs it (tools/untrusted.py does the rest: JSON from outside);
# scenarios/yaml_text.py refuses it. Here, in the module every front end loads at
# start-up: redacting a pane's text or checking the library's YAML needs nothing heavier.
SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"  # what the Unicode standard puts in place of undecodable text
_SPLIT_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def escape_controls(text: str) -> str:
    """`text` with every character a terminal would obey (or that reorders or hides what
    follows) written as its visible escape: `\\x1b` becomes the six characters `\\u001b`."""
    if text.isascii() and text.isprintable():
        return text  # the usual line: nothing to look for
    return _COMMANDS.sub(_escape, text)


def _combined(match: re.Match[str]) -> str:
    pair = match.group()
    high, low = pair[0], pair[1]
    return chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(low) - 0xDC00))


def clean_text(text: str) -> str:
    """Halves of one character that arrived apart joined again; any other surrogate
    replaced by U+FFFD. Text without surrogates is returned as it is (the usual case)."""
    if text.isascii() or SURROGATE.search(text) is None:
        return text
    return SURROGATE.sub(REPLACEMENT, _SPLIT_PAIR.sub(_combined, text))
