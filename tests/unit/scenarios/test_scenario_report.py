"""A scenario report in one line (`why`), as JSON (`to_json`, what `replay --json`
prints), and how a changed record is described (scenarios/runner.py), without replaying
anything. Cases the mutation profile (docs/mutation.md) found that no test read."""

from __future__ import annotations

from pathlib import Path

import pytest

from airline_agent.agent.events import Usage
from airline_agent.scenarios import runner, tau2_runs
from airline_agent.scenarios.dbdiff import MISSING, RecordChange
from airline_agent.scenarios.runner import Drift, Failure, ScenarioReport

WRONG_CABIN = Failure("turn 1, call 1 (get_reservation_details)", "field cabin", "business", "x")
STALE = Drift("turn 1, call 1 (get_reservation_details)", ("total_baggages: 3 → 0",))


def test_why_is_empty_for_a_passing_report() -> None:
    assert ScenarioReport("ok", "passed").why() == ""


def test_why_gives_the_reason_a_scenario_did_not_run() -> None:
    report = ScenarioReport("gone", "skipped", reason="dataset tau2 not found", failures=[])
    assert report.why() == "dataset tau2 not found"


def test_why_names_the_first_finding_drift_first_and_counts_the_others() -> None:
    one = ScenarioReport("one", "failed", failures=[WRONG_CABIN])
    assert one.why() == str(WRONG_CABIN)
    three = ScenarioReport("three", "drift", failures=[WRONG_CABIN, WRONG_CABIN], drift=[STALE])
    assert three.why() == f"{STALE} (and 2 more)"
    two = ScenarioReport("two", "failed", failures=[WRONG_CABIN, WRONG_CABIN])
    assert two.why() == f"{WRONG_CABIN} (and 1 more)"


def test_to_json_holds_every_field_of_the_report(tmp_path: Path) -> None:
    change = RecordChange("reservations", "EHGLP3", {"status": None}, {"status": "x"}, ("status",))
    report = ScenarioReport(
        "lookup",
        "failed",
        turns=2,
        tool_calls=3,
        usage=Usage(prompt_tokens=100, completion_tokens=20, cached_tokens=64, reasoning_tokens=5),
        cost=0.25,
        elapsed_ms=12.345,
        failures=[Failure("database", "reservations EHGLP3 status", "cancelled", MISSING)],
        drift=[STALE],
        reason=None,
        changes=[change],
        ends=["answered", None],
        path=tmp_path / "lookup.yaml",
    )
    assert report.to_json() == {
        "name": "lookup",
        "path": str(tmp_path / "lookup.yaml"),
        "status": "failed",
        "turns": 2,
        "turn_ends": ["answered", None],
        "tool_calls": 3,
        "tokens": 120,
        "usage": {
            "prompt_tokens": 100,
            "completion_tokens": 20,
            "cached_tokens": 64,
            "reasoning_tokens": 5,
        },
        "cost": 0.25,
        "elapsed_ms": 12.3,
        "reason": None,
        "failures": [
            {
                "where": "database",
                "what": "reservations EHGLP3 status",
                "expected": "cancelled",
                "actual": "<missing>",
            }
        ],
        "drift": [
            {
                "where": "turn 1, call 1 (get_reservation_details)",
                "differences": ["total_baggages: 3 → 0"],
            }
        ],
        "changed_records": ["reservations/EHGLP3"],
    }


def test_to_json_of_a_report_without_a_file_or_findings() -> None:
    report = ScenarioReport("inline", "error", reason="RuntimeError: boom")
    shown = report.to_json()
    assert (shown["path"], shown["reason"], shown["failures"], shown["drift"]) == (
        None,
        "RuntimeError: boom",
        [],
        [],
    )


def change(before: dict | None, after: dict | None, paths: tuple[str, ...] = ()) -> RecordChange:
    return RecordChange("reservations", "EHGLP3", before, after, paths)


def test_a_changed_record_is_described_by_its_first_four_paths() -> None:
    before = {f"f{n}": n for n in range(6)}
    after = {f"f{n}": n + 10 for n in range(6)}
    assert runner._describe(change(before, after, ("f0",))) == "changed: f0 0 → 10"
    four = change(before, after, ("f0", "f1", "f2", "f3"))
    assert runner._describe(four) == "changed: f0 0 → 10, f1 1 → 11, f2 2 → 12, f3 3 → 13"
    five = change(before, after, tuple(f"f{n}" for n in range(5)))
    assert runner._describe(five).endswith("f3 3 → 13, … 1 more")
    six = change(before, after, tuple(f"f{n}" for n in range(6)))
    assert runner._describe(six) == (
        "changed: f0 0 → 10, f1 1 → 11, f2 2 → 12, f3 3 → 13, … 2 more"
    )


def test_a_created_or_removed_record_is_described_so() -> None:
    assert runner._describe(change(None, {"status": None})) == "created"
    assert runner._describe(change({"status": None}, None)) == "removed"


def test_replay_tau2_passes_its_options_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[tuple[Path, dict]] = []
    monkeypatch.setattr(
        tau2_runs, "replay_tau2", lambda path, **options: seen.append((path, options))
    )
    runner.replay_tau2(tmp_path, verify=True, keep_events=True)
    assert seen == [(tmp_path, {"verify": True, "keep_events": True})]
