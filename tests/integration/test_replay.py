"""Replays through the real loop, tools and database: pass, each kind of failure, drift,
isolation, recording round trips, transcripts, the CLI report and the τ² runs."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from airline_agent.agent.events import ToolFinished
from airline_agent.cli import app
from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.scenarios.library import SHOWCASE
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.recorder import record_scenario, save_scenario
from airline_agent.scenarios.runner import ScenarioReport, replay_scenario, replay_tau2
from airline_agent.scenarios.transcript import to_jsonl, to_markdown, write_transcript
from airline_agent.tools.outcome import ERROR_CODES
from airline_agent.tools.toolbox import Toolbox
from tests.conftest import tau2_files
from tests.support.fixtures import SHIPPED_LIBRARY
from tests.support.lookup_turn import LOOKUP_TURN
from tests.support.world import world


def scenario(**changes: object) -> Scenario:
    """The showcase's first turn, with changes."""
    body: dict = {
        "name": "lookup",
        "customer": "emma_kim_9957",
        "turns": [
            {
                **LOOKUP_TURN,
                "expect": {
                    "calls": [
                        {
                            "tool": "get_reservation_details",
                            "ok": True,
                            "equals": {"cabin": "basic_economy"},
                        }
                    ]
                },
            }
        ],
        "database": "unchanged",
    }
    body.update(changes)
    return Scenario.model_validate(body)


