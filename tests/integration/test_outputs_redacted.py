"""Outputs besides the chat are redacted too (issue 10 §3): `export` (a key a customer
typed may have reached the data) and `call` (a tool's message may repeat its input)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.support.cli import run_cli

KEY = "sk-export-secret-0123456789"


def test_export_never_writes_the_key_and_stays_valid_json(db: Path, tmp_path: Path):
    with sqlite3.connect(db) as connection:
        connection.execute(
            "UPDATE user SET address2 = ? WHERE user_id = 'emma_kim_9957'", (f"key {KEY}",)
        )
    target = tmp_path / "db.json"
    result = run_cli("export", "--db", str(db), "-o", str(target), OPENAI_API_KEY=KEY)
    assert result.returncode == 0, result.stderr
    text = target.read_text()
    assert KEY not in text
    assert json.loads(text)["users"]["emma_kim_9957"]["address"]["address2"] == "key [redacted]"


def test_call_never_prints_the_key(db: Path):
    arguments = json.dumps({"user_id": KEY})
    result = run_cli("call", "get_user_details", arguments, "--db", str(db), OPENAI_API_KEY=KEY)
    assert result.returncode == 1  # NOT_FOUND, whose message names the id it was given
    assert KEY not in result.stdout + result.stderr
    assert "[redacted]" in result.stdout
