"""`airline-agent seed` and `export`: summaries, refusals and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from airline_agent.cli import app
from tests.conftest import tau2_files

runner = CliRunner()


def test_seed_then_export_to_file(tmp_path: Path):
    db = tmp_path / "a.db"
    result = runner.invoke(app, ["seed", "--db", str(db), "--seed", "7"])
    assert result.exit_code == 0, result.output
    assert "2,000 reservations" in result.output and "seed=7" in result.output
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["export", "--db", str(db), "-o", str(out)])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert "EHGLP3" in document["reservations"]


def test_export_to_stdout_is_json(tmp_path: Path):
    db = tmp_path / "a.db"
    assert runner.invoke(app, ["seed", "--db", str(db)]).exit_code == 0
    result = runner.invoke(app, ["export", "--db", str(db)])
    assert result.exit_code == 0
    assert len(json.loads(result.stdout)["users"]) == 500


def test_db_from_environment(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AIRLINE_AGENT_DB", str(tmp_path / "env.db"))
    assert runner.invoke(app, ["seed"]).exit_code == 0
    assert (tmp_path / "env.db").is_file()


def test_seed_refuses_to_overwrite_without_force(tmp_path: Path):
    db = tmp_path / "a.db"
    assert runner.invoke(app, ["seed", "--db", str(db)]).exit_code == 0
    result = runner.invoke(app, ["seed", "--db", str(db)])
    assert result.exit_code == 1
    assert "already exists" in result.output and "Traceback" not in result.output
    assert runner.invoke(app, ["seed", "--db", str(db), "--force", "--scale", "2"]).exit_code == 0


def test_bad_import_file_is_one_line(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"flights": []}')
    result = runner.invoke(app, ["seed", "--db", str(tmp_path / "a.db"), "--from-tau2", str(bad)])
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0
    assert "bad.json" in result.output and "`flights` must be an object" in result.output
    assert not (tmp_path / "a.db").exists()


def test_from_tau2_with_scale_is_bad_usage(tmp_path: Path):
    result = runner.invoke(
        app, ["seed", "--db", str(tmp_path / "a.db"), "--from-tau2", "x.json", "--scale", "2"]
    )
    assert result.exit_code == 2


def test_export_of_missing_or_corrupt_db_is_one_line(tmp_path: Path):
    result = runner.invoke(app, ["export", "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 1
    assert "none.db: no such database" in result.output
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"garbage" * 200)
    result = runner.invoke(app, ["export", "--db", str(garbage)])
    assert result.exit_code == 1
    assert "garbage.db: cannot be read" in result.output
    assert result.output.strip().count("\n") == 0


def test_import_reference_through_the_cli(tmp_path: Path):
    db_json, _ = tau2_files()
    db = tmp_path / "t.db"
    result = runner.invoke(app, ["seed", "--db", str(db), "--from-tau2", str(db_json)])
    assert result.exit_code == 0, result.output
    assert "(tau2)" in result.output
    exported = runner.invoke(app, ["export", "--db", str(db)])
    assert json.loads(exported.stdout) == json.loads(db_json.read_text())
