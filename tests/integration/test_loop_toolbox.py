"""The loop with the real Toolbox over a sample database (scripted model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
from airline_agent.agent.events import (
    ApprovalRequested,
    GroundingWarning,
    RequestSent,
    ToolFinished,
    TurnFinished,
)
from airline_agent.agent.history import problems
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.domain.clock import Clock
from airline_agent.tools.conversation import ToolConversation
from tests.support.events import of_type, run_turn


@pytest.fixture
def toolbox(db: Path):
    from airline_agent.domain.provisioning import ensure_database
    from airline_agent.tools.toolbox import Toolbox

    database = ensure_database(db)  # a fresh copy of the sample (tests/integration/conftest.py)
    yield Toolbox(database, clock=Clock.at())
    database.close()


def call(name: str, call_id: str, **arguments) -> ScriptedToolCall:
    return ScriptedToolCall(name, arguments, call_id)


async def test_the_showcase_lookup_is_grounded(toolbox):
    backend = ScriptedBackend(
        [
            ScriptedResponse(tool_calls=(call("get_user_details", "u", user_id="emma_kim_9957"),)),
            ScriptedResponse(
                tool_calls=(call("get_reservation_details", "r", reservation_id="EHGLP3"),)
            ),
            ScriptedResponse(
                "Reservation EHGLP3 flies PHX to JFK on 2024-05-17 on HAT156 and HAT021."
            ),
        ]
    )
    session = AgentSession(backend, toolbox, LoopOptions())
    events = await run_turn(session, "I am emma_kim_9957, please check EHGLP3.")
    assert [e.error for e in of_type(events, ToolFinished)] == [None, None]
    assert of_type(events, ToolFinished)[1].result["origin"] == "PHX"
    assert not of_type(events, GroundingWarning)
    assert session.conversation.customer == "emma_kim_9957"
    assert len(of_type(events, RequestSent)[0].tools) == 14
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert problems(session.history) == []


async def test_a_guarded_write_is_refused_with_the_rule_and_the_model_is_told(toolbox):
    backend = ScriptedBackend(
        [
            ScriptedResponse(
                tool_calls=(call("cancel_reservation", "c", reservation_id="EHGLP3"),)
            ),
            ScriptedResponse("I cannot cancel this reservation under our policy."),
        ]
    )
    session = AgentSession(backend, toolbox, LoopOptions(approval="ask"), customer="emma_kim_9957")
    events = await run_turn(session, "cancel EHGLP3", approve=lambda event: True)
    [asked] = of_type(events, ApprovalRequested)
    assert asked.calls[0].preview  # in words, from the toolbox
    finished = of_type(events, ToolFinished)[0]
    assert finished.error == "POLICY_VIOLATION" and finished.changes == ()
    sent = json.loads(backend.requests[1]["messages"][-1]["content"])
    assert sent["rule"] == "X3"


async def test_a_declined_write_changes_nothing(toolbox):
    backend = ScriptedBackend(
        [
            ScriptedResponse(
                tool_calls=(call("cancel_reservation", "c", reservation_id="EHGLP3"),)
            ),
            ScriptedResponse("Nothing was changed."),
        ]
    )
    toolbox.guard = False
    session = AgentSession(backend, toolbox, LoopOptions(approval="ask"))
    events = await run_turn(session, "cancel EHGLP3", approve=lambda event: False)
    assert of_type(events, ToolFinished)[0].error == "PERMISSION_DENIED"
    status = toolbox.call(
        "get_reservation_details", {"reservation_id": "EHGLP3"}, session.conversation
    ).result
    assert status.get("status") != "cancelled"


async def test_a_reservation_is_not_read_for_a_customer_who_only_said_hi(toolbox):
    """Issue 19 §4, through the loop: before the customer gives a user id, the model's
    lookup of someone's reservation is refused, and the model never sees its passengers,
    dates of birth or payment ids; once the customer gives the owner's id, it is read."""
    showcase = toolbox.call(
        "get_reservation_details", {"reservation_id": "EHGLP3"}, ToolConversation()
    ).result  # an operator's look, to know what must not leak
    private = [p[key] for p in showcase["passengers"] for key in ("first_name", "dob")]
    private += [line["payment_id"] for line in showcase["payment_history"]]
    lookup = call("get_reservation_details", "r", reservation_id="EHGLP3")
    backend = ScriptedBackend(
        [
            ScriptedResponse(tool_calls=(lookup,)),
            ScriptedResponse("Could you give me your user id?"),
            ScriptedResponse(tool_calls=(lookup,)),
            ScriptedResponse("Found it."),
        ]
    )
    session = AgentSession(backend, toolbox, LoopOptions())
    first = await run_turn(session, "hi")
    [refused] = of_type(first, ToolFinished)
    assert refused.error == "PERMISSION_DENIED", refused.result
    sent = backend.requests[1]["messages"][-1]
    assert sent["role"] == "tool" and "ask for their user id" in sent["content"]
    for secret in private:
        assert secret not in json.dumps(backend.requests[1]["messages"])
    second = await run_turn(session, "My user id is emma_kim_9957.")
    [read] = of_type(second, ToolFinished)
    assert read.error is None and read.result["passengers"] == showcase["passengers"]
    assert session.conversation.customer is None  # a reservation read binds nobody