def cancel_turn(expect: dict | None = None) -> dict:
    turn: dict = {
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
    if expect is not None:
        turn["expect"] = expect
    return turn


def test_a_passing_scenario_passes() -> None:
    report = replay_scenario(scenario())
    assert report.status == "passed", report.why()
    assert (report.turns, report.tool_calls) == (1, 1)


def test_a_wrong_field_value_fails_with_expected_and_actual() -> None:
    body = scenario().model_dump(exclude_unset=True)
    body["turns"][0]["expect"]["calls"][0]["equals"] = {"cabin": "business"}
    report = replay_scenario(Scenario.model_validate(body))
    assert report.status == "failed"
    failure = report.failures[0]
    assert (failure.what, failure.expected, failure.actual) == (
        "field cabin",
        "business",
        "basic_economy",
    )
    assert "turn 1, call 1 (get_reservation_details)" in str(failure)


def test_a_wrong_tool_sequence_fails() -> None:
    body = scenario().model_dump(exclude_unset=True)
    body["turns"][0]["expect"] = {"tools": ["get_user_details"]}
    report = replay_scenario(Scenario.model_validate(body))
    assert report.failures[0].what == "tools called"
    assert report.failures[0].actual == ["get_reservation_details"]


def test_an_unexpected_error_code_fails() -> None:
    body = scenario().model_dump(exclude_unset=True)
    body["turns"][0]["expect"]["calls"][0] = {
        "tool": "get_reservation_details",
        "error": "NOT_FOUND",
    }
    report = replay_scenario(Scenario.model_validate(body))
    assert [f.what for f in report.failures] == ["error code"]


def test_an_invented_value_in_a_reply_is_a_grounding_failure() -> None:
    body = scenario().model_dump(exclude_unset=True)
    body["turns"][0]["responses"][1]["content"] = "Your refund of $999 is on its way."
    report = replay_scenario(Scenario.model_validate(body))
    assert report.status == "failed"
    assert report.failures[0].what == "warnings"
    assert "$999" in str(report.failures[0].actual)


def test_running_out_of_script_fails_with_the_reason() -> None:
    body = scenario().model_dump(exclude_unset=True)
    body["turns"][0]["responses"] = body["turns"][0]["responses"][:1]
    report = replay_scenario(Scenario.model_validate(body))
    ended = [f for f in report.failures if f.what == "turn ended"]
    assert ended and ended[0].expected == "answered"


def test_a_database_change_on_an_unchanged_scenario_fails() -> None:
    turns = [*scenario().model_dump(exclude_unset=True)["turns"], cancel_turn()]
    report = replay_scenario(scenario(settings={"guard": False}, turns=turns))
    assert report.status == "failed"
    database = [f for f in report.failures if f.where == "database"]
    assert database and database[0].what == "reservations EHGLP3"
    assert "status" in str(database[0].actual)


def test_expected_records_pass_and_unlisted_fields_fail() -> None:
    turns = [*scenario().model_dump(exclude_unset=True)["turns"], cancel_turn()]
    only_status = {"reservations": {"EHGLP3": {"status": "cancelled"}}}
    report = replay_scenario(scenario(settings={"guard": False}, turns=turns, database=only_status))
    # The refund line was not listed: reported as an unexpected change, by path.
    assert report.status == "failed"
    assert all("payment_history" in f.what for f in report.failures), report.failures
    full = {
        "reservations": {
            "EHGLP3": {
                "status": "cancelled",
                "payment_history": [
                    {"payment_id": "credit_card_5832574", "amount": 208},
                    {"payment_id": "credit_card_5832574", "amount": -208},
                ],
            }
        }
    }
    report = replay_scenario(scenario(settings={"guard": False}, turns=turns, database=full))
    assert report.status == "passed", report.why()


def test_a_changed_tool_result_is_reported_as_drift() -> None:
    body = scenario().model_dump(exclude_unset=True)
    recorded = replay_scenario(scenario()).events
    result = next(e.result for e in recorded if type(e).__name__ == "ToolFinished")
    stale = dict(result, total_baggages=3)
    body["turns"][0]["expect"]["calls"][0]["recorded"] = stale
    report = replay_scenario(Scenario.model_validate(body))
    assert report.status == "drift"
    assert report.drift[0].differences == ("total_baggages: 3 → 0",)


def test_scenarios_do_not_see_each_others_changes() -> None:
    turns = [*scenario().model_dump(exclude_unset=True)["turns"], cancel_turn()]
    first = replay_scenario(scenario(settings={"guard": False}, turns=turns, database=None))
    # The first scenario really cancelled EHGLP3, else the second proves nothing.
    finished = [e for e in first.events if isinstance(e, ToolFinished)]
    cancel = next(e for e in finished if e.name == "cancel_reservation")
    assert cancel.error is None and cancel.result["status"] == "cancelled", cancel.result
    again = replay_scenario(scenario())  # EHGLP3 is untouched in a fresh copy
    assert again.status == "passed", again.why()


@SHIPPED_LIBRARY
def test_the_shipped_library_passes(shipped_library_reports: list[ScenarioReport]) -> None:
    assert len(shipped_library_reports) >= 12, "the library ships at least 12 scenarios"
    assert SHOWCASE in [report.name for report in shipped_library_reports]
    failed = [f"{r.name}: {r.why()}" for r in shipped_library_reports if r.status != "passed"]
    assert not failed


@SHIPPED_LIBRARY
def test_the_library_covers_every_tool_and_error_code(
    shipped_library_reports: list[ScenarioReport], tmp_path: Path
) -> None:
    # INTERNAL_ERROR is left out: a replay cannot honestly make a tool fail inside.
    finished = [e for r in shipped_library_reports for e in r.events if isinstance(e, ToolFinished)]
    succeeded = {e.name for e in finished if e.error is None}
    database = Database.create(tmp_path / "empty.db")
    try:
        tools = set(Toolbox(database, clock=Clock.at()).names())
    finally:
        database.close()
    assert len(tools) == 14
    assert tools - succeeded == set(), "tools no shipped scenario calls successfully"
    codes = {e.error for e in finished if e.error is not None}
    assert set(ERROR_CODES) - {"INTERNAL_ERROR"} - codes == set(), "error codes never shown"
    warnings = {type(e).__name__ for r in shipped_library_reports for e in r.events}
    assert {"GroundingWarning", "LimitReached", "ApprovalRequested"} <= warnings


def test_a_recording_replays_to_the_same_results_and_database(tmp_path: Path) -> None:
    turns = [*scenario().model_dump(exclude_unset=True)["turns"], cancel_turn()]
    live = replay_scenario(scenario(settings={"guard": False}, turns=turns, database=None))
    recording = record_scenario(
        live.events,
        name="recorded",
        customer="emma_kim_9957",
        settings=scenario(settings={"guard": False}).settings,
        changes=live.changes,
    )
    path = save_scenario(recording, tmp_path / "recorded.yaml")
    loaded = load_scenario(path)
    assert loaded.database["reservations"]["EHGLP3"]["status"] == "cancelled"
    report = replay_scenario(loaded)
    assert report.status == "passed", report.why()
    assert [c.paths for c in report.changes] == [c.paths for c in live.changes]


def test_transcripts_are_chat_completions_shaped_and_hold_no_key(tmp_path: Path) -> None:
    events = replay_scenario(scenario()).events
    secret = "sk-test-123456"
    jsonl, markdown = write_transcript(events, tmp_path, "lookup", secrets=[secret])
    records = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert len(records) == 2
    first = records[0]
    assert first["body"]["messages"][0]["role"] == "system"
    assert first["body"]["tools"] and first["body"]["model"] == "scripted"
    call = first["response"]["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["name"] == "get_reservation_details"
    assert first["tool_results"][0]["tool_call_id"] == call["id"]
    assert records[1]["body"]["messages"][-1]["role"] == "tool"
    assert "**Customer:** What is in my reservation EHGLP3?" in markdown.read_text()
    assert secret not in to_jsonl(events, [secret]) + to_markdown(events, "x", [secret])


def test_replay_command_reports_json_and_exits_non_zero_on_failure(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    save_scenario(scenario(), good)
    bad = scenario().model_dump(exclude_unset=True)
    bad["name"] = "bad"
    bad["turns"][0]["expect"]["calls"][0]["equals"] = {"cabin": "business"}
    save_scenario(Scenario.model_validate(bad), tmp_path / "bad.yaml")
    (tmp_path / "broken.yaml").write_text("name: [\n")
    result = CliRunner().invoke(app, ["replay", str(tmp_path), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    statuses = {row["name"]: row["status"] for row in report["scenarios"]}
    assert statuses == {"lookup": "passed", "bad": "failed", "broken": "invalid"}
    only_good = CliRunner().invoke(app, ["replay", str(good), "--transcript", str(tmp_path / "t")])
    assert only_good.exit_code == 0, only_good.output
    assert (tmp_path / "t" / "lookup.jsonl").is_file()


def test_tau2_reference_runs_all_succeed() -> None:
    db, _tasks = tau2_files()
    reports = replay_tau2(db.parent)
    assert len(reports) == 50
    assert [r.task_id for r in reports if not r.ok] == []
    assert any("users/" in name for r in reports for name in r.changed)


def test_tau2_changed_records_agree_with_an_sql_diff() -> None:
    db, _tasks = tau2_files()
    reports = replay_tau2(db.parent, verify=True)
    assert all(r.ok for r in reports), [r.failures for r in reports if not r.ok]


def test_missing_tau2_data_is_one_clear_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["replay", "--tau2", str(tmp_path)])
    assert result.exit_code == 2
    assert "not found" in result.output
    # In a plain clone the data is absent: the line says where the docs tell more.
    assert 'docs/eval.md ("The data")' in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_replay_tau2_says_the_guard_is_off_and_runs_without_it(tmp_path: Path) -> None:
    """A one-task τ² folder (the tool tests' world) whose one action the guard would
    refuse (FLOWN1 is partly flown, X2, and no customer is identified, I1): the run says
    the guard is off, in its help, its table and its JSON, and the action succeeds."""
    (tmp_path / "db.json").write_text(json.dumps(world()))
    action = {"name": "cancel_reservation", "arguments": {"reservation_id": "FLOWN1"}}
    task = {"id": "1", "evaluation_criteria": {"actions": [action]}}
    (tmp_path / "tasks.json").write_text(json.dumps([task]))
    table = CliRunner().invoke(app, ["replay", "--tau2", str(tmp_path)])
    assert table.exit_code == 0, table.output
    assert table.output.startswith("guard off: ")
    assert "1 of 1 tasks: every action succeeded" in table.output
    as_json = CliRunner().invoke(app, ["replay", "--tau2", str(tmp_path), "--json"])
    report = json.loads(as_json.stdout)
    assert report["guard"] == "off" and report["tasks"][0]["ok"], report
    helped = CliRunner().invoke(app, ["replay", "--help"], terminal_width=200)
    assert "guard off" in " ".join(helped.output.split())
