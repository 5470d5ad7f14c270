"""Only `seed` creates a database at a path it is given. A mistyped `--db prod.bd` (or
`AIRLINE_AGENT_DB`) is refused by every other command with the path and how to create
it, and nothing is created there; only the default location, when no database was named,
is built on first use. A read never writes to the file it was asked to read: a 0-byte
file stays 0 bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from airline_agent.config import Settings
from airline_agent.domain.errors import DatabaseUnavailable
from tests.support.cli import invoke_cli

LOOKUP = ("get_user_details", json.dumps({"user_id": "emma_kim_9957"}))
CERTIFICATE = (
    "send_certificate",
    json.dumps({"user_id": "emma_kim_9957", "amount": 50}),
    "--no-guard",
)


def assert_refused_missing(result, path: Path) -> None:
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip() == (
        f"error: {path}: no such database. Create it with `airline-agent seed --db {path}`."
    )
    assert result.stdout == ""
    assert not path.exists() and list(path.parent.glob(f".{path.name}*")) == []


@pytest.mark.parametrize("arguments", [LOOKUP, CERTIFICATE], ids=["read", "write"])
def test_call_refuses_a_mistyped_db(tmp_path: Path, arguments: tuple[str, ...]) -> None:
    typo = tmp_path / "prod.bd"
    assert_refused_missing(invoke_cli("call", *arguments, "--db", str(typo)), typo)


def test_call_refuses_a_mistyped_database_variable(tmp_path: Path) -> None:
    typo = tmp_path / "prod.bd"
    assert_refused_missing(invoke_cli("call", *LOOKUP, AIRLINE_AGENT_DB=str(typo)), typo)


def test_chat_refuses_a_mistyped_db_before_the_chat(tmp_path: Path) -> None:
    typo = tmp_path / "prod.bd"
    result = invoke_cli(
        "chat", "--db", str(typo), "--base-url", "http://127.0.0.1:9/v1", stdin="hi\n"
    )  # fmt: skip
    assert_refused_missing(result, typo)


def test_export_refuses_a_mistyped_db(tmp_path: Path) -> None:
    typo = tmp_path / "prod.bd"
    assert_refused_missing(invoke_cli("export", "--db", str(typo)), typo)


async def test_the_tui_live_mode_refuses_a_mistyped_db(tmp_path: Path) -> None:
    from airline_agent.tui.controller import AgentController

    typo = tmp_path / "prod.bd"
    controller = AgentController(
        Settings(model="m", base_url="http://127.0.0.1:9/v1", db=str(typo))
    )
    with pytest.raises(DatabaseUnavailable, match=r"no such database\. Create it with"):
        await controller.prepare()
    assert not typo.exists()


def test_the_default_location_is_built_on_first_use(tmp_path: Path) -> None:
    """No --db and no AIRLINE_AGENT_DB: `data/airline.db` (of the working directory)
    cannot be a typo, and is built as docs/database.md says ("Build it": built on first use)."""
    result = invoke_cli("call", *LOOKUP)  # the working directory is tmp_path
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["user_id"] == "emma_kim_9957"
    assert (tmp_path / "data" / "airline.db").is_file()


@pytest.mark.parametrize(
    "command",
    [("call", *LOOKUP), ("export",)],
    ids=["call", "export"],
)
def test_a_read_never_writes_to_an_empty_file(tmp_path: Path, command: tuple[str, ...]) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    result = invoke_cli(*command, "--db", str(empty))
    assert result.returncode == 1
    assert "empty (0 bytes)" in result.stderr and "--force" not in result.stderr
    assert empty.stat().st_size == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]
