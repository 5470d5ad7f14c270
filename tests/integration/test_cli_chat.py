"""`airline-agent chat` with piped input, against the loopback Chat Completions server:
in this process (tests/support/cli.py), and once as a child process reading a real pipe."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from contextlib import closing

from airline_agent.agent.history import problems
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli, run_cli

LOOKUP = ("get_reservation_details", {"reservation_id": "EHGLP3"})
CANCEL = ("cancel_reservation", {"reservation_id": "EHGLP3"})


def chat(
    *args: str, stdin: str = "", server: ChatServer | None = None, model: str | None = "gpt-4o-mini"
) -> subprocess.CompletedProcess[str]:
    return invoke_cli("chat", *args, stdin=stdin, server=server, model=model)


def test_no_model_says_how_to_configure_one_and_exits_2():
    result = chat(model=None)
    assert result.returncode == 2
    for needle in ("AIRLINE_AGENT_MODEL", "--model", "OPENAI_BASE_URL", "OPENAI_API_KEY", "tui"):
        assert needle in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_a_piped_conversation(chat_server, db):
    chat_server.stream(tool_calls=[LOOKUP], usage=(900, 20))
    chat_server.stream("EHGLP3 goes from PHX to JFK.", usage=(1200, 12))
    # The owner's user id first: before it, the guard refuses another's reservation.
    stdin = "I am emma_kim_9957. Please look up EHGLP3\n/quit\nnever sent\n"
    result = run_cli("chat", "--db", str(db), stdin=stdin, server=chat_server, timeout=60)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "you> I am emma_kim_9957. Please look up EHGLP3" in out
    assert "→ get_reservation_details" in out and '"EHGLP3"' in out and " ok " in out
    assert "agent> EHGLP3 goes from PHX to JFK." in out
    assert "2100 in / 32 out tokens, 2 requests, $" in out
    assert len(chat_server.requests) == 2
    assert problems(chat_server.requests[1]["messages"]) == []
    assert "Traceback" not in result.stderr


def test_no_input_exits_cleanly(chat_server, db):
    result = chat("--db", str(db), stdin="", server=chat_server)
    assert result.returncode == 0
    assert chat_server.requests == []


def test_an_unknown_model_cost_is_shown_as_unknown(chat_server, db):
    chat_server.completion("Hello!", usage=(50, 3))
    result = chat(
        "--db", str(db), "--no-stream", stdin="hi\n", server=chat_server, model="llama3.1"
    )
    assert result.returncode == 0, result.stderr
    assert "cost unknown" in result.stdout
    assert "$0" not in result.stdout


def _emma_asks_to_cancel(
    chat_server: ChatServer, db, answer: str, reply: str, *flags: str
) -> subprocess.CompletedProcess[str]:
    """Emma asks to cancel EHGLP3 with --approve ask; `answer` goes to the approval prompt."""
    chat_server.stream(tool_calls=[CANCEL])
    chat_server.stream(reply)
    return chat(
        *("--db", str(db), "--approve", "ask", "--as", "emma_kim_9957", *flags),
        stdin=f"cancel EHGLP3\n{answer}\n",
        server=chat_server,
    )


def _every_row(db) -> dict[str, list[tuple]]:
    """Every row of every table of the database."""
    with closing(sqlite3.connect(db)) as connection:
        tables = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {
            name: connection.execute(f'SELECT * FROM "{name}" ORDER BY rowid').fetchall()
            for (name,) in tables.fetchall()
        }


def test_a_declined_write_is_not_run(chat_server, db):
    # --no-guard: X3 would refuse this cancellation anyway; here only the "n" stops it.
    before = _every_row(db)
    result = _emma_asks_to_cancel(
        chat_server, db, "n", "All right, nothing was changed.", "--no-guard"
    )
    assert result.returncode == 0, result.stderr
    assert "? cancel_reservation" in result.stdout and "approve? [y/N]" in result.stdout
    assert "→ cancel_reservation" in result.stdout and "error PERMISSION_DENIED" in result.stdout
    last = chat_server.requests[1]["messages"][-1]
    assert last["role"] == "tool" and "declined" in last["content"]
    assert _every_row(db) == before  # EHGLP3 still active, no refund, nothing else changed


def test_an_accepted_write_runs(chat_server, db):
    # --no-guard: X3 would refuse this basic-economy cancellation; here only approval counts.
    result = _emma_asks_to_cancel(
        chat_server, db, "y", "Your reservation is cancelled.", "--no-guard"
    )
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if "→ cancel_reservation" in x)
    assert " ok " in line
    content = chat_server.requests[1]["messages"][-1]["content"]
    assert json.loads(content)["status"] == "cancelled"


def test_a_server_error_is_one_clear_line_and_exit_1(chat_server, db):
    chat_server.error(401, "Incorrect API key provided", code="invalid_api_key")
    result = chat("--db", str(db), stdin="hi\n", server=chat_server)
    assert result.returncode == 1
    assert "error: The model server at" in result.stderr and "401" in result.stderr
    assert "hint: Set OPENAI_API_KEY" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_approve_value_is_a_usage_error():
    result = chat("--approve", "maybe")
    assert result.returncode == 2
    assert "ask, auto or deny" in result.stderr


def test_request_parameter_flags_reach_the_request_body(chat_server, db):
    chat_server.completion("Hello!")
    result = chat(
        "--db",
        str(db),
        "--no-stream",
        "--temperature",
        "0.2",
        "--max-tokens",
        "64",
        "--tool-choice",
        "get_flight_status",
        "--no-parallel-tool-calls",
        stdin="hi\n",
        server=chat_server,
    )
    assert result.returncode == 0, result.stderr
    body = chat_server.requests[0]
    assert body["temperature"] == 0.2
    assert body["max_tokens"] == 64
    assert body["parallel_tool_calls"] is False
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_flight_status"}}


def test_without_request_flags_the_body_leaves_them_to_the_server(chat_server, db):
    chat_server.completion("Hello!")
    result = chat("--db", str(db), "--no-stream", stdin="hi\n", server=chat_server)
    assert result.returncode == 0, result.stderr
    body = chat_server.requests[0]
    for absent in ("temperature", "max_tokens", "parallel_tool_calls"):
        assert absent not in body
    assert body["tool_choice"] == "auto"
