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

LOOKUP = {
    "name": "lookup",
    "customer": "emma_kim_9957",
    "turns": [
        {
            "customer": "What is in my reservation EHGLP3?",
            "responses": [
                {
                    "tool_calls": [
                        {
                            "name": "get_reservation_details",
                            "arguments": {"reservation_id": "EHGLP3"},
                        }
                    ]
                },
                {"content": "EHGLP3 is a basic economy trip from PHX to JFK."},
            ],
        }
    ],
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
