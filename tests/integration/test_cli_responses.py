"""`--api responses` on the command line: `chat` over a loopback Responses API server,
recorded, and the recording replayed on both wires (a scenario recorded on one replays on
the other); a chat recorded on Chat Completions replays on the Responses wire; an unknown
wire and a server without /v1/responses are one clear line each."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest
import yaml

from airline_agent.commands.chat.repl import run_chat
from airline_agent.config import Settings
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli, run_cli
from tests.support.responses_server import ResponsesServer

SECRET = "sk-test-responses-0123456789"
LOOKUP = ("get_reservation_details", {"reservation_id": "GWL0HE"})
CANCEL = ("cancel_reservation", {"reservation_id": "GWL0HE", "reason": "change_of_plan"})
LINES = "Please cancel GWL0HE, my plans changed.\nYes, cancel it.\n"


class Terminal(io.StringIO):
    """Input that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def run(
    *args: str, server: ChatServer | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return invoke_cli(*args, stdin=stdin, server=server, OPENAI_API_KEY=SECRET)


def chat(
    db: Path, recording: Path, server: ChatServer, *wire: str
) -> subprocess.CompletedProcess[str]:
    return run(
        "chat",
        *wire,
        "--db",
        str(db),
        "--as",
        "harper_smith_5967",
        "--approve",
        "auto",
        "--record",
        str(recording),
        "--transcript",
        str(recording.parent / "transcripts"),
        stdin=LINES,
        server=server,
    )


def replayed(recording: Path, api: str) -> dict:
    result = run("replay", str(recording), "--json", "--api", api)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)["scenarios"][0]


def test_a_chat_on_the_responses_wire_is_recorded_and_replays_on_both(
    responses_server: ResponsesServer, db: Path, tmp_path: Path
) -> None:
    responses_server.events(tool_calls=[LOOKUP], usage=(900, 20))
    responses_server.events("GWL0HE is in business class; shall I cancel it?", usage=(1200, 15))
    responses_server.events(tool_calls=[CANCEL], usage=(1300, 22))
    responses_server.events("GWL0HE is cancelled; the refund goes back to your gift card.")
    recording = tmp_path / "on-responses.yaml"

    result = chat(db, recording, responses_server, "--api", "responses")

    assert result.returncode == 0, result.stderr
    assert set(responses_server.paths) == {"/v1/responses"}
    assert "GWL0HE is cancelled" in result.stdout
    body = yaml.safe_load(recording.read_text())
    calls = [call["tool"] for turn in body["turns"] for call in turn["expect"]["calls"]]
    assert calls == ["get_reservation_details", "cancel_reservation"]
    # The transcript keeps each request's exact Responses body and the response.
    lines = (tmp_path / "transcripts" / "on-responses.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    assert "input" in first["body"] and "messages" not in first["body"]
    assert first["response"]["object"] == "response"
    for written in (recording.read_text(), *lines):
        assert SECRET not in written
    for api in ("chat", "responses"):
        report = replayed(recording, api)
        assert report["status"] == "passed", (api, report)
        assert report["changed_records"] == ["reservations/GWL0HE"]


def test_a_chat_on_chat_completions_replays_on_the_responses_wire(
    chat_server: ChatServer, db: Path, tmp_path: Path
) -> None:
    chat_server.stream(tool_calls=[LOOKUP])
    chat_server.stream("GWL0HE is in business class; shall I cancel it?")
    chat_server.stream(tool_calls=[CANCEL])
    chat_server.stream("GWL0HE is cancelled; the refund goes back to your gift card.")
    recording = tmp_path / "on-chat.yaml"
    assert chat(db, recording, chat_server).returncode == 0
    assert replayed(recording, "responses")["status"] == "passed"


def test_a_server_without_the_responses_api_is_said_in_one_line(
    responses_server: ResponsesServer, db: Path
) -> None:
    responses_server.missing()
    result = run(
        "chat", "--api", "responses", "--db", str(db), stdin="hi\n", server=responses_server
    )
    assert result.returncode == 1
    assert "does not serve the Responses API" in result.stdout + result.stderr
    assert "--api chat" in result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.parametrize("command", [("chat",), ("replay",), ("eval", "--agent-model", "m")])
def test_an_unknown_wire_is_refused_in_one_line(command: tuple[str, ...]) -> None:
    result = run(*command, "--api", "soap", stdin="hi\n")
    assert result.returncode == 2
    said = result.stdout + result.stderr
    assert "--api" in said and "soap" in said and "Traceback" not in said


def test_the_environment_chooses_the_wire_too(responses_server: ResponsesServer, db: Path) -> None:
    """AIRLINE_AGENT_API=responses in a real process (the variable a `.env` can set)."""
    responses_server.response("Hello, how can I help?")
    result = run_cli(
        "chat",
        "--db",
        str(db),
        stdin="hi\n",
        server=responses_server,
        AIRLINE_AGENT_API="responses",
    )
    assert result.returncode == 0, result.stderr
    assert responses_server.paths == ["/v1/responses"]
    assert "Hello, how can I help?" in result.stdout


async def test_a_terminal_is_told_the_wire(responses_server: ResponsesServer, db: Path) -> None:
    """The greeting says the chat goes over the Responses API (Chat Completions' says nothing
    of a wire: it is the default)."""
    responses_server.events("Hello.")
    settings = Settings(
        model="gpt-4o-mini", base_url=responses_server.url, db=str(db), api="responses"
    )
    out, err = io.StringIO(), io.StringIO()
    code = await run_chat(settings, stdin=Terminal("hi\n"), stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    assert out.getvalue().startswith(
        "Chatting with gpt-4o-mini over the Responses API. /quit to leave, /new to start over."
    )
