"""Ctrl-C in `airline-agent chat` on a terminal: cancels a running turn, ends at the prompt.

The chat runs as a process on a pseudo-terminal (Ctrl-C is the byte the terminal turns
into SIGINT), against the loopback Chat Completions server.
"""

from __future__ import annotations

import os
import select
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from airline_agent.agent.history import problems
from tests.support.chat_server import ChatServer
from tests.support.cli import cli_env

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")


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

    def wait_for(self, needle: bytes, timeout: float = 30) -> None:
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

    def exit_status(self, timeout: float = 15) -> int:
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


def _terminal(server: ChatServer, db: Path) -> Terminal:
    env = cli_env(server, TERM="dumb", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return Terminal(["-m", "airline_agent", "chat", "--db", str(db)], env)


def test_ctrl_c_cancels_the_running_turn_and_the_chat_goes_on(chat_server: ChatServer, db: Path):
    chat_server.stream("This answer comes too late.", delay=20)  # the turn to cancel
    chat_server.stream("Hello again! How can I help?")
    terminal = _terminal(chat_server, db)
    try:
        terminal.wait_for(b"you> ")
        terminal.type(b"what is on EHGLP3?\n")
        deadline = time.monotonic() + 30
        while not chat_server.requests and time.monotonic() < deadline:
            time.sleep(0.02)  # the request is out: the turn is running
        terminal.type(b"\x03")
        terminal.wait_for(b"turn cancelled")
        terminal.wait_for(b"you> ", timeout=10)
        terminal.type(b"hello\n")
        terminal.wait_for(b"Hello again! How can I help?")
        terminal.wait_for(b"you> ")
        terminal.type(b"\x03")  # at the prompt: the chat ends, no Enter needed
        assert terminal.exit_status() == 0
    finally:
        terminal.close()
    assert "Traceback" not in terminal.text
    assert "This answer comes too late" not in terminal.text
    second = chat_server.requests[1]["messages"]
    assert problems(second) == []
    # Nothing came back for the cancelled message: it was taken back, not left unanswered.
    assert [m["content"] for m in second if m["role"] == "user"] == ["hello"]


def test_ctrl_c_at_an_approval_question_cancels_the_turn_and_writes_nothing(
    chat_server: ChatServer, db: Path
):
    chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
    chat_server.stream("Anything else?")
    terminal = _terminal(chat_server, db)
    try:
        terminal.wait_for(b"you> ")
        terminal.type(b"cancel EHGLP3 please\n")
        terminal.wait_for(b"approve? [y/N]")
        terminal.type(b"\x03")
        terminal.wait_for(b"turn cancelled")
        terminal.wait_for(b"you> ", timeout=10)
        terminal.type(b"thanks\n")
        terminal.wait_for(b"Anything else?")
        terminal.type(b"/quit\n")
        assert terminal.exit_status() == 0
    finally:
        terminal.close()
    assert "Traceback" not in terminal.text
    assert "→ cancel_reservation" not in terminal.text  # the write never ran
    second = chat_server.requests[1]["messages"]
    assert problems(second) == []
    with sqlite3.connect(db) as connection:
        (status,) = connection.execute(
            "SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'"
        ).fetchone()
    assert status is None  # still active
