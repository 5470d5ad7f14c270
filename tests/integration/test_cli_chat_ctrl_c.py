"""Ctrl-C in `airline-agent chat` on a terminal: cancels a running turn, ends at the prompt.

The chat runs as a process on a pseudo-terminal (Ctrl-C is the byte the terminal turns
into SIGINT), against the loopback Chat Completions server.
"""

from __future__ import annotations

import asyncio
import io
import os
import signal
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from airline_agent.agent.history import problems
from tests.support.chat_server import ChatServer
from tests.support.cli import cli_env
from tests.support.terminal import Terminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")


def _terminal(server: ChatServer, db: Path) -> Terminal:
    env = cli_env(server, TERM="dumb", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return Terminal(["-m", "airline_agent", "chat", "--db", str(db)], env)


def test_ctrl_c_cancels_the_running_turn_and_the_chat_goes_on(chat_server: ChatServer, db: Path):
    # The turn to cancel: its answer is held until the test ends, however long that takes.
    chat_server.stream("This answer comes too late.", held=True)
    chat_server.stream("Hello again! How can I help?")
    terminal = _terminal(chat_server, db)
    try:
        terminal.wait_for(b"you> ")
        terminal.type(b"what is on EHGLP3?\n")
        chat_server.wait_for_requests(1)  # the request is out: the turn is running
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


def test_ctrl_c_the_instant_the_approval_question_is_printed_cancels_the_turn_at_once(
    chat_server: ChatServer, db: Path
):
    """Defect 3 (issue 9): Ctrl-C just after the question is printed, before its answer is
    read. On the old code the cancel waited for the event loop, which was blocked reading
    the answer: the chat hung until another line came (here, the watchdog's)."""
    from airline_agent.commands.chat.repl import run_chat
    from airline_agent.config import Settings

    chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
    read_end, write_end = os.pipe()
    os.write(write_end, b"cancel EHGLP3 please\n")
    finished, rescued = threading.Event(), threading.Event()

    class Screen(io.StringIO):
        def write(self, text: str) -> int:
            written = super().write(text)
            if "approve? [y/N]" in text:
                signal.raise_signal(signal.SIGINT)  # Ctrl-C, in the same instant
            if "turn cancelled" in text:
                os.write(write_end, b"/quit\n")
            return written

    def watchdog() -> None:
        if not finished.wait(60):  # a hung chat gets the lines it waits for
            rescued.set()
            os.write(write_end, b"n\n/quit\n")

    threading.Thread(target=watchdog, daemon=True).start()
    screen = Screen()
    settings = Settings(model="gpt-4o-mini", base_url=chat_server.url, db=str(db), approve="ask")
    with os.fdopen(read_end, encoding="utf-8") as stdin:
        try:
            status = asyncio.run(run_chat(settings, stdin=stdin, stdout=screen))
        finally:
            finished.set()
            os.close(write_end)
    shown = screen.getvalue()
    assert not rescued.is_set(), f"the chat hung after Ctrl-C:\n{shown}"
    assert "turn cancelled" in shown and "→ cancel_reservation" not in shown
    assert status == 0
    with sqlite3.connect(db) as connection:
        (reservation_status,) = connection.execute(
            "SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'"
        ).fetchone()
    assert reservation_status is None  # still active
