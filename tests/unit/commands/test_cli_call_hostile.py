"""`airline-agent call` given hostile arguments: half a surrogate pair in the JSON and
command-line bytes that are not UTF-8 (in a real process with strict UTF-8 output), JSON
nested 60,000 deep (in this process, whose stack is the deeper one). A JSON result or one
line of error, the documented exit status, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import invoke_cli

DEEP = 60_000


@pytest.fixture
def db(world_template: Path, tmp_path: Path) -> str:
    path = tmp_path / "cli.db"
    shutil.copyfile(world_template, path)
    return str(path)


def call(*args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AIRLINE_AGENT_"))}
    env |= {"PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8"}  # strict, as a UTF-8 terminal
    return subprocess.run(
        [sys.executable, "-m", "airline_agent", "call", *args],
        capture_output=True,
        env=env,
        timeout=120,
    )


def one_line_error(
    result: subprocess.CompletedProcess[bytes] | subprocess.CompletedProcess[str],
) -> str:
    stderr = result.stderr if isinstance(result.stderr, str) else result.stderr.decode("utf-8")
    assert "Traceback" not in stderr, stderr
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    return stderr


def test_half_a_surrogate_pair_in_the_arguments_is_an_invalid_arguments_result(db: str) -> None:
    result = call("get_user_details", '{"user_id": "\\ud800"}', "--db", db)
    assert b"Traceback" not in result.stderr, result.stderr.decode()
    assert result.returncode == 1
    printed = json.loads(result.stdout.decode("utf-8"))
    assert printed["error"] == "INVALID_ARGUMENTS"
    assert "\\ud800" in printed["message"]  # named by its escape, never printed raw
    assert "user_id" in printed["message"]


def test_command_line_bytes_that_are_not_utf8_are_an_invalid_arguments_result(db: str) -> None:
    result = call(b"get_user_details", b'{"user_id": "emma\xff\xfe"}', b"--db", db.encode())
    assert b"Traceback" not in result.stderr, result.stderr.decode()
    assert result.returncode == 1
    assert json.loads(result.stdout.decode("utf-8"))["error"] == "INVALID_ARGUMENTS"


def test_a_tool_name_that_is_not_utf8_is_bad_usage(db: str) -> None:
    result = call(b"get_\xff", b"{}", b"--db", db.encode())
    assert result.returncode == 2
    assert "no tool named" in one_line_error(result)


@pytest.mark.parametrize(
    "arguments",
    ["[" * DEEP + "]" * DEEP, '{"user_id": ' + "[" * DEEP + "]" * DEEP + "}", "{" * DEEP],
    ids=["a-list", "inside-an-object", "unclosed"],
)
def test_json_nested_60000_deep_is_one_line_of_bad_usage(db: str, arguments: str) -> None:
    result = invoke_cli("call", "get_user_details", arguments, "--db", db)
    assert result.returncode == 2
    assert "nested" in one_line_error(result) or "not valid JSON" in one_line_error(result)


def test_json_nested_past_the_limit_but_readable_is_bad_usage_too(db: str) -> None:
    nested = '{"user_id": ' + "[" * 100 + "]" * 100 + "}"
    result = invoke_cli("call", "get_user_details", nested, "--db", db)
    assert result.returncode == 2
    assert "nested more than" in one_line_error(result)
