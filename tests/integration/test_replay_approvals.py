"""Approvals answered call by call: a replay gives each write its own scripted `approve`
(else the scenario's default), a recording keeps each answer, and a live chat with mixed
answers, recorded and replayed, is the conversation that happened."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from airline_agent.agent.events import ApprovalRequested
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.recorder import record_scenario, save_scenario
from airline_agent.scenarios.runner import replay_scenario
from tests.integration.test_cli_chat_record import reservation, run
from tests.support.chat_server import ChatServer

CUSTOMER = "harper_smith_5967"
CANCEL = {"name": "cancel_reservation", "arguments": {"reservation_id": "GWL0HE"}}
BAGS = {
    "name": "update_reservation_baggages",
    "arguments": {
        "reservation_id": "VZG2V6",
        "total_baggages": 2,
        "nonfree_baggages": 1,
        "payment_id": "gift_card_9429371",
    },
}
DECLINED = {"tool": "update_reservation_baggages", "error": "PERMISSION_DENIED"}
CANCELLED = {
    "reservations": {
        "GWL0HE": {
            "status": "cancelled",
            "payment_history.1.amount": -523,  # the refund
            "payment_history.1.payment_id": "gift_card_9429371",
        }
    }
}


def mixed(approval: str, responses: list[dict], calls: list[dict]) -> Scenario:
    """Harper Smith asks to cancel GWL0HE and add a bag to VZG2V6 (both allowed)."""
    return Scenario.model_validate(
        {
            "name": "mixed-answers",
            "customer": CUSTOMER,
            "settings": {"approval": approval},
            "turns": [
                {
                    "customer": "Cancel GWL0HE, plans changed, and add a bag to VZG2V6.",
                    "responses": [*responses, {"content": "GWL0HE is cancelled; no bag added."}],
                    "expect": {"calls": calls},
                }
            ],
            "database": CANCELLED,
        }
    )


def call(body: dict, **extra: object) -> dict:
    return {**body, **extra}


def test_writes_of_separate_responses_get_their_own_answers() -> None:
    # Ids left to the scripted backend: the answers still find their calls.
    scenario = mixed(
        "ask-decline",
        [{"tool_calls": [call(CANCEL, approve=True)]}, {"tool_calls": [call(BAGS)]}],
        [{"tool": "cancel_reservation", "ok": True}, DECLINED],
    )

    report = replay_scenario(scenario)

    assert report.status == "passed", report.why()
    assert [f"{c.kind}/{c.key}" for c in report.changes] == ["reservations/GWL0HE"]


def test_writes_of_one_response_get_their_own_answers() -> None:
    scenario = mixed(
        "ask-accept",
        [{"tool_calls": [call(CANCEL, id="c1"), call(BAGS, id="c2", approve=False)]}],
        [{"tool": "cancel_reservation", "ok": True}, DECLINED],
    )

    report = replay_scenario(scenario)

    assert report.status == "passed", report.why()
    asked = [e for e in report.events if isinstance(e, ApprovalRequested)]
    assert [e.decision.result().approved for e in asked] == [{"c1": True, "c2": False}]
    assert [f"{c.kind}/{c.key}" for c in report.changes] == ["reservations/GWL0HE"]


def test_without_approve_every_write_gets_the_default_answer() -> None:
    scenario = mixed(
        "ask-decline",
        [{"tool_calls": [call(CANCEL), call(BAGS)]}],
        [{"tool": "cancel_reservation", "error": "PERMISSION_DENIED"}, DECLINED],
    ).model_copy(update={"database": "unchanged"})

    report = replay_scenario(scenario)

    assert report.status == "passed", report.why()
    assert report.changes == []


def test_a_recording_keeps_each_answer_and_replays_the_same(tmp_path: Path) -> None:
    played = replay_scenario(
        mixed(
            "ask-decline",
            [
                {"tool_calls": [call(CANCEL, approve=True)]},
                {"tool_calls": [call(BAGS)]},
                {"tool_calls": [call(BAGS, arguments={**BAGS["arguments"], "total_baggages": 3})]},
            ],
            [{"tool": "cancel_reservation", "ok": True}, DECLINED, DECLINED],
        )
    )
    assert played.status == "passed", played.why()

    recorded = record_scenario(
        played.events,
        name="recorded-answers",
        customer=CUSTOMER,
        changes=played.changes,
    )
    path = save_scenario(recorded, tmp_path / "recorded-answers.yaml")
    body = yaml.safe_load(path.read_text())

    # Two declines, one acceptance: declining is the default, the acceptance is stated.
    assert body["settings"]["approval"] == "ask-decline"
    approves = [
        (c["name"], c.get("approve"))
        for turn in body["turns"]
        for response in turn["responses"]
        for c in response.get("tool_calls", [])
    ]
    assert approves == [
        ("cancel_reservation", True),
        ("update_reservation_baggages", None),
        ("update_reservation_baggages", None),
    ]
    again = replay_scenario(load_scenario(path))
    assert again.status == "passed", again.why()
    assert [f"{c.kind}/{c.key}" for c in again.changes] == ["reservations/GWL0HE"]


def test_a_live_chat_with_mixed_answers_replays_as_it_happened(
    chat_server: ChatServer, db: Path, tmp_path: Path
) -> None:
    cancel = ("cancel_reservation", CANCEL["arguments"])
    bags = ("update_reservation_baggages", BAGS["arguments"])
    chat_server.stream(tool_calls=[cancel, bags], usage=(900, 40))
    chat_server.stream("GWL0HE is cancelled; the bag was not added.", usage=(1200, 15))
    chat_server.stream(tool_calls=[bags], usage=(1300, 22))
    chat_server.stream("No bag was added to VZG2V6.", usage=(1500, 14))
    recording = tmp_path / "mixed-chat.yaml"

    result = run(
        "chat",
        *("--db", str(db), "--as", CUSTOMER, "--approve", "ask", "--record", str(recording)),
        # Each write question reads the next line: yes, no, then no again.
        stdin="Cancel GWL0HE and add a bag to VZG2V6.\ny\nn\nAdd the bag after all.\nn\n",
        server=chat_server,
    )

    assert result.returncode == 0, result.stderr
    assert reservation(db, "GWL0HE")["status"] == "cancelled"
    assert reservation(db, "VZG2V6")["total_baggages"] == 1  # both bag requests declined
    body = yaml.safe_load(recording.read_text())
    assert body["settings"]["approval"] == "ask-decline"
    approves = [
        c.get("approve")
        for turn in body["turns"]
        for response in turn["responses"]
        for c in response.get("tool_calls", [])
    ]
    assert approves == [True, None, None]

    replay = run("replay", str(recording), "--json")

    assert replay.returncode == 0, replay.stdout + replay.stderr
    report = json.loads(replay.stdout)["scenarios"][0]
    assert report["status"] == "passed", report
    assert report["failures"] == [] and report["drift"] == []
    assert report["changed_records"] == ["reservations/GWL0HE"]
