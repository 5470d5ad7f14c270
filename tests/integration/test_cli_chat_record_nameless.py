"""Issue 19 item 10: a tool call without a name, recorded.

A model that sends `"name": ""` or `"name": null` gets an UNKNOWN_TOOL result; with
`--record` the chat ended in a pydantic traceback (the scenario format refused a call
without a name) and lost both the recording and the transcript. The recording keeps the
call as it came, and replays as it happened.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from airline_agent.agent.events import ToolFinished
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.runner import replay_scenario
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli


def nameless_call(server: ChatServer, name: str | None, *, stream: bool) -> None:
    """One reply with a call named `name` (None: `"name": null`), then an answer."""
    placeholder = "placeholder_name"
    if stream:
        server.stream(tool_calls=[(placeholder, {"reservation_id": "EHGLP3"})])
        server.stream("Sorry, that went wrong.")
    else:
        server.completion(tool_calls=[(placeholder, {"reservation_id": "EHGLP3"})])
        server.completion("Sorry, that went wrong.")
    reply = server._queue[0]
    reply.body = reply.body.replace(f'"{placeholder}"'.encode(), json.dumps(name).encode())


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "json"])
@pytest.mark.parametrize("name", ["", None], ids=["empty", "null"])
def test_a_call_without_a_name_is_recorded_and_replays(
    chat_server: ChatServer, db: Path, tmp_path: Path, name: str | None, stream: bool
) -> None:
    nameless_call(chat_server, name, stream=stream)
    recording, transcripts = tmp_path / "nameless.yaml", tmp_path / "transcripts"
    result = invoke_cli(
        *("chat", "--db", str(db), "--record", str(recording), "--transcript", str(transcripts)),
        *(() if stream else ("--no-stream",)),
        stdin="look up EHGLP3\n",
        server=chat_server,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    assert "error UNKNOWN_TOOL" in result.stdout
    assert recording.is_file() and (transcripts / "nameless.jsonl").is_file()
    assert (transcripts / "nameless.md").is_file()
    scenario = load_scenario(recording)
    [call] = scenario.turns[0].responses[0].tool_calls
    assert call.name == ""
    report = replay_scenario(scenario)
    assert report.status == "passed", report.why()
    [finished] = [e for e in report.events if isinstance(e, ToolFinished)]
    assert (finished.name, finished.error) == ("", "UNKNOWN_TOOL")


def test_a_reply_with_neither_text_nor_calls_is_recorded_and_replays(
    chat_server: ChatServer, db: Path, tmp_path: Path
) -> None:
    """The same traceback, from a reply cut off before it said anything (content null, no
    calls, `finish_reason: "length"`, only reasoning): the format needs text or calls."""
    chat_server.completion(None, finish_reason="length", reasoning="Let me think about")
    recording = tmp_path / "silent.yaml"
    result = invoke_cli(
        *("chat", "--db", str(db), "--no-stream", "--record", str(recording)),
        stdin="hello\n",
        server=chat_server,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    report = replay_scenario(load_scenario(recording))
    assert report.status == "passed", report.why()
