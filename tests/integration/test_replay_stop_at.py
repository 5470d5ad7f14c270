"""`airline-agent replay FILE --stop-at N --db OUT`: the database as it was right after
step N of a scenario, for several N; OUT is never an existing file without --force, never
the scenario file, never the database the settings name, never through a link."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from airline_agent.scenarios.library import library_dir
from airline_agent.stack import open_existing_database, toolbox
from airline_agent.tools.conversation import ToolConversation
from tests.support.cli import invoke_cli

BAGS = library_dir() / "correct-passenger-add-bags.yaml"  # writes at steps 10 and 22 of 24


def replay(*args: str, **env: str) -> Any:
    """`airline-agent replay ARGS` in this process (an exception it lets out fails the test)."""
    return invoke_cli("replay", *args, **env)


def reservation(path: Path) -> dict[str, Any]:
    database = open_existing_database(path)
    try:
        tools = toolbox(database, guard=False)
        outcome = tools.call(
            "get_reservation_details", {"reservation_id": "MOBR72"}, ToolConversation()
        )
        return outcome.result
    finally:
        database.close()


@pytest.mark.parametrize(
    ("step", "name", "bags"),
    [(0, "Sofia", 0), (9, "Sofia", 0), (10, "Sophia", 0), (21, "Sophia", 0), (22, "Sophia", 3)],
)
def test_the_database_after_step_n(tmp_path: Path, step: int, name: str, bags: int):
    out = tmp_path / f"after-{step}.db"
    result = replay(str(BAGS), "--stop-at", str(step), "--db", str(out))
    assert result.returncode == 0, result.stderr
    assert f"{out}: the database after step {step} of correct-passenger-add-bags" in result.stderr
    record = reservation(out)
    assert (record["passengers"][2]["first_name"], record["total_baggages"]) == (name, bags)
    assert not Path(f"{out}-wal").exists()  # a whole file, no log beside it


def test_the_step_is_said_and_past_the_end_nothing_is_written(tmp_path: Path):
    out = tmp_path / "out.db"
    result = replay(str(BAGS), "--stop-at", "22", "--db", str(out), "--json")
    assert result.returncode == 0, result.stderr
    assert '"step": "step 22: update_reservation_baggages' in result.stdout
    beyond = tmp_path / "beyond.db"
    result = replay(str(BAGS), "--stop-at", "25", "--db", str(beyond))
    assert result.returncode == 2
    assert "has 24 steps, not 25; nothing was written" in result.stderr
    assert not beyond.exists()


def test_an_existing_output_is_kept_unless_forced(tmp_path: Path):
    out = tmp_path / "out.db"
    assert replay(str(BAGS), "--stop-at", "9", "--db", str(out)).returncode == 0
    kept = out.read_bytes()
    result = replay(str(BAGS), "--stop-at", "22", "--db", str(out))
    assert result.returncode == 2
    assert "already exists (--force replaces it)" in result.stderr
    assert out.read_bytes() == kept
    result = replay(str(BAGS), "--stop-at", "22", "--db", str(out), "--force")
    assert result.returncode == 0, result.stderr
    assert reservation(out)["total_baggages"] == 3


def test_the_inputs_and_the_database_are_never_written(tmp_path: Path, db: Path):
    scenario = tmp_path / "bags.yaml"
    scenario.write_bytes(BAGS.read_bytes())
    result = replay(str(scenario), "--stop-at", "3", "--db", str(scenario), "--force")
    assert result.returncode == 2
    assert "is an input of this run" in result.stderr
    assert scenario.read_bytes() == BAGS.read_bytes()
    before = db.read_bytes()
    result = replay(
        str(scenario), "--stop-at", "3", "--db", str(db), "--force", AIRLINE_AGENT_DB=str(db)
    )
    assert result.returncode == 2
    assert f"is the database {db}" in result.stderr
    assert db.read_bytes() == before
    link = tmp_path / "link.db"
    os.symlink(tmp_path / "elsewhere.db", link)
    result = replay(str(scenario), "--stop-at", "3", "--db", str(link), "--force")
    assert result.returncode == 2 and "symbolic link" in result.stderr
    assert not (tmp_path / "elsewhere.db").exists()


def test_bad_usage_is_one_line(tmp_path: Path):
    out = str(tmp_path / "out.db")
    for args, said in (
        ((str(BAGS), "--stop-at", "3"), "--stop-at N and --db OUT go together"),
        ((str(BAGS), str(BAGS), "--stop-at", "3", "--db", out), "give one scenario file"),
        ((str(tmp_path), "--stop-at", "3", "--db", out), "give one scenario file"),
        ((str(BAGS), "--stop-at", "3", "--db", out, "--tau2", str(tmp_path)), "cannot be combined"),
    ):
        result = replay(*args)
        assert result.returncode == 2, args
        assert said in result.stderr
    assert not Path(out).exists()
