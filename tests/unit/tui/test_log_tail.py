"""tui/log_tail.py: a growing file followed line by line (partial, overlong, truncated,
replaced, not there yet)."""

from __future__ import annotations

import os
from pathlib import Path

from airline_agent.tui.log_tail import LogTail


def test_a_missing_file_is_waited_for_then_read_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    tail = LogTail(path)
    assert tail.poll() == [] and not tail.present
    path.write_text("one\ntwo\n")
    assert tail.poll() == ["one", "two"] and tail.present
    assert tail.poll() == []


def test_a_line_without_its_newline_waits_for_it(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"whole\nhal")
    tail = LogTail(path)
    assert tail.poll() == ["whole"]
    with path.open("ab") as file:
        file.write(b"f\n")
    assert tail.poll() == ["half"]


def test_an_overlong_line_is_dropped_and_counted_the_next_one_kept(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    tail = LogTail(path, max_line=10)
    path.write_bytes(b"x" * 25)
    assert tail.poll() == [] and tail.overlong == 1
    with path.open("ab") as file:
        file.write(b"x" * 25 + b"\nshort\n")
    assert tail.poll() == ["short"] and tail.overlong == 1


def test_a_truncated_or_replaced_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text("first run, a long line\n")
    tail = LogTail(path)
    assert tail.poll() == ["first run, a long line"]
    path.write_text("again\n")  # truncated, then written: shorter than what was read
    assert tail.poll() == ["again"]
    rotated = tmp_path / "new.jsonl"
    rotated.write_text("rotated\n")
    os.replace(rotated, path)
    assert tail.poll() == ["rotated"] and tail.restarts == 2


def test_bad_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"caf\xe9\n")
    assert LogTail(path).poll() == ["caf\ufffd"]
