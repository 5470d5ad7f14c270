"""Following a growing file line by line, as `tail -F` does (`tui --watch`).

A poll reads what was appended since the last one and gives back the complete lines; a
last line without its newline yet waits for the next poll. A file that is not there yet
(or not any more) is waited for; one truncated or replaced (rotated: another file under
the name) is read again from its start. A line longer than `max_line` bytes is dropped
as it comes, without being held whole, and counted. Blocking IO: call it from a thread.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

MAX_LINE_BYTES = 4_000_000  # the server writes 500 kB arguments in one line; a log, no more
READ_BYTES = 256 * 1024  # per read: a poll gives back at most a few of these


class LogTail:
    def __init__(self, path: Path, *, max_line: int = MAX_LINE_BYTES) -> None:
        self.path = path
        self.max_line = max_line
        self.overlong = 0  # lines dropped for their length
        self.restarts = 0  # times the file was truncated or replaced
        self._file: BinaryIO | None = None
        self._identity: tuple[int, int] | None = None  # (device, inode) of the open file
        self._partial = bytearray()  # the last line so far, its newline not written yet
        self._dropping = False  # inside an overlong line: skip to its newline
        # The last poll read to the end of the file (False: it stopped at `reads` reads,
        # and the next poll need not wait for the file to grow).
        self.caught_up = True

    @property
    def present(self) -> bool:
        """The file is open (it appeared, and is a regular file)."""
        return self._file is not None

    def poll(self, *, reads: int = 4) -> list[str]:
        """The complete lines appended since the last poll (newline stripped, UTF-8 with
        bad bytes replaced), at most `reads` reads' worth: call again for the rest."""
        self.caught_up = True
        if not self._follow():
            return []
        assert self._file is not None
        lines: list[str] = []
        for _ in range(reads):
            chunk = self._file.read(READ_BYTES)
            if not chunk:
                return lines
            lines += self._lines_of(chunk)
        self.caught_up = False  # maybe more: a long line spans many reads
        return lines

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self._identity = None

    def _follow(self) -> bool:
        """Open the file, or the file now under its name, or rewind a truncated one;
        False: there is none to read."""
        try:
            status = os.stat(self.path)
        except OSError:
            return self._file is not None  # gone (rotating): read what the old one had
        if not stat.S_ISREG(status.st_mode):
            self.close()
            return False
        identity = (status.st_dev, status.st_ino)
        if self._file is not None and identity != self._identity:
            self._start_over()  # another file under the name
        if self._file is None:
            try:
                self._file = open(self.path, "rb")  # noqa: SIM115 -- kept open between polls
            except OSError:
                return False
            self._identity = identity
        elif status.st_size < self._file.tell():
            self._file.seek(0)  # truncated: what is there now is new
            self._forget_partial()
            self.restarts += 1
        return True

    def _start_over(self) -> None:
        self.close()
        self._forget_partial()
        self.restarts += 1

    def _forget_partial(self) -> None:
        self._partial.clear()
        self._dropping = False

    def _lines_of(self, chunk: bytes) -> list[str]:
        *complete, rest = chunk.split(b"\n")
        lines: list[str] = []
        for piece in complete:
            if self._dropping:
                self._dropping = False  # the overlong line ends here
                continue
            self._partial += piece
            if len(self._partial) > self.max_line:
                self.overlong += 1
            else:
                lines.append(self._partial.decode("utf-8", errors="replace"))
            self._partial.clear()
        if not self._dropping:
            self._partial += rest
            if len(self._partial) > self.max_line:
                self.overlong += 1
                self._partial.clear()
                self._dropping = True
        return lines
