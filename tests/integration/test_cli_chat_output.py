"""What `airline-agent chat` prints and how it exits, against the loopback server: a reply
streamed after reasoning is printed once (issue 9, defect 6), the exit status counts
every turn (defect 9), and the usage line shows each streamed request's time to the
first token (the figures of `UsageReported`)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.chat_server import ChatServer
from tests.support.cli import cli_env, invoke_cli, run_cli
from tests.support.terminal import Terminal

LOOKUP = ("get_reservation_details", {"reservation_id": "EHGLP3"})
REASONING = "The customer asks when the flight leaves; I know it from the lookup."
REPLY = "Your flight HAT156 leaves Phoenix at nine."


def chat(*args: str, stdin: str, server: ChatServer) -> subprocess.CompletedProcess[str]:
    return invoke_cli("chat", *args, stdin=stdin, server=server)


def test_a_reply_streamed_after_reasoning_is_printed_once_in_a_pipe(chat_server, db):
    chat_server.stream(REPLY, reasoning=REASONING)
    result = run_cli("chat", "--db", str(db), stdin="When do I leave?\n", server=chat_server)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.count(REPLY) == 1, out
    assert out.index("(reasoning) The customer asks") < out.index(f"agent> {REPLY}")


def test_a_reply_after_reasoning_arriving_whole_is_printed_once(chat_server, db):
    chat_server.completion(REPLY, reasoning=REASONING)
    result = chat("--db", str(db), "--no-stream", stdin="When do I leave?\n", server=chat_server)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(REPLY) == 1, result.stdout
    assert result.stdout.index("(reasoning)") < result.stdout.index(f"agent> {REPLY}")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_a_reply_streamed_after_reasoning_is_printed_once_in_a_terminal(chat_server, db):
    chat_server.stream(REPLY, reasoning=REASONING)
    env = cli_env(chat_server, TERM="dumb", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    terminal = Terminal(["-m", "airline_agent", "chat", "--db", str(db)], env)
    try:
        terminal.wait_for(b"you> ")
        terminal.type(b"When do I leave?\n")
        terminal.wait_for(b" request, ")  # the turn's usage line: the reply is complete
        terminal.wait_for(b"you> ")
        terminal.type(b"/quit\n")
        assert terminal.exit_status() == 0
    finally:
        terminal.close()
    assert terminal.text.count(REPLY) == 1, terminal.text


def test_a_chat_whose_first_turn_failed_exits_1_though_its_last_succeeded(chat_server, db):
    chat_server.error(400, "this server cannot take that request")
    chat_server.stream("Hello again! How can I help?")
    result = chat("--db", str(db), stdin="first\nsecond\n", server=chat_server)
    assert "error: The model server rejected the request (400)" in result.stderr
    assert "agent> Hello again! How can I help?" in result.stdout  # the chat went on
    assert result.returncode == 1


def test_a_chat_whose_turns_all_succeeded_exits_0(chat_server, db):
    chat_server.stream("Hello!")
    chat_server.stream("Goodbye!")
    result = chat("--db", str(db), stdin="hi\nbye\n", server=chat_server)
    assert result.returncode == 0, result.stderr


def test_the_usage_line_and_transcript_show_each_streamed_requests_first_token(
    chat_server, db, tmp_path
):
    chat_server.stream(tool_calls=[LOOKUP], usage=(900, 20))
    chat_server.stream("EHGLP3 goes from PHX to JFK.", usage=(1200, 12))
    transcripts = tmp_path / "transcripts"
    result = chat(
        "--db", str(db), "--transcript", str(transcripts), stdin="EHGLP3?\n", server=chat_server
    )
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if "2 requests" in x)
    assert "2100 in / 32 out tokens, 2 requests, $" in line
    assert re.search(r", first token \d+ / \d+ ms", line), line  # request 1, request 2
    records = [json.loads(x) for x in (transcripts / "chat.jsonl").read_text().splitlines()]
    assert all(record["first_token_ms"] >= 0 for record in records)
    # Each request's usage, reported before its message, is in its response.
    assert [record["response"]["usage"]["prompt_tokens"] for record in records] == [900, 1200]
    assert re.search(r"first token \d+ ms", (transcripts / "chat.md").read_text())


def test_an_answer_that_was_not_streamed_shows_no_timing_it_did_not_measure(
    chat_server, db, tmp_path
):
    chat_server.completion("Hello!", usage=(50, 3))
    transcripts = tmp_path / "transcripts"
    result = chat(
        "--db",
        str(db),
        "--no-stream",
        "--transcript",
        str(transcripts),
        stdin="hi\n",
        server=chat_server,
    )
    assert result.returncode == 0, result.stderr
    for shown in (result.stdout, (transcripts / "chat.md").read_text()):
        assert "first token" not in shown and "tokens/s" not in shown
    (record,) = [json.loads(x) for x in (transcripts / "chat.jsonl").read_text().splitlines()]
    assert "first_token_ms" not in record and "tokens_per_second" not in record
