"""What a replay report holds beyond pass or fail (scenarios/runner.py): the words of each
database finding, a scenario that raised, the time it took, its cost, scripted responses
left unused. Cases the mutation profile (docs/mutation.md) found that no test read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from airline_agent.agent.events import Usage
from airline_agent.agent.usage import cost_of
from airline_agent.scenarios import datasets, runner
from airline_agent.scenarios.dbdiff import MISSING
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.runner import ScenarioReport, replay_scenario
from tests.support.lookup_turn import LOOKUP_TURN

# EHGLP3's second passenger, Anya Silva, renamed Ann; the first stays Evelyn Taylor.
RENAME_TURN = {
    "customer": "Anya's name is Ann, please correct it on EHGLP3.",
    "responses": [
        {
            "tool_calls": [
                {
                    "name": "update_reservation_passengers",
                    "arguments": {
                        "reservation_id": "EHGLP3",
                        "passengers": [
                            {"first_name": "Evelyn", "last_name": "Taylor", "dob": "1965-01-16"},
                            {"first_name": "Ann", "last_name": "Silva", "dob": "1971-11-22"},
                        ],
                    },
                }
            ]
        },
        {"content": "Done: the second passenger is now Ann Silva."},
    ],
}
CANCEL_TURN = {
    "customer": "Cancel EHGLP3 anyway.",
    "responses": [
        {"tool_calls": [{"name": "cancel_reservation", "arguments": {"reservation_id": "EHGLP3"}}]},
        {"content": "It is cancelled."},
    ],
}


def replay(*turns: dict, database: object = None, **settings: object) -> ScenarioReport:
    body: dict = {
        "name": "details",
        "customer": "emma_kim_9957",
        "settings": {"guard": False, **settings},
        "turns": list(turns),
    }
    if database is not None:
        body["database"] = database
    return replay_scenario(Scenario.model_validate(body))


def findings(report: ScenarioReport) -> list[tuple[str, str, object, object]]:
    return [(f.where, f.what, f.expected, f.actual) for f in report.failures]


def test_a_changed_field_the_file_does_not_list_is_named_with_its_old_and_new_value() -> None:
    only_the_first = {"reservations": {"EHGLP3": {"passengers.0.first_name": "Evelyn"}}}
    report = replay(RENAME_TURN, database=only_the_first)
    assert report.status == "failed"
    assert findings(report) == [
        ("database", "reservations EHGLP3 passengers.1.first_name", 'unchanged ("Anya")', "Ann")
    ]


def test_a_changed_record_the_file_does_not_list_fails_as_unchanged_with_what_changed() -> None:
    # The file lists a user (as it is); the reservation it does not list changed.
    lists_a_user = {"users": {"emma_kim_9957": {"membership": "gold"}}}
    report = replay(RENAME_TURN, database=lists_a_user)
    assert report.status == "failed"
    assert findings(report) == [
        (
            "database",
            "reservations EHGLP3",
            "unchanged",
            'changed: passengers.1.first_name "Anya" → "Ann"',
        )
    ]
    (change,) = report.changes
    assert (change.kind, change.key, change.paths) == (
        "reservations",
        "EHGLP3",
        ("passengers.1.first_name",),
    )


def test_every_expected_record_is_checked_after_one_that_failed() -> None:
    expected = {
        "reservations": {
            "EHGLP3": None,  # expected removed: it is still there
            "NO0SUCH": {"status": "cancelled"},  # expected, never existed
            "66EEUA": {"status": "cancelled"},  # exists, not cancelled
        }
    }
    report = replay(LOOKUP_TURN, database=expected)
    assert report.status == "failed"
    assert findings(report) == [
        ("database", "reservations EHGLP3", "removed", "still there"),
        ("database", "reservations NO0SUCH", "present", "no such record"),
        ("database", "reservations 66EEUA status", "cancelled", MISSING),
    ]


def test_a_record_expected_removed_but_changed_fails_only_as_still_there() -> None:
    report = replay(CANCEL_TURN, database={"reservations": {"EHGLP3": None}})
    assert report.status == "failed", report.why()
    assert findings(report) == [("database", "reservations EHGLP3", "removed", "still there")]


def test_a_scenario_that_raises_is_an_error_with_the_exceptions_type_and_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(original: Path, copy: Path) -> set:
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(runner, "changed_records", broken)
    report = replay(LOOKUP_TURN, database="unchanged")
    assert (report.status, report.reason) == (
        "error",
        "DatabaseError: database disk image is malformed",
    )
    assert not report.ok and report.why() == report.reason
    assert report.turns == 1  # the conversation itself ran


def test_the_time_a_replay_took_is_in_milliseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    readings = iter([100.0, 100.25])  # the start and the end, as the clock reads them

    class Clock:
        @staticmethod
        def perf_counter() -> float:
            return next(readings)

    monkeypatch.setattr(runner, "time", Clock)
    report = replay(LOOKUP_TURN, database="unchanged")
    assert report.status == "passed", report.why()
    assert report.elapsed_ms == 250.0


def test_a_replay_costs_what_its_responses_usage_costs_on_the_model() -> None:
    priced = {
        "customer": "Hello.",
        "responses": [
            {
                "content": "Hello, how can I help?",
                "usage": {"prompt_tokens": 1200, "completion_tokens": 30, "cached_tokens": 200},
            }
        ],
    }
    report = replay(priced, model="gpt-4o")
    usage = Usage(prompt_tokens=1200, completion_tokens=30, cached_tokens=200)
    expected = cost_of("gpt-4o", usage)
    assert expected is not None and expected > 0  # gpt-4o is in data/prices.toml
    assert report.status == "passed", report.why()
    assert report.usage == usage
    assert report.cost == pytest.approx(expected)


def test_scripted_responses_the_turn_never_asked_for_fail_with_how_many_were_used() -> None:
    too_many = {
        **LOOKUP_TURN,
        "responses": [*LOOKUP_TURN["responses"], {"content": "Anything else?"}],
    }
    report = replay(too_many)
    assert report.status == "failed"
    assert findings(report) == [("turn 1", "scripted responses used", 3, 2)]


def test_a_replay_runs_on_a_copy_named_after_its_scenario_and_removes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The name says which scenario left a scratch file behind after a crash.
    discarded: list[Path] = []
    discard = datasets.discard

    def keep_track(copy: Path) -> None:
        discarded.append(copy)
        discard(copy)

    monkeypatch.setattr(datasets, "discard", keep_track)
    report = replay(LOOKUP_TURN, database="unchanged")
    assert report.status == "passed", report.why()
    (copy,) = discarded
    assert copy.name.startswith("details-") and copy.suffix == ".db"
    assert not copy.exists()
