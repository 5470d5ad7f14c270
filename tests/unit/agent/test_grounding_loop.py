"""The grounding check in the loop: findings on the event, the calls the loop ran, the rules."""

from __future__ import annotations

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
from airline_agent.agent.events import GroundingWarning, ToolStarted, TurnFinished
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox

CANCEL = ScriptedToolCall(
    "cancel_reservation", {"reservation_id": "EHGLP3", "reason": "change_of_plan"}, "c1"
)
CANCEL_UNKNOWN = ScriptedToolCall(
    "cancel_reservation", {"reservation_id": "ZZZ999", "reason": "change_of_plan"}, "c2"
)
CLAIM = "I've cancelled your reservation EHGLP3."


def session(*responses: ScriptedResponse) -> tuple[AgentSession, FakeToolbox]:
    toolbox = FakeToolbox()
    backend = ScriptedBackend(responses, model="gpt-4o-mini")
    return AgentSession(backend, toolbox, LoopOptions(stream=False, approval="auto")), toolbox


def findings(events: list) -> list[tuple[str, str]]:
    return [(f.kind, f.value) for w in of_type(events, GroundingWarning) for f in w.findings]


async def test_a_claimed_cancellation_without_a_call_is_a_finding_with_its_why() -> None:
    s, _ = session(ScriptedResponse(CLAIM))
    events = await run_turn(s, "Please cancel EHGLP3.")
    (warning,) = of_type(events, GroundingWarning)
    assert warning.unsupported == ("I've cancelled",)
    (finding,) = warning.findings
    assert finding.kind == "claimed_action"
    assert "cancel_reservation" in finding.why
    assert "I've cancelled" in warning.describe()


async def test_the_same_claim_after_the_call_succeeded_is_backed() -> None:
    s, toolbox = session(ScriptedResponse(tool_calls=(CANCEL,)), ScriptedResponse(CLAIM))
    events = await run_turn(s, "Please cancel EHGLP3.")
    assert toolbox.writes and findings(events) == []


async def test_a_call_that_failed_backs_no_claim() -> None:
    s, _ = session(ScriptedResponse(tool_calls=(CANCEL_UNKNOWN,)), ScriptedResponse(CLAIM))
    events = await run_turn(s, "Please cancel EHGLP3.")
    assert findings(events) == [("claimed_action", "I've cancelled")]


async def test_a_tool_call_written_as_text_is_flagged_and_nothing_runs() -> None:
    text = '{{"name": "get_reservation_details", "arguments": {"reservation_id": "EHGLP3"}}}'
    s, toolbox = session(ScriptedResponse(text, finish_reason="stop"))
    events = await run_turn(s, "What is in EHGLP3?")
    (warning,) = of_type(events, GroundingWarning)
    (finding,) = warning.findings
    assert finding.kind == "tool_call_as_text"
    assert finding.why == "the model wrote a tool call as text; nothing was run"
    assert not of_type(events, ToolStarted) and toolbox.calls == []
    assert of_type(events, TurnFinished)[0].reason == "answered"


async def test_the_system_prompts_figures_support_the_rule_not_a_refund() -> None:
    s, _ = session(
        ScriptedResponse("For a cancelled flight you may get a certificate of $100 per passenger."),
        ScriptedResponse("Your refund is $100."),
    )
    assert findings(await run_turn(s, "What do I get if my flight is cancelled?")) == []
    refund = await run_turn(s, "And my refund for EHGLP3?")
    (warning,) = of_type(refund, GroundingWarning)
    assert [(f.kind, f.value) for f in warning.findings] == [("amount", "$100")]
    assert "P3" in warning.findings[0].why
