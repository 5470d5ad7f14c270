"""Hostile text in `airline-agent chat` (issue 10 §2, the chat's side): what the chat
prints never raises UnicodeEncodeError, whatever the locale; a line of input that is not
valid text is one clear line and the chat goes on with the next; `--record` still saves
a valid recording. The real CLI runs in a child process, with such bytes and locales.

Each test runs under one of the three locales in the default run (each locale once), and
under all three with AIRLINE_AGENT_SLOW=1."""

from __future__ import annotations

from pathlib import Path

import pytest

from airline_agent.scenarios.loader import load_scenario
from tests.support.chat_server import ChatServer
from tests.support.cli import run_cli_bytes
from tests.support.profile import SLOW

LOCALES = {
    "strict UTF-8": {"PYTHONIOENCODING": "utf-8:strict"},
    "C locale": {"LC_ALL": "C", "LANG": "C"},
    "strict ASCII": {"PYTHONIOENCODING": "ascii:strict"},
}
LONE_SURROGATE = "\ud83d"


def locales(default: str) -> pytest.MarkDecorator:
    """Every locale with AIRLINE_AGENT_SLOW=1, else the one named."""
    chosen = list(LOCALES) if SLOW else [default]
    return pytest.mark.parametrize("locale", [LOCALES[name] for name in chosen], ids=chosen)


def chat(server: ChatServer, stdin: bytes, *args: str, **env: str):
    return run_cli_bytes("chat", *args, stdin=stdin, server=server, timeout=120, **env)


@locales("strict ASCII")  # "→" and the surrogate cannot be written
def test_a_lone_surrogate_in_a_reply_is_printed_not_a_crash_and_the_recording_is_valid(
    chat_server: ChatServer, db: Path, tmp_path: Path, locale: dict[str, str]
):
    chat_server.stream(f"Sorry {LONE_SURROGATE} I could not find you → try again.")
    recording = tmp_path / "surrogates.yaml"
    result = chat(
        chat_server, b"Who am I?\n", "--db", str(db), "--record", str(recording), **locale
    )
    out, err = result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")
    assert "Traceback" not in err and "UnicodeEncodeError" not in err, err
    assert result.returncode == 0, err
    assert "I could not find you" in out
    assert load_scenario(recording).turns[0].customer == "Who am I?"  # saved, and valid


@locales("strict UTF-8")  # "→" can be, the surrogate cannot
def test_a_lone_surrogate_in_tool_arguments_is_printed_not_a_crash(
    chat_server: ChatServer, db: Path, tmp_path: Path, locale: dict[str, str]
):
    chat_server.stream(tool_calls=[("get_user_details", {"user_id": f"emma{LONE_SURROGATE}"})])
    chat_server.stream("I could not find you.")
    recording = tmp_path / "surrogates.yaml"
    result = chat(
        chat_server, b"Who am I?\n", "--db", str(db), "--record", str(recording), **locale
    )
    out, err = result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")
    # The chat's own printing never fails. (Whether the next request can carry the tool's
    # result is the backend's business: a failure there is one line, never a traceback.)
    assert "Traceback" not in err, err
    assert "→ get_user_details" in out or "\\u2192 get_user_details" in out, out
    assert load_scenario(recording).turns[0].customer == "Who am I?"  # saved, and valid


@locales("C locale")
def test_a_line_that_is_not_valid_text_is_skipped_with_one_line_and_the_chat_goes_on(
    chat_server: ChatServer, db: Path, tmp_path: Path, locale: dict[str, str]
):
    chat_server.stream("EHGLP3 goes from PHX to JFK.")
    recording = tmp_path / "bytes.yaml"
    stdin = b"caf\xe9 au lait \xff\xfe\nWhat is on EHGLP3?\n"
    result = chat(chat_server, stdin, "--db", str(db), "--record", str(recording), **locale)
    out, err = result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")
    assert "Traceback" not in err, err
    notices = [line for line in err.splitlines() if "input line 1" in line]
    encoding = "ascii" if "ascii" in locale.get("PYTHONIOENCODING", "") else "utf-8"
    expected = f"error: input line 1 skipped: not valid {encoding} text (byte 4: 0xe9)"
    assert notices == [expected], err
    assert "EHGLP3 goes from PHX to JFK." in out  # the next line was the turn
    (request,) = chat_server.requests
    assert [m["content"] for m in request["messages"] if m["role"] == "user"] == [
        "What is on EHGLP3?"
    ]
    assert result.returncode == 1  # a line of the input was not carried out
    scenario = load_scenario(recording)  # saved, and valid: no pydantic traceback
    assert [turn.customer for turn in scenario.turns] == ["What is on EHGLP3?"]
