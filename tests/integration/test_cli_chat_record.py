"""`airline-agent chat --record FILE --transcript DIR` against the loopback server, then
`airline-agent replay FILE`: the recording replays with the same tool results and the
same final database, and neither file holds the API key."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli

SECRET = "sk-test-recording-0123456789"


def run(
    *args: str, stdin: str = "", server: ChatServer | None = None
) -> subprocess.CompletedProcess[str]:
    return invoke_cli(*args, stdin=stdin, server=server, OPENAI_API_KEY=SECRET)


def reservation(db: Path, reservation_id: str) -> dict:
    result = run(
        "call",
        "get_reservation_details",
        json.dumps({"reservation_id": reservation_id}),
        "--db",
        str(db),
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_recorded_chat_replays_to_the_same_results_and_database(
    chat_server: ChatServer, db: Path, tmp_path: Path
) -> None:
    lookup = ("get_reservation_details", {"reservation_id": "GWL0HE"})
    cancel = ("cancel_reservation", {"reservation_id": "GWL0HE", "reason": "change_of_plan"})
    chat_server.stream(tool_calls=[lookup], usage=(900, 20))
    chat_server.stream("GWL0HE is in business class; shall I cancel it?", usage=(1200, 15))
    chat_server.stream(tool_calls=[cancel], usage=(1300, 22))
    chat_server.stream(
        "GWL0HE is cancelled; the refund goes back to your gift card.", usage=(1500, 14)
    )
    recording, transcripts = tmp_path / "my-chat.yaml", tmp_path / "transcripts"

    result = run(
        "chat",
        "--db",
        str(db),
        "--as",
        "harper_smith_5967",
        "--approve",
        "auto",
        "--record",
        str(recording),
        "--transcript",
        str(transcripts),
        stdin="Please cancel GWL0HE, my plans changed.\nYes, cancel it.\n",
        server=chat_server,
    )

    assert result.returncode == 0, result.stderr
    assert reservation(db, "GWL0HE")["status"] == "cancelled"  # the live database changed
    text = recording.read_text()
    body = yaml.safe_load(text)
    assert body["name"] == "my-chat" and body["customer"] == "harper_smith_5967"
    assert [turn["customer"] for turn in body["turns"]] == [
        "Please cancel GWL0HE, my plans changed.",
        "Yes, cancel it.",
    ]
    calls = [call for turn in body["turns"] for call in turn["expect"]["calls"]]
    assert [call["tool"] for call in calls] == ["get_reservation_details", "cancel_reservation"]
    expected = body["database"]["reservations"]["GWL0HE"]
    assert expected["status"] == "cancelled"
    assert set(body["database"]) == {"reservations"}, "only the cancelled reservation changed"
    jsonl, markdown = transcripts / "my-chat.jsonl", transcripts / "my-chat.md"
    assert len(jsonl.read_text().splitlines()) == 4  # one line per model request
    for written in (text, jsonl.read_text(), markdown.read_text()):
        assert SECRET not in written

    replay = run("replay", str(recording), "--json")

    assert replay.returncode == 0, replay.stdout + replay.stderr
    report = json.loads(replay.stdout)["scenarios"][0]
    assert report["status"] == "passed", report  # recorded results equal (no drift)
    assert report["changed_records"] == ["reservations/GWL0HE"]
    assert report["tool_calls"] == 2


def test_a_chat_that_ends_before_its_first_turn_records_nothing_and_says_so(
    chat_server: ChatServer, db: Path, tmp_path: Path
) -> None:
    """Before, saving a scenario of no turns ended `chat` with pydantic's traceback."""
    recording = tmp_path / "empty.yaml"
    result = run("chat", "--db", str(db), "--record", str(recording), server=chat_server)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "nothing to record" in result.stderr and "was not written" in result.stderr
    assert not recording.exists()
    assert chat_server.requests == []
