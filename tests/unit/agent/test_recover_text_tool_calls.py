"""`--recover-text-tool-calls`: a tool call the model wrote as text is made for it, said
so by a `ToolCallsRecovered` event, with the framework's ids; off (the default), nothing
is run and the grounding check flags the text."""

from __future__ import annotations

import pytest

from airline_agent.agent.backends import ScriptedResponse
from airline_agent.agent.events import (
    AssistantMessage,
    GroundingWarning,
    ToolCallsRecovered,
    ToolFinished,
    TurnFinished,
)
from airline_agent.agent.loop import LoopOptions
from airline_agent.agent.text_tool_calls import recovered_calls
from airline_agent.stack import scripted_stack

WRITTEN = '{"name": "get_reservation_details", "arguments": {"reservation_id": "EHGLP3"}}'


async def _turn(world_db, recover: bool) -> list:
    options = LoopOptions(model="m", stream=False, retries=0, recover_text_tool_calls=recover)
    responses = [ScriptedResponse(content=WRITTEN), ScriptedResponse(content="It is EHGLP3.")]
    stack = scripted_stack(world_db, options, guard=False, responses=responses)
    return [event async for event in stack.session.run_turn("Look up EHGLP3 please")]


async def test_recovered_calls_run_and_are_said_to_be_the_frameworks(world_db) -> None:
    events = await _turn(world_db, recover=True)
    recovered = [e for e in events if isinstance(e, ToolCallsRecovered)]
    assert len(recovered) == 1 and recovered[0].text == WRITTEN
    (call,) = recovered[0].calls
    assert call.name == "get_reservation_details" and call.call_id.startswith("recovered_")
    message = next(e for e in events if isinstance(e, AssistantMessage))
    assert message.tool_calls == recovered[0].calls and message.content is None
    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.call_id == call.call_id and finished.error is None
    assert not any(isinstance(e, GroundingWarning) for e in events[:5])


async def test_without_the_option_nothing_runs_and_the_text_is_flagged(world_db) -> None:
    events = await _turn(world_db, recover=False)
    assert not any(isinstance(e, ToolCallsRecovered | ToolFinished) for e in events)
    warning = next(e for e in events if isinstance(e, GroundingWarning))
    assert any(f.kind == "tool_call_as_text" for f in warning.findings)


# A call written nested 100,000 deep: json's recursive reader raised RecursionError out of
# the grounding check (and the recovery), ending the turn with a traceback.
DEEP = '{"name": "get_reservation_details", "arguments": ' + '{"a": ' * 100_000 + "1"
DEEP += "}" * 100_001


async def test_a_written_call_nested_100k_deep_is_no_call_and_the_turn_goes_on(world_db) -> None:
    for recover in (False, True):
        options = LoopOptions(model="m", stream=False, retries=0, recover_text_tool_calls=recover)
        responses = [ScriptedResponse(content=DEEP)]
        stack = scripted_stack(world_db, options, guard=False, responses=responses)
        events = [event async for event in stack.session.run_turn("Look up EHGLP3 please")]
        assert isinstance(events[-1], TurnFinished) and events[-1].reason == "answered"
        assert not [e for e in events if isinstance(e, ToolCallsRecovered | ToolFinished)]


@pytest.mark.parametrize(
    "arguments",
    ['{"reservation_id": NaN}', '{"reservation_id": "\\ud800"}', '{"a": ' + "9" * 30 + "}"],
    ids=["NaN", "a lone surrogate", "a 30-digit number"],
)
def test_written_arguments_are_read_as_json_from_outside(arguments: str) -> None:
    text = '{"name": "get_reservation_details", "arguments": ' + arguments + "}"
    assert recovered_calls(text, frozenset({"get_reservation_details"}), 1) == ()
