"""`chat --record` names the dataset the session's database was when the recording
started: the pristine sample, the pristine τ² import, or, when it was neither, the sample
with a warning (stderr and the scenario's description) that the replay may drift."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import yaml

from tests.conftest import TAU2_DIR, tau2_files
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli

SECRET = "sk-test-recording-0123456789"
WARNING = re.compile(
    r"warning: the database differed from the sample when the recording started "
    r"\((\d+) records? differs?\); the replay runs on the sample and may drift"
)


def run(
    *args: str, stdin: str = "", server: ChatServer | None = None
) -> subprocess.CompletedProcess[str]:
    # AIRLINE_AGENT_TAU2_DIR: where the τ² import is compared from.
    return invoke_cli(
        *args,
        stdin=stdin,
        server=server,
        OPENAI_API_KEY=SECRET,
        AIRLINE_AGENT_TAU2_DIR=str(TAU2_DIR),
    )


def record_lookup(
    server: ChatServer, db: Path, recording: Path, customer: str, reservation: str
) -> subprocess.CompletedProcess:
    """A one-turn chat looking up a reservation, recorded."""
    server.stream(tool_calls=[("get_reservation_details", {"reservation_id": reservation})])
    server.stream(f"Here is {reservation}.", usage=(900, 6))
    result = run(
        "chat",
        "--db",
        str(db),
        "--as",
        customer,
        "--record",
        str(recording),
        stdin=f"Show me {reservation}.\n",
        server=server,
    )
    assert result.returncode == 0, result.stderr
    return result


def replay(recording: Path) -> dict:
    result = run("replay", str(recording), "--json")
    return json.loads(result.stdout)["scenarios"][0]


def test_a_recording_on_the_pristine_sample_says_sample_and_warns_nothing(
    chat_server: ChatServer, db: Path, tmp_path: Path
) -> None:
    recording = tmp_path / "pristine.yaml"

    result = record_lookup(chat_server, db, recording, "harper_smith_5967", "GWL0HE")

    body = yaml.safe_load(recording.read_text())
    assert body["dataset"] == "sample"
    assert "warning" not in result.stderr, result.stderr
    assert body["description"] == "Recorded with `airline-agent chat --record`."


def test_a_recording_on_a_changed_sample_warns_with_the_count_and_says_so(
    chat_server: ChatServer, db: Path, tmp_path: Path
) -> None:
    from airline_agent.scenarios import datasets
    from airline_agent.scenarios.dbdiff import diff_databases

    # An earlier session cancelled GWL0HE: the database is no longer the pristine sample.
    cancel = {"reservation_id": "GWL0HE", "reason": "change_of_plan"}
    earlier = run(
        "call",
        "cancel_reservation",
        json.dumps(cancel),
        "--db",
        str(db),
        "--as",
        "harper_smith_5967",
    )
    assert earlier.returncode == 0, earlier.stderr
    differing = len(diff_databases(datasets.pristine("sample"), db))
    assert differing >= 1
    recording = tmp_path / "changed.yaml"

    result = record_lookup(chat_server, db, recording, "harper_smith_5967", "GWL0HE")

    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, result.stderr
    match = WARNING.fullmatch(warnings[0])
    assert match, warnings[0]
    assert int(match.group(1)) == differing
    body = yaml.safe_load(recording.read_text())
    assert body["dataset"] == "sample"
    assert "differed from the sample when the recording started" in body["description"]
    assert f"({differing} record" in body["description"]
    # The warning was warranted: on the pristine sample GWL0HE is not cancelled.
    report = replay(recording)
    assert report["status"] != "passed", report


def test_a_recording_on_the_tau2_import_says_tau2_and_replays_cleanly(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    from airline_agent.domain.provisioning import build_database

    tau2_db, _ = tau2_files()
    reservation = json.loads(tau2_db.read_text())["reservations"]["4WQ150"]
    db = tmp_path / "tau2.db"
    build_database(db, tau2=tau2_db).close()
    recording = tmp_path / "tau2.yaml"

    result = record_lookup(chat_server, db, recording, reservation["user_id"], "4WQ150")

    body = yaml.safe_load(recording.read_text())
    assert body["dataset"] == "tau2"
    assert "warning" not in result.stderr, result.stderr
    assert body["database"] == "unchanged"
    report = replay(recording)
    assert report["status"] == "passed", report  # the same tool results on the τ² import
    assert report["tool_calls"] == 1
