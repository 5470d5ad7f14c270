"""Issue 12 §1: the prefix of every request of a conversation — the system message and
the tools list, in the order they are serialised — is byte-identical, so provider
prompt caching and llama.cpp's prefix cache hit; each `RequestSent` says so, with the
prefix's size (within the 2,400-token goal).

Through the real `openai` client, the real toolbox over the sample database, and a
Chat Completions server on loopback that keeps every request body byte for byte."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from airline_agent.agent.events import RequestSent, ToolFinished
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.agent.openai_backends import OpenAIBackend
from airline_agent.agent.prefix import PREFIX_GOAL_TOKENS
from airline_agent.domain.clock import Clock
from airline_agent.scenarios.runner import ScenarioReport
from tests.support.chat_server import ChatServer
from tests.support.events import of_type, run_turn
from tests.support.fixtures import SHIPPED_LIBRARY

_DECODER = json.JSONDecoder()


def spans(raw: bytes) -> tuple[str, str]:
    """The system message and the tools list exactly as the bytes of the body have them."""
    text = raw.decode()
    messages_at = text.index('"messages":[') + len('"messages":[')
    first, system_end = _DECODER.raw_decode(text, messages_at)
    assert first["role"] == "system"
    tools_at = text.index('"tools":') + len('"tools":')
    tools, tools_end = _DECODER.raw_decode(text, tools_at)
    assert len(tools) == 14
    return text[messages_at:system_end], text[tools_at:tools_end]


@pytest.fixture
async def session(db: Path, chat_server: ChatServer):
    from airline_agent.domain.provisioning import ensure_database
    from airline_agent.tools.toolbox import Toolbox

    database = ensure_database(db)
    backend = OpenAIBackend(
        model="gpt-4o-mini", base_url=chat_server.url, api_key="test-key", timeout=10
    )
    toolbox = Toolbox(database, clock=Clock.at())
    yield AgentSession(backend, toolbox, LoopOptions(approval="auto"))
    await backend.aclose()
    database.close()


async def test_every_request_of_a_conversation_sends_a_byte_identical_prefix(session, chat_server):
    chat_server.stream(tool_calls=[("get_user_details", {"user_id": "emma_kim_9957"})])
    chat_server.stream(tool_calls=[("get_reservation_details", {"reservation_id": "EHGLP3"})])
    chat_server.stream("EHGLP3 is basic economy, so it cannot be changed.")
    chat_server.completion(
        tool_calls=[("get_flight_status", {"flight_number": "HAT021", "date": "2024-05-17"})]
    )
    chat_server.completion("HAT021 on 2024-05-17 is on time.")
    chat_server.stream("Hello again.")
    first = await run_turn(session, "I am emma_kim_9957; can I change EHGLP3?")
    session.options.stream = False  # other request parameters: the prefix stays the same
    second = await run_turn(session, "Is HAT021 on time on 2024-05-17?")
    session.options.stream = True
    session.new_conversation()
    third = await run_turn(session, "Hi")
    assert all(event.error is None for event in of_type(first + second, ToolFinished))

    raw = chat_server.raw_requests
    assert len(raw) == 6
    system, tools = spans(raw[0])
    for number, body in enumerate(raw[1:], start=2):
        assert spans(body) == (system, tools), f"request {number} sent another prefix"
    # The decoded bodies agree, key order included (json keeps the order it reads).
    for body in chat_server.requests:
        assert json.dumps(body["tools"]) == json.dumps(chat_server.requests[0]["tools"])
        assert body["messages"][0] == {"role": "system", "content": session.system_prompt}

    sent = of_type(first + second + third, RequestSent)
    assert [event.prefix.unchanged for event in sent] == [None, True, True, True, True, True]
    assert len({event.prefix.digest for event in sent}) == 1
    assert all(event.prefix.tokens <= PREFIX_GOAL_TOKENS for event in sent)


async def test_a_changed_prefix_is_reported(session, chat_server):
    chat_server.stream("Hello.")
    chat_server.stream("Hello again.")
    await run_turn(session, "Hi")
    edited = session.system_prompt + "\nA rule added in the middle."  # a careless edit
    session.history[0] = {"role": "system", "content": edited}
    events = await run_turn(session, "Hi again")
    assert of_type(events, RequestSent)[0].prefix.unchanged is False
    assert spans(chat_server.raw_requests[0]) != spans(chat_server.raw_requests[1])


@SHIPPED_LIBRARY
def test_every_shipped_scenario_passes_with_the_lean_prefix_unchanged(
    shipped_library_reports: list[ScenarioReport],
) -> None:
    assert len(shipped_library_reports) >= 15
    for report in shipped_library_reports:
        assert report.status == "passed", (report.name, report.why())
        sent = of_type(report.events, RequestSent)
        assert sent and sent[0].prefix.tokens <= PREFIX_GOAL_TOKENS, report.name
        assert len({event.prefix.digest for event in sent}) == 1, report.name


def test_chat_takes_the_prompt_choice_and_shows_the_prefix_per_turn(chat_server, db):
    from airline_agent.agent.prompt import build_system_prompt
    from tests.support.cli import invoke_cli

    chat_server.stream("Hello.", usage=(900, 5))
    chat_server.stream(tool_calls=[("get_reservation_details", {"reservation_id": "EHGLP3"})])
    chat_server.stream("EHGLP3 goes from PHX to JFK.", usage=(1200, 12))
    chat_server.stream("Hello.", usage=(900, 5))
    stdin = "hi\nlook up EHGLP3\n"
    lean = invoke_cli("chat", "--db", str(db), stdin=stdin, server=chat_server, model="gpt-4o-mini")
    assert lean.returncode == 0, lean.stderr
    turns = [line for line in lean.stdout.splitlines() if line.startswith("  [")]
    assert len(turns) == 2
    assert re.search(
        r", prefix ≈?[\d,]+ tokens \((cl100k|estimate, ±10%)\) first request\]$", turns[0]
    )
    assert turns[1].endswith(" unchanged]")
    assert chat_server.requests[0]["messages"][0]["content"] == build_system_prompt(Clock.at())

    full = invoke_cli(
        "chat",
        "--db",
        str(db),
        "--prompt",
        "full",
        stdin="hi\n",
        server=chat_server,
        model="gpt-4o-mini",
    )
    assert full.returncode == 0, full.stderr
    sent = chat_server.requests[-1]["messages"][0]["content"]
    assert sent == build_system_prompt(Clock.at(), style="full")

    wrong = invoke_cli("chat", "--prompt", "short", stdin="", model="gpt-4o-mini")
    assert wrong.returncode == 2 and "--prompt" in wrong.stderr
    assert "Traceback" not in wrong.stderr
