"""What the chat writes: every piece redacted (`airline_agent.redaction`), then with what
a terminal would obey (escape sequences, C1 controls, bidi overrides) shown as visible
escapes (`airline_agent.terminal_text`), and never a UnicodeEncodeError, whatever the
stream's encoding (a strict UTF-8 locale, `LC_ALL=C`, `PYTHONIOENCODING=ascii`): a
character the stream cannot encode is written as its backslash escape.

Every line and piece the printer makes passes `_put`: the model's reply, streamed or
whole, its reasoning, tool arguments, approval previews, errors and hints. Escaping one
character at a time needs no state across a stream's pieces: an ESC at the end of one
chunk is shown as `\u001b` whatever the next chunk holds."""

from __future__ import annotations

import contextlib
import io
from typing import TextIO

from airline_agent.redaction import Redactor, StreamRedactor
from airline_agent.terminal_text import escape_controls


class Output:
    """One stream of the chat (stdout or stderr), redacted and encodable."""

    def __init__(self, stream: TextIO, redactor: Redactor) -> None:
        self.stream = stream
        self.redactor = redactor
        self._streamed: StreamRedactor | None = None  # inside text that arrives in pieces
        _tolerate_unencodable(stream)

    def write(self, text: str) -> None:
        """Text as a whole (a line, a prompt): redacted by value and by pattern."""
        self._end_pieces()
        self._put(self.redactor.redact(text))

    def line(self, text: str = "") -> None:
        self.write(text + "\n")

    def piece(self, text: str) -> None:
        """Part of a streamed reply: a secret split over pieces is still blanked out."""
        if self._streamed is None:
            self._streamed = self.redactor.stream()
        self._put(self._streamed.feed(text))

    def end_pieces(self) -> None:
        """The streamed reply is complete: write what was held back."""
        self._end_pieces()

    def _end_pieces(self) -> None:
        if self._streamed is not None:
            rest, self._streamed = self._streamed.flush(), None
            self._put(rest)

    def _put(self, text: str) -> None:
        if not text:
            return
        text = escape_controls(text)
        try:
            self.stream.write(text)
        except UnicodeEncodeError:  # a stream that could not be reconfigured
            encoding = getattr(self.stream, "encoding", None) or "ascii"
            self.stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
        self.stream.flush()


def _tolerate_unencodable(stream: TextIO) -> None:
    """Make the stream escape what its encoding cannot write, instead of raising."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None:
        return
    # A stream that cannot change is escaped by `_put` instead.
    with contextlib.suppress(ValueError, io.UnsupportedOperation):
        reconfigure(errors="backslashreplace")
