"""replay_scenario's options: which file a report names, and whether it keeps the turn's
events (scenarios/runner.py). Cases the mutation profile (docs/mutation.md) found that no
test read."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.recorder import save_scenario
from airline_agent.scenarios.runner import replay_scenario, replay_scenario_async
from tests.support.lookup_turn import LOOKUP_TURN

LOOKUP = {
    "name": "lookup",
    "customer": "emma_kim_9957",
    "turns": [LOOKUP_TURN],
    "database": "unchanged",
}


def test_a_report_names_the_file_the_scenario_was_read_from(tmp_path: Path) -> None:
    read = load_scenario(save_scenario(Scenario.model_validate(LOOKUP), tmp_path / "lookup.yaml"))
    assert replay_scenario(read).path == tmp_path / "lookup.yaml"
    elsewhere = tmp_path / "elsewhere.yaml"
    assert replay_scenario(read, path=elsewhere).path == elsewhere


def test_a_report_keeps_the_events_unless_told_not_to() -> None:
    scenario = Scenario.model_validate(LOOKUP)
    kept = replay_scenario(scenario)
    assert kept.status == "passed", kept.why()
    assert kept.events and kept.path is None
    assert replay_scenario(scenario, keep_events=False).events == []
    assert asyncio.run(replay_scenario_async(scenario)).events


def test_a_scenario_whose_dataset_is_missing_is_skipped_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIRLINE_AGENT_TAU2_DIR", str(tmp_path / "no-tau2-here"))
    on_tau2 = Scenario.model_validate(dict(LOOKUP, name="on-tau2", dataset="tau2"))
    report = replay_scenario(on_tau2, path=tmp_path / "on-tau2.yaml")
    assert (report.name, report.status, report.path) == (
        "on-tau2",
        "skipped",
        tmp_path / "on-tau2.yaml",
    )
    assert report.reason is not None and "no-tau2-here" in report.reason
    assert report.ok and report.why() == report.reason


def test_a_report_counts_the_turns_and_calls_of_every_turn() -> None:
    twice = dict(LOOKUP, turns=LOOKUP["turns"] * 2)
    report = replay_scenario(Scenario.model_validate(twice))
    assert report.status == "passed", report.why()
    assert (report.turns, report.tool_calls, report.ends) == (2, 2, ["answered", "answered"])


def test_a_record_expected_removed_but_still_there_fails_so() -> None:
    expects_removed = dict(LOOKUP, database={"reservations": {"EHGLP3": None}})
    report = replay_scenario(Scenario.model_validate(expects_removed))
    assert report.status == "failed"
    assert [(f.where, f.what, f.expected, f.actual) for f in report.failures] == [
        ("database", "reservations EHGLP3", "removed", "still there")
    ]


def test_a_change_on_an_unchanged_scenario_says_what_changed() -> None:
    cancel = {
        "customer": "Cancel EHGLP3 anyway.",
        "responses": [
            {
                "tool_calls": [
                    {"name": "cancel_reservation", "arguments": {"reservation_id": "EHGLP3"}}
                ]
            },
            {"content": "It is cancelled."},
        ],
    }
    body = dict(LOOKUP, settings={"guard": False}, turns=[*LOOKUP["turns"], cancel])
    report = replay_scenario(Scenario.model_validate(body))
    [failure] = report.failures
    assert (failure.where, failure.what, failure.expected) == (
        "database",
        "reservations EHGLP3",
        "unchanged",
    )
    assert failure.actual == (
        "changed: payment_history.1.amount <missing> → -208, payment_history.1.payment_id "
        '<missing> → "credit_card_5832574", status <missing> → "cancelled"'
    )
