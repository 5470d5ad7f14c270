"""`call` and `replay` print what the database, a tool or a scenario file holds; its
control codes (C1, bidi overrides, DEL: JSON itself escapes only C0) reach the terminal
as visible escapes, and `--json` output stays valid JSON with the same values (issue 19
item 2, the other front ends)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from tests.support.cli import run_cli_bytes

COMMAND_BYTES = re.compile(
    rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
)
HOSTILE = "\x1b]0;title\x07 \x9b2J \u202etxt.exe\u202c \x7f"


def assert_no_command_bytes(name: str, data: bytes) -> None:
    found = COMMAND_BYTES.findall(data)
    assert not found, f"{name} holds {found!r}: {data!r}"


def test_call_prints_a_hostile_stored_value_escaped_and_as_valid_json(db: Path):
    # A value a model wrote through a tool (a passenger's name) or an import brought in.
    with sqlite3.connect(db) as connection:
        connection.execute(
            "UPDATE user SET address2 = ? WHERE user_id = 'emma_kim_9957'", (HOSTILE,)
        )
    arguments = json.dumps({"user_id": "emma_kim_9957"})
    result = run_cli_bytes("call", "get_user_details", arguments, "--db", str(db))
    assert result.returncode == 0, result.stderr
    assert_no_command_bytes("stdout", result.stdout)
    assert json.loads(result.stdout)["address"]["address2"] == HOSTILE  # the same value
    assert b"\\u009b2J \\u202etxt.exe\\u202c \\u007f" in result.stdout


SCENARIO = r"""
name: hostile-escapes
description: a model that writes escapes into a passenger's name
customer: emma_kim_9957
settings:
  approval: auto
turns:
  - customer: "Please fix the names on EHGLP3."
    responses:
      - tool_calls:
          - name: update_reservation_passengers
            arguments:
              reservation_id: EHGLP3
              passengers:
                - {first_name: "\e]0;title\a\x9b2J\u202eX", last_name: Taylor, dob: "1965-01-16"}
                - {first_name: Anya, last_name: Silva, dob: "1971-11-22"}
      - content: "Done."
    expect:
      calls:
        - tool: update_reservation_passengers
          equals: {passengers.0.first_name: Evelyn}
"""


def test_replay_prints_a_hostile_scenarios_report_escaped(tmp_path: Path):
    scenario = tmp_path / "hostile.yaml"
    scenario.write_text(SCENARIO)
    table = run_cli_bytes("replay", str(scenario), model=None)
    assert table.returncode == 1, table.stderr  # the name is not what the file expects
    assert_no_command_bytes("the table", table.stdout + table.stderr)
    assert b'got "\\u001b]0;title\\u0007\\u009b2J\\u202eX"' in table.stdout
    report = run_cli_bytes("replay", str(scenario), "--json", model=None)
    assert_no_command_bytes("the JSON report", report.stdout + report.stderr)
    [row] = json.loads(report.stdout)["scenarios"]
    assert row["failures"][0]["actual"] == "\x1b]0;title\x07\x9b2J\u202eX"  # the same value
