"""Cancelled turns in scenario files (issue 9, defect 7): the recorder writes them as
cancelled, the file format says what that means, and a replay cancels the turn where
its recording ends — at a request it has no response for, at an approval question that
was never answered, or after the call that was under way."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from airline_agent.agent.events import (
    AssistantMessage,
    RequestSent,
    ToolCall,
    ToolStarted,
    TurnStarted,
)
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.recorder import record_scenario
from airline_agent.scenarios.runner import ScenarioReport, replay_scenario

LOOKUP = {"name": "get_reservation_details", "arguments": {"reservation_id": "EHGLP3"}}
CANCEL = {
    "name": "cancel_reservation",
    "arguments": {"reservation_id": "EHGLP3", "reason": "change_of_plan"},
}
ANSWERED = {"customer": "Thanks.", "responses": [{"content": "You're welcome."}]}


def scenario(*turns: dict, approval: str = "auto") -> Scenario:
    return Scenario.model_validate(
        {
            "name": "cancelled",
            "customer": "emma_kim_9957",
            "settings": {"approval": approval, "guard": False},
            "turns": list(turns),
        }
    )


def test_a_turn_cancelled_before_any_reply_replays_cancelled_at_its_request():
    report = replay_scenario(scenario({"customer": "Hello?", "cancelled": True}, ANSWERED))
    assert report.status == "passed", report.why()
    assert report.ends == ["cancelled", "answered"]


def test_a_turn_cancelled_at_its_approval_question_runs_no_write():
    cancelled = {
        "customer": "Cancel EHGLP3.",
        "cancelled": True,
        "responses": [{"tool_calls": [CANCEL]}],
    }
    report = replay_scenario(scenario(cancelled, ANSWERED, approval="ask-accept"))
    assert report.status == "passed", report.why()  # database: unchanged
    assert report.ends == ["cancelled", "answered"]
    assert report.tool_calls == 0


def test_a_turn_cancelled_during_a_call_records_the_call_and_replays_it_before_the_cancel():
    call = ToolCall("call_1", LOOKUP["name"], '{"reservation_id": "EHGLP3"}')
    events = [
        TurnStarted(1, "What is on EHGLP3?"),
        RequestSent(1, 1, "m", [], [], {}),
        AssistantMessage(1, None, (call,), None, "tool_calls", 5.0),
        ToolStarted("call_1", LOOKUP["name"], LOOKUP["arguments"], call.arguments),
    ]  # …and then Ctrl-C: the call finished unseen, the turn ended with no TurnFinished
    recorded = record_scenario(events, name="during-a-call", customer="emma_kim_9957")
    (turn,) = recorded.turns
    assert turn.cancelled and turn.expect.end == "cancelled"
    assert [check.tool for check in turn.expect.calls or []] == [LOOKUP["name"]]
    report = replay_scenario(recorded)
    assert report.status == "passed", report.why()
    assert report.ends == ["cancelled"] and report.tool_calls == 1


def test_a_turn_whose_events_end_cancelled_is_not_recorded_as_an_empty_reply():
    recorded = record_scenario([TurnStarted(1, "Hello?")], name="no-reply")
    (turn,) = recorded.turns
    assert turn.cancelled and turn.responses == []


def test_a_cancelled_turn_that_now_gets_further_than_recorded_is_cancelled_where_it_was():
    # The recording has the lookup's response and its call; the replay must not ask for
    # a second response (there is none): it is cancelled at that request.
    cancelled = {
        "customer": "What is on EHGLP3?",
        "cancelled": True,
        "responses": [{"tool_calls": [LOOKUP]}],
        "expect": {"calls": [{"tool": LOOKUP["name"], "ok": True}]},
    }
    report = replay_scenario(scenario(cancelled))
    assert report.status == "passed", report.why()
    assert report.ends == ["cancelled"]


def test_ending_cancelled_needs_the_turn_marked_cancelled():
    with pytest.raises(ValidationError, match="cancelled: true"):
        scenario(
            {"customer": "Hi", "responses": [{"content": "Hello"}], "expect": {"end": "cancelled"}}
        )


def test_a_turn_that_was_not_cancelled_needs_a_response():
    with pytest.raises(ValidationError, match="at least one response"):
        scenario({"customer": "Hi"})


def test_a_cancelled_turn_cannot_be_expected_to_end_otherwise():
    with pytest.raises(ValidationError, match="a cancelled turn ends"):
        scenario({"customer": "Hi", "cancelled": True, "expect": {"end": "answered"}})


def kinds(report: ScenarioReport) -> list[str]:
    return [type(event).__name__ for event in report.events]


def test_a_turn_cancelled_at_a_request_or_question_keeps_it_as_its_last_event():
    # What the customer saw before the cancel stays in the turn's events: the request
    # that got no response, the approval question that got no answer.
    at_a_request = replay_scenario(scenario({"customer": "Hello?", "cancelled": True}))
    assert kinds(at_a_request) == ["TurnStarted", "RequestSent", "TurnFinished"]
    cancelled = {
        "customer": "Cancel EHGLP3.",
        "cancelled": True,
        "responses": [{"tool_calls": [CANCEL]}],
    }
    at_a_question = replay_scenario(scenario(cancelled, approval="ask-accept"))
    assert kinds(at_a_question)[-2:] == ["ApprovalRequested", "TurnFinished"]


def test_a_call_the_recording_never_started_is_not_among_the_turns_events():
    # Two calls asked for, one recorded as begun: the replay stops at the second, which
    # did not happen live, so neither its start nor its end is an event of the turn.
    cancelled = {
        "customer": "What is on EHGLP3?",
        "cancelled": True,
        "responses": [{"tool_calls": [LOOKUP, LOOKUP]}],
        "expect": {"calls": [{"tool": LOOKUP["name"], "ok": True}]},
    }
    report = replay_scenario(scenario(cancelled))
    assert report.status == "passed", report.why()
    assert kinds(report)[-3:] == ["ToolStarted", "ToolFinished", "TurnFinished"]
    assert kinds(report).count("ToolStarted") == 1 and report.tool_calls == 1
