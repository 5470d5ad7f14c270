"""`chat --record/--transcript`, `replay --transcript` and `export -o` never replace an
existing file unless asked (`--force`, or a "yes" in a terminal), never write through a
link, and say so up front in one line (exit 2), before any work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from airline_agent.scenarios.loader import load_scenario
from tests.support.chat_server import ChatServer
from tests.support.cli import cli_env, invoke_cli
from tests.support.terminal import Terminal

CANCEL_EHGLP3 = Path(__file__).resolve().parents[2] / "data/scenarios/cancel-ehglp3.yaml"
OLD = "an hour of a real chat, recorded yesterday\n"
NOWHERE = "http://127.0.0.1:9/v1"  # never reached: these chats send no message


def chat(db: Path, *args: str, stdin: str = ""):
    return invoke_cli("chat", "--db", str(db), "--base-url", NOWHERE, *args, stdin=stdin)


def test_chat_keeps_an_existing_recording(db: Path, tmp_path: Path) -> None:
    recording = tmp_path / "mine.yaml"
    recording.write_text(OLD)
    result = chat(db, "--record", str(recording), stdin="hi\n")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: --record {recording}: already exists (--force replaces it)"
    ]
    assert "you> hi" not in result.stdout  # refused before the first turn
    assert recording.read_text() == OLD


def test_chat_force_replaces_the_recording(
    db: Path, tmp_path: Path, chat_server: ChatServer
) -> None:
    recording = tmp_path / "mine.yaml"
    recording.write_text(OLD)
    chat_server.stream("Hello! How can I help?")
    result = invoke_cli(
        "chat", "--db", str(db), "--record", str(recording), "--force", stdin="hi\n",
        server=chat_server,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert load_scenario(recording).name == "mine"
    assert list(tmp_path.glob(".mine.yaml*")) == []  # no temporary file left beside it


def test_chat_never_writes_through_a_link(db: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text(OLD)
    link = tmp_path / "mine.yaml"
    link.symlink_to(outside)
    for force in ((), ("--force",)):
        result = chat(db, "--record", str(link), *force)
        assert result.returncode == 2
        assert "is a symbolic link" in result.stderr and "Traceback" not in result.stderr
    assert outside.read_text() == OLD


def test_chat_keeps_an_existing_transcript(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    (folder / "chat.md").write_text(OLD)
    result = chat(db, "--transcript", str(folder))
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"error: --transcript {folder / 'chat.md'}: already exists (--force replaces it)"
    )
    assert sorted(p.name for p in folder.iterdir()) == ["chat.md"]
    assert chat(db, "--transcript", str(folder), "--force").returncode == 0
    assert sorted(p.name for p in folder.iterdir()) == ["chat.jsonl", "chat.md"]
    assert (folder / "chat.md").read_text() != OLD


def test_export_keeps_an_existing_file(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "db.json"
    out.write_text(OLD)
    result = invoke_cli("export", "--db", str(db), "-o", str(out))
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: -o {out}: already exists (--force replaces it)"
    assert out.read_text() == OLD
    result = invoke_cli("export", "--db", str(db), "-o", str(out), "--force")
    assert result.returncode == 0, result.stderr
    assert "EHGLP3" in json.loads(out.read_text())["reservations"]


def test_export_never_writes_through_a_link(db: Path, tmp_path: Path) -> None:
    outside = tmp_path / "notes.txt"
    outside.write_text(OLD)
    link = tmp_path / "db.json"
    link.symlink_to(outside)
    result = invoke_cli("export", "--db", str(db), "-o", str(link), "--force")
    assert result.returncode == 2
    assert "is a symbolic link" in result.stderr
    assert outside.read_text() == OLD


def test_replay_keeps_existing_transcripts_before_replaying(tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    (folder / "cancel-ehglp3.jsonl").write_text(OLD)
    result = invoke_cli("replay", str(CANCEL_EHGLP3), "--transcript", str(folder))
    assert result.returncode == 2
    assert result.stdout == ""  # nothing replayed
    assert "cancel-ehglp3.jsonl: already exists (--force replaces it)" in result.stderr
    assert (folder / "cancel-ehglp3.jsonl").read_text() == OLD
    result = invoke_cli("replay", str(CANCEL_EHGLP3), "--transcript", str(folder), "--force")
    assert result.returncode == 0, result.stderr
    assert (folder / "cancel-ehglp3.jsonl").read_text() != OLD


@pytest.mark.parametrize(("answer", "replaced"), [(b"n", False), (b"y", True)])
def test_chat_in_a_terminal_asks_before_replacing(
    db: Path, tmp_path: Path, chat_server: ChatServer, answer: bytes, replaced: bool
) -> None:
    recording = tmp_path / "mine.yaml"
    recording.write_text(OLD)
    chat_server.stream("Hello! How can I help?")
    argv = ["-m", "airline_agent", "chat", "--db", str(db), "--record", str(recording)]
    terminal = Terminal(argv, cli_env(chat_server))
    try:
        terminal.wait_for(b"already exists. Replace it? [y/N]")
        terminal.type(answer + b"\r")
        if replaced:
            terminal.wait_for(b"/quit to leave")
            terminal.type(b"hi\r")
            terminal.wait_for(b"How can I help?")
            terminal.type(b"/quit\r")
        status = terminal.exit_status()
    finally:
        terminal.close()
    assert status == (0 if replaced else 2), terminal.text
    assert (recording.read_text() != OLD) is replaced
