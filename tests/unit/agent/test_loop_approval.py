"""Approval of write calls: ask (all writes of one reply together), auto, deny."""

from __future__ import annotations

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
from airline_agent.agent.events import ApprovalRequested, ToolFinished, ToolStarted
from airline_agent.agent.history import problems
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox

CANCEL = ScriptedToolCall("cancel_reservation", {"reservation_id": "EHGLP3"}, "w1")
READ = ScriptedToolCall("get_reservation_details", {"reservation_id": "EHGLP3"}, "r1")
ANSWER = ScriptedResponse("Done.")


def session(approval: str, *responses: ScriptedResponse) -> AgentSession:
    return AgentSession(ScriptedBackend(responses), FakeToolbox(), LoopOptions(approval=approval))


async def test_an_accepted_write_runs_after_the_request():
    s = session("ask", ScriptedResponse(tool_calls=(READ, CANCEL)), ANSWER)
    events = await run_turn(s, "cancel EHGLP3", approve=lambda event: True)
    [request] = of_type(events, ApprovalRequested)
    assert [(c.call_id, c.name) for c in request.calls] == [("w1", "cancel_reservation")]
    assert "Cancel reservation EHGLP3" in request.calls[0].preview
    assert events.index(request) < events.index(of_type(events, ToolStarted)[0])
    assert s.toolbox.writes == [("cancel_reservation", {"reservation_id": "EHGLP3"})]
    assert [e.error for e in of_type(events, ToolFinished)] == [None, None]
    assert of_type(events, ToolFinished)[1].changes


async def test_a_declined_write_writes_nothing_and_tells_the_model():
    s = session("ask", ScriptedResponse(tool_calls=(READ, CANCEL)), ANSWER)
    events = await run_turn(s, "cancel EHGLP3", approve=lambda event: False)
    finished = of_type(events, ToolFinished)
    assert [e.error for e in finished] == [None, "PERMISSION_DENIED"]
    assert "declined" in finished[1].result["message"]
    assert s.toolbox.writes == []
    assert problems(s.history) == []


async def test_all_writes_of_one_reply_are_asked_together_and_decided_one_by_one():
    second = ScriptedToolCall("cancel_reservation", {"reservation_id": "EHGLP3"}, "w2")
    s = session("ask", ScriptedResponse(tool_calls=(CANCEL, second)), ANSWER)
    events = await run_turn(s, "x", approve=lambda event: {"w1": False, "w2": True})
    assert len(of_type(events, ApprovalRequested)) == 1
    assert len(of_type(events, ApprovalRequested)[0].calls) == 2
    assert [e.error for e in of_type(events, ToolFinished)] == ["PERMISSION_DENIED", None]
    assert len(s.toolbox.writes) == 1


async def test_deny_refuses_every_write_without_asking():
    s = session("deny", ScriptedResponse(tool_calls=(CANCEL,)), ANSWER)
    events = await run_turn(s, "cancel")
    assert not of_type(events, ApprovalRequested)
    assert of_type(events, ToolFinished)[0].error == "PERMISSION_DENIED"
    assert s.toolbox.writes == []


async def test_a_denied_write_names_the_approval_mode_the_user_set():
    # `--approve deny` is the approval mode: the message says so, as the docs call it.
    s = session("deny", ScriptedResponse(tool_calls=(CANCEL,)), ANSWER)
    events = await run_turn(s, "cancel")
    message = of_type(events, ToolFinished)[0].result["message"]
    assert "(approval mode 'deny')" in message and "policy" not in message


async def test_auto_runs_writes_without_asking():
    s = session("auto", ScriptedResponse(tool_calls=(CANCEL,)), ANSWER)
    events = await run_turn(s, "cancel")
    assert not of_type(events, ApprovalRequested)
    assert len(s.toolbox.writes) == 1


async def test_reads_are_never_asked_about():
    s = session("ask", ScriptedResponse(tool_calls=(READ,)), ANSWER)
    events = await run_turn(s, "look")
    assert not of_type(events, ApprovalRequested)
    # ...and the read is not skipped either: it runs, unasked.
    ran = [(e.name, e.error) for e in of_type(events, ToolFinished)]
    assert ran == [("get_reservation_details", None)]
