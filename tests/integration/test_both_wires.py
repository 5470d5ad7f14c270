"""One round on both wires (agent/both_wires.py): what the side-by-side view shows of the
wire a round did not go on is what that wire really carries. Played offline on each wire,
a scenario's every round, made for the other wire, gives exactly the request that wire
sent and the response its scripted server generated."""

from __future__ import annotations

import pytest

from airline_agent.agent.both_wires import both_wires
from airline_agent.agent.events import AssistantMessage
from airline_agent.scenarios.library import SHOWCASE
from airline_agent.tui.request_log import RequestLog
from tests.integration.test_responses_parity import played

SCENARIOS = [SHOWCASE, "bags-approval-declined", "recover-malformed-arguments", "tool-call-limit"]


def unsaid(body: dict) -> dict:
    """A Chat Completions body with a tool round's empty text as null: the one difference
    of the wires' histories (the Responses wire has no message item for "")."""
    messages = [
        {**m, "content": None} if m.get("tool_calls") and m.get("content") == "" else m
        for m in body["messages"]
    ]
    return {**body, "messages": messages}


def rounds(name: str, api: str):
    events = played(name, api)
    log = RequestLog(events)
    answers = [e for e in events if isinstance(e, AssistantMessage)]
    for number in log.numbers():
        exchange = log.exchanges[number]
        earlier = [a for a in answers if a.request < number]
        yield exchange, both_wires(exchange.sent, exchange.response, exchange.usage, earlier)


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_chat_round_made_for_the_responses_wire_is_what_that_wire_sends(name: str) -> None:
    on_responses = [exchange for exchange, _ in rounds(name, "responses")]
    for (exchange, both), other in zip(rounds(name, "chat"), on_responses, strict=True):
        assert both.sent_on == "chat"
        assert both.chat.request == exchange.request_body()  # as sent
        assert both.chat.request_source == "as sent"
        assert both.responses.request == other.sent.body
        assert both.responses.request_source == "made here · not sent"
        assert other.response is not None and other.response.raw is not None
        assert both.responses.response == other.response.raw.assembled
        assert both.responses.response_source.startswith("generated here")


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_responses_round_made_for_chat_is_what_chat_sends(name: str) -> None:
    on_chat = [exchange for exchange, _ in rounds(name, "chat")]
    for (exchange, both), other in zip(rounds(name, "responses"), on_chat, strict=True):
        assert both.sent_on == "responses"
        assert both.responses.request == exchange.sent.body
        assert unsaid(both.chat.request) == unsaid(other.request_body())
        assert other.response is not None and other.response.raw is not None
        generated, came = both.chat.response, other.response.raw.assembled
        assert generated is not None
        [choice] = came["choices"]
        message = unsaid({"messages": [choice["message"]]})["messages"][0]
        assert generated == {**came, "choices": [{**choice, "message": message}]}


def test_the_correspondences_of_the_showcases_tool_round() -> None:
    _, both = next(rounds(SHOWCASE, "chat"))
    named = {c.what: (c.chat, c.responses, c.value) for c in both.correspondences}
    assert named["call 1: its id"] == (
        "choices[0].message.tool_calls[0].id",
        "output[1].call_id (function_call)",
        "call_ehglp3_1",
    )
    assert named["why the answer ended"] == (
        'choices[0].finish_reason: "tool_calls"',
        'status: "completed", output holding function_call items',
        "",
    )
    assert named["tokens read"][:2] == ("usage.prompt_tokens", "usage.input_tokens")
    assert named["the developer's instructions"][:2] == ("messages[0] (system)", "instructions")
    [_, (_, second)] = [next(rounds(SHOWCASE, "chat")), list(rounds(SHOWCASE, "chat"))[1]]
    rows = {(c.chat, c.responses) for c in second.correspondences}
    assert ("messages[3].tool_call_id", "input[3].call_id") in rows  # role tool ↔ output
    assert ("messages[2].tool_calls[0].id", "input[2].call_id (function_call)") in rows
    assert ("—", "input[1] (reasoning item)") in rows  # Chat leaves the reasoning out
