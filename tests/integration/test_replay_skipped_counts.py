"""A scenario skipped for want of its dataset is counted as skipped, not as passed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import invoke_cli

CANCEL_EHGLP3 = Path(__file__).resolve().parents[2] / "data/scenarios/cancel-ehglp3.yaml"


@pytest.fixture
def tau2_scenario(tmp_path: Path) -> Path:
    text = CANCEL_EHGLP3.read_text(encoding="utf-8")
    assert "\ndataset: sample\n" in text
    path = tmp_path / "on-tau2.yaml"
    text = text.replace("\ndataset: sample\n", "\ndataset: tau2\n")
    path.write_text(text.replace("name: cancel-ehglp3\n", "name: on-tau2\n", 1), encoding="utf-8")
    return path


def test_a_skipped_scenario_is_not_reported_as_passed(tau2_scenario: Path, tmp_path: Path) -> None:
    result = invoke_cli(
        "replay", str(tau2_scenario), AIRLINE_AGENT_TAU2_DIR=str(tmp_path / "no-tau2-here")
    )
    assert result.returncode == 0, result.stdout + result.stderr  # skipping fails nothing
    assert "skipped" in result.stdout.splitlines()[1]
    assert result.stdout.splitlines()[-1] == "0 of 1 passed, 1 skipped"


def test_the_json_report_counts_skipped_apart(tau2_scenario: Path, tmp_path: Path) -> None:
    result = invoke_cli(
        "replay",
        str(tau2_scenario),
        str(CANCEL_EHGLP3),
        "--json",
        AIRLINE_AGENT_TAU2_DIR=str(tmp_path / "no-tau2-here"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert (report["passed"], report["skipped"], report["failed"]) == (1, 1, 0)
