"""Issue 19 item 14: a recording of a turn that ended in an API error replays as it happened.

The recorder wrote the failed request as a reply `content: ''`, so the replay answered
where the live turn had failed (`turn ended: expected "error", got "answered"`, 36 of 36
in the issue's round). A failed request is now recorded as what it was, `error:` with the
failure's kind, message and status, and a replay fails there with the same words.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from airline_agent.agent.events import ErrorOccurred
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.runner import replay_scenario
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli

LOOKUP = ("get_reservation_details", {"reservation_id": "EHGLP3"})


def record_chat(server: ChatServer, db: Path, recording: Path, lines: str, *flags: str):
    return invoke_cli(
        *("chat", "--db", str(db), "--record", str(recording), *flags),
        stdin=lines,
        server=server,
    )


def test_a_turn_that_failed_at_its_first_request_replays_failing(
    chat_server: ChatServer, db: Path, tmp_path: Path
) -> None:
    chat_server.error(401, "Incorrect API key provided", code="invalid_api_key")
    chat_server.stream("Hello again.")
    recording = tmp_path / "failed.yaml"
    result = record_chat(chat_server, db, recording, "hi\nhi again\n")
    assert result.returncode == 1  # a turn ended in an error
    assert "saved" in result.stderr and "Traceback" not in result.stderr
    body = yaml.safe_load(recording.read_text())
    first = body["turns"][0]
    assert first["expect"]["end"] == "error"
    [failed] = first["responses"]
    assert "content" not in failed  # not a reply: the request failed
    assert failed["error"]["status"] == 401 and failed["error"]["kind"] == "auth"
    report = replay_scenario(load_scenario(recording))
    assert report.status == "passed", report.why()
    assert report.ends == ["error", "answered"]
    [error] = [e for e in report.events if isinstance(e, ErrorOccurred)]
    assert "refused the API key (401)" in error.message and error.status == 401


def test_a_turn_that_failed_after_a_tool_call_replays_the_call_then_fails(
    chat_server: ChatServer, db: Path, tmp_path: Path
) -> None:
    chat_server.stream(tool_calls=[LOOKUP])
    chat_server.error(400, "bad request: the history is odd")
    recording = tmp_path / "failed-later.yaml"
    result = record_chat(chat_server, db, recording, "look up EHGLP3\n")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    report = replay_scenario(load_scenario(recording))
    assert report.status == "passed", report.why()
    assert report.ends == ["error"] and report.tool_calls == 1
    [error] = [e for e in report.events if isinstance(e, ErrorOccurred)]
    assert "bad request: the history is odd" in error.message


def test_a_failed_request_says_nothing_else() -> None:
    with pytest.raises(ValidationError, match="failed request"):
        Scenario.model_validate(
            {
                "name": "odd",
                "turns": [
                    {
                        "customer": "hi",
                        "responses": [{"content": "Hi!", "error": {"message": "it failed"}}],
                        "expect": {"end": "error"},
                    }
                ],
            }
        )
