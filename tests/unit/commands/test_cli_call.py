"""`airline-agent call`: JSON result printed, exit 0 / 1 / 2, one-line errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from airline_agent.cli import app


@pytest.fixture
def db(world_template: Path, tmp_path: Path) -> str:
    path = tmp_path / "cli.db"
    shutil.copyfile(world_template, path)
    return str(path)


def run(*args: str):
    return CliRunner().invoke(app, ["call", *args])


def test_success_prints_json_and_exits_0(db: str) -> None:
    result = run("get_reservation_details", '{"reservation_id": "EHGLP3"}', "--db", db)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["user_id"] == "emma_kim_9957"


def test_error_result_exits_1(db: str) -> None:
    result = run("get_user_details", '{"user_id": "nobody"}', "--db", db)
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"] == "NOT_FOUND"


def test_guard_on_by_default_and_no_guard(db: str) -> None:
    refused = run(
        "cancel_reservation", '{"reservation_id": "RTRIP1"}', "--as", "noah_lee_1001", "--db", db
    )
    assert refused.exit_code == 1
    assert json.loads(refused.stdout)["rule"] == "X3"
    other = run(
        "cancel_reservation", '{"reservation_id": "RTRIP1"}', "--as", "emma_kim_9957", "--db", db
    )
    assert json.loads(other.stdout)["error"] == "PERMISSION_DENIED"
    done = run("cancel_reservation", '{"reservation_id": "RTRIP1"}', "--no-guard", "--db", db)
    assert done.exit_code == 0
    assert json.loads(done.stdout)["status"] == "cancelled"


def test_guard_off_from_environment(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRLINE_AGENT_GUARD", "off")
    done = run("cancel_reservation", '{"reservation_id": "RTRIP1"}', "--db", db)
    assert done.exit_code == 0
    assert json.loads(done.stdout)["status"] == "cancelled"


@pytest.mark.parametrize(
    "args",
    [
        ("get_user_details", "[1]"),
        ("get_user_details", "{not json"),
        ("no_such_tool", "{}"),
        ("calculate", '{"expression": "1+1"}', "--bogus"),
    ],
)
def test_bad_usage_exits_2(db: str, args: tuple[str, ...]) -> None:
    result = run(*args, "--db", db)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_unusable_database_is_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    result = run("calculate", '{"expression": "1+1"}', "--db", str(junk))
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "junk.db" in result.stderr
