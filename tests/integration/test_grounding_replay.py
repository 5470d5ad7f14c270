"""Grounding findings in the scenario library: expectations on them, and the shipped example."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from airline_agent.agent.events import GroundingWarning
from airline_agent.scenarios.library import library_dir
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.model import Scenario, TurnExpectations
from airline_agent.scenarios.runner import replay_scenario
from airline_agent.scenarios.transcript import to_jsonl, to_markdown

CLAIMED = "grounding-claimed-cancellation.yaml"


def test_the_library_shows_a_claimed_action_without_a_call_flagged() -> None:
    scenario = load_scenario(library_dir() / CLAIMED)
    assert scenario.turns[0].expect.warnings == ["grounding"]
    report = replay_scenario(scenario)
    assert report.status == "passed", report.failures
    first, *later = [e for e in report.events if isinstance(e, GroundingWarning)]
    assert [(f.kind, f.value) for f in first.findings] == [("claimed_action", "I've cancelled")]
    assert later == []  # the honest second turn raises nothing


def test_a_finding_the_turn_did_not_raise_is_a_failure() -> None:
    body = load_scenario(library_dir() / CLAIMED).model_dump(exclude_unset=True)
    body["turns"][0]["expect"]["findings"] = [{"kind": "amount", "value": "$208"}]
    report = replay_scenario(Scenario.model_validate(body))
    failures = [f for f in report.failures if f.what == "grounding finding"]
    assert [(f.expected, f.actual) for f in failures] == [
        ("amount: $208", "claimed_action: I've cancelled")
    ]


def test_findings_need_the_grounding_warning() -> None:
    with pytest.raises(ValidationError, match="warnings: \\[grounding\\]"):
        TurnExpectations(findings=[{"kind": "claimed_action"}])
    with pytest.raises(ValidationError, match="needs `kind`, `value`"):
        TurnExpectations(warnings=["grounding"], findings=[{}])


def test_transcripts_say_what_is_unsupported_and_why() -> None:
    report = replay_scenario(load_scenario(library_dir() / CLAIMED))
    why = "claims a cancellation, but no cancel_reservation call succeeded in this conversation"
    assert f"⚠ **Grounding:** I've cancelled ({why})" in to_markdown(report.events, "claimed")
    first = json.loads(to_jsonl(report.events).splitlines()[0])
    assert first["grounding"] == [{"value": "I've cancelled", "kind": "claimed_action", "why": why}]
