"""A command on a pseudo-terminal: type into it (Ctrl-C is the byte the terminal turns
into SIGINT), wait for what it prints, read its exit status."""

from __future__ import annotations

import os
import select
import sys
import time


class Terminal:
    """The chat on a pseudo-terminal: type into it, wait for what it prints."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        import pty

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the chat, with the terminal as its stdin/stdout
            os.execve(sys.executable, [sys.executable, *argv], env)
        self.seen = b""
        self.read_up_to = 0  # what `wait_for` has matched so far: it looks past this

    def type(self, data: bytes) -> None:
        os.write(self.fd, data)

    def wait_for(self, needle: bytes, timeout: float = 60) -> None:
        """Wait until `needle` is printed after what the last call matched."""
        deadline = time.monotonic() + timeout
        while needle not in self.seen[self.read_up_to :]:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{needle!r} not shown; the terminal has:\n{self.text}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError as closed:  # the child closed the terminal
                    raise AssertionError(f"{needle!r} not shown:\n{self.text}") from closed
        self.read_up_to = self.seen.index(needle, self.read_up_to) + len(needle)

    def exit_status(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            try:  # keep reading, or the child may block writing to a full terminal
                if select.select([self.fd], [], [], 0.05)[0]:
                    self.seen += os.read(self.fd, 65536)
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"the chat did not exit; the terminal has:\n{self.text}")

    def close(self) -> None:
        try:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)

    @property
    def text(self) -> str:
        return self.seen.decode(errors="replace")
