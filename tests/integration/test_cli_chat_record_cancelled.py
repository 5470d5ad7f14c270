"""A turn cancelled with Ctrl-C in `chat --record` is recorded as cancelled and replays as
cancelled (issue 9, defect 7): never as a reply `content: ''` that `replay` calls passed.

The chat runs on a pseudo-terminal against the loopback server; the recording is then
replayed by `airline-agent replay --json`.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.support.chat_server import ChatServer
from tests.support.cli import cli_env, invoke_cli
from tests.support.terminal import Terminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

CANCEL = ("cancel_reservation", {"reservation_id": "EHGLP3", "reason": "change_of_plan"})


def _wait_for_requests(server: ChatServer, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while len(server.requests) < count:
        assert time.monotonic() < deadline, f"{count} requests expected, {server.requests}"
        time.sleep(0.02)


def test_turns_cancelled_with_ctrl_c_are_recorded_and_replayed_as_cancelled(
    chat_server: ChatServer, db: Path, tmp_path: Path
):
    chat_server.stream("This answer comes too late.", delay=30)  # turn 1: cancelled waiting
    chat_server.stream(tool_calls=[CANCEL])  # turn 2: cancelled at the approval question
    chat_server.stream("Of course. Anything else?")  # turn 3: answered
    recording = tmp_path / "cancelled-turns.yaml"
    env = cli_env(chat_server, TERM="dumb", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    argv = ["-m", "airline_agent", "chat", "--db", str(db), "--as", "emma_kim_9957"]
    terminal = Terminal([*argv, "--approve", "ask", "--record", str(recording)], env)
    try:
        terminal.wait_for(b"you> ")
        terminal.type(b"What is on EHGLP3?\n")
        _wait_for_requests(chat_server, 1)
        terminal.type(b"\x03")
        terminal.wait_for(b"turn cancelled")
        terminal.wait_for(b"you> ")
        terminal.type(b"Cancel EHGLP3, please.\n")
        terminal.wait_for(b"approve? [y/N]")
        terminal.type(b"\x03")
        terminal.wait_for(b"turn cancelled")
        terminal.wait_for(b"you> ")
        terminal.type(b"Never mind, thanks.\n")
        terminal.wait_for(b"Anything else?")
        terminal.wait_for(b"you> ")
        terminal.type(b"/quit\n")
        assert terminal.exit_status() == 0
    finally:
        terminal.close()
    assert "Traceback" not in terminal.text

    turns = yaml.safe_load(recording.read_text())["turns"]
    assert [turn.get("cancelled", False) for turn in turns] == [True, True, False]
    assert [turn["expect"].get("end", "answered") for turn in turns] == [
        "cancelled",
        "cancelled",
        "answered",
    ]
    assert turns[0].get("responses", []) == []  # nothing came before the cancel: no invented reply
    assert [c["name"] for c in turns[1]["responses"][0]["tool_calls"]] == ["cancel_reservation"]
    assert "content" not in turns[1]["responses"][0]
    assert turns[1]["expect"]["calls"] == []  # the write was never run

    replay = invoke_cli("replay", str(recording), "--json")
    assert replay.returncode == 0, replay.stdout + replay.stderr
    report = json.loads(replay.stdout)["scenarios"][0]
    assert report["status"] == "passed", report
    assert report["turn_ends"] == ["cancelled", "cancelled", "answered"]
    assert report["tool_calls"] == 0 and report["changed_records"] == []
    with sqlite3.connect(db) as connection:
        (status,) = connection.execute(
            "SELECT status FROM reservation WHERE reservation_id = 'EHGLP3'"
        ).fetchone()
    assert status is None  # the live database was not changed either
