"""The customer's lines, read in a thread of their own.

The event loop never blocks on input: the thread reads the bytes of stdin and hands each
line to the loop, where the prompt and the approval question await it. So Ctrl-C, decided
on the loop's thread (see `interrupts`), always finds the loop free to act on it.

The thread reads the file descriptor itself (`os.read`), not `sys.stdin`: a daemon
thread blocked inside a buffered reader holds its lock, which the interpreter would
then wait for at exit. Each line is decoded here, on the loop's side: a line that is not
valid text in the input's encoding is reported as such, never turned into surrogates
that would break what the line is written to later (the recording).
"""

from __future__ import annotations

import asyncio
import io
import os
import threading
from dataclasses import dataclass
from typing import TextIO

CHUNK_BYTES = 65536


@dataclass(frozen=True)
class InputLine:
    """One line of input: its text, or, when its bytes were not valid text, why not."""

    number: int  # 1-based, counting every line read
    text: str | None
    problem: str | None = None


class LineReader:
    """Lines of `stdin`, awaited one at a time; None at the end of input."""

    def __init__(self, stdin: TextIO, loop: asyncio.AbstractEventLoop) -> None:
        self.stdin = stdin
        self.encoding = getattr(stdin, "encoding", None) or "utf-8"
        self._loop = loop
        self._queue: asyncio.Queue[bytes | str | None] = asyncio.Queue()
        self._count = 0
        self._ended = False

    def start(self) -> LineReader:
        threading.Thread(target=self._pump, name="chat-input", daemon=True).start()
        return self

    async def next_line(self) -> InputLine | None:
        if self._ended:
            return None
        raw = await self._queue.get()
        if raw is None:
            self._ended = True
            return None
        self._count += 1
        if isinstance(raw, str):
            return InputLine(self._count, raw)
        try:
            return InputLine(self._count, raw.decode(self.encoding))
        except UnicodeDecodeError as exc:
            where = f"byte {exc.start + 1}: 0x{raw[exc.start]:02x}"
            return InputLine(self._count, None, f"not valid {self.encoding} text ({where})")

    # -- the reading thread -------------------------------------------------------------

    def _pump(self) -> None:
        try:
            descriptor = self.stdin.fileno()
        except (AttributeError, OSError, io.UnsupportedOperation):
            descriptor = None  # a stream in memory (a test): read it as text
        try:
            try:
                if descriptor is None:
                    self._pump_text()
                else:
                    self._pump_bytes(descriptor)
            except OSError:
                pass  # an input that fails (a terminal hung up) has ended
            self._post(None)
        except _LoopClosed:
            return

    def _pump_bytes(self, descriptor: int) -> None:
        pending = b""
        while chunk := os.read(descriptor, CHUNK_BYTES):
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self._post(line + b"\n")
        if pending:
            self._post(pending)

    def _pump_text(self) -> None:
        while line := self.stdin.readline():
            self._post(line)

    def _post(self, item: bytes | str | None) -> None:
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)
        except RuntimeError:  # the chat has ended and its loop is closed
            raise _LoopClosed from None


class _LoopClosed(Exception):
    pass
