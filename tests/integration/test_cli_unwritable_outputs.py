"""Output paths that cannot be written fail up front with one line, never a traceback.

A regular file stands in as the "folder" of each path: that fails for every user, root
included (a read-only directory would not stop root).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import invoke_cli

CANCEL_EHGLP3 = Path(__file__).resolve().parents[2] / "data/scenarios/cancel-ehglp3.yaml"


@pytest.fixture
def not_a_folder(tmp_path: Path) -> Path:
    blocker = tmp_path / "blocker.txt"
    blocker.write_text("a file, not a folder\n")
    return blocker


def assert_one_line_error(result, flag: str, path: Path) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines == [f"error: {flag} {path}: cannot be written (Not a directory)"]


def test_chat_transcript_into_an_impossible_folder_is_refused_before_the_chat(
    db: Path, not_a_folder: Path
) -> None:
    folder = not_a_folder / "transcripts"
    result = invoke_cli(
        "chat", "--db", str(db), "--base-url", "http://127.0.0.1:9/v1", "--transcript",
        str(folder), stdin="hi\n",
    )  # fmt: skip
    assert_one_line_error(result, "--transcript", folder)
    assert "you> hi" not in result.stdout  # refused before the first turn


def test_chat_record_into_an_impossible_folder_is_refused_before_the_chat(
    db: Path, not_a_folder: Path
) -> None:
    file = not_a_folder / "session.yaml"
    result = invoke_cli(
        "chat", "--db", str(db), "--base-url", "http://127.0.0.1:9/v1", "--record", str(file),
        stdin="hi\n",
    )  # fmt: skip
    assert_one_line_error(result, "--record", file)
    assert "you> hi" not in result.stdout


def test_chat_transcript_onto_a_file_is_refused(db: Path, not_a_folder: Path) -> None:
    result = invoke_cli(
        "chat", "--db", str(db), "--base-url", "http://127.0.0.1:9/v1", "--transcript",
        str(not_a_folder), stdin="",
    )  # fmt: skip
    assert_one_line_error(result, "--transcript", not_a_folder)


def test_chat_record_onto_a_folder_is_refused(db: Path, tmp_path: Path) -> None:
    result = invoke_cli(
        "chat", "--db", str(db), "--base-url", "http://127.0.0.1:9/v1", "--record",
        str(tmp_path), stdin="",
    )  # fmt: skip
    assert result.returncode == 2
    assert (
        result.stderr.strip() == f"error: --record {tmp_path}: cannot be written (is a directory)"
    )


def test_replay_transcript_into_an_impossible_folder_is_one_line(not_a_folder: Path) -> None:
    folder = not_a_folder / "transcripts"
    result = invoke_cli("replay", str(CANCEL_EHGLP3), "--transcript", str(folder))
    assert_one_line_error(result, "--transcript", folder)
    assert result.stdout == ""  # nothing replayed


def test_chat_transcript_folder_is_created_and_written(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "new" / "transcripts"
    result = invoke_cli(
        "chat", "--db", str(db), "--base-url", "http://127.0.0.1:9/v1", "--transcript",
        str(folder), stdin="",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["chat.jsonl", "chat.md"]
