"""Hostile text from the model server, through the real `openai` client on loopback: lone
UTF-16 surrogates in a reply or in tool arguments, an emoji whose two halves arrive in two
stream chunks, arguments nested 60,000 deep. Nothing crashes, and no event, history entry
or tool argument ever holds a lone surrogate (it could be printed, sent or stored nowhere).
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest
import yaml

from airline_agent.agent.events import (
    AssistantMessage,
    ErrorOccurred,
    TextDelta,
    ToolCallDelta,
    ToolFinished,
    ToolStarted,
    TurnFinished,
)
from airline_agent.agent.history import problems
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.tools.toolbox import Toolbox
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli, run_cli
from tests.support.events import of_type, run_turn
from tests.support.loopback import loopback_backend
from tests.support.world import CLOCK

SURROGATE = re.compile("[\ud800-\udfff]")
DEEP = 60_000
DEEP_ARGUMENTS = '{"user_id": ' + "[" * DEEP + "]" * DEEP + "}"

pytestmark = pytest.mark.usefixtures("closing_loopback_backends")


def session(server: ChatServer, database: Any, *, stream: bool) -> AgentSession:
    backend = loopback_backend(server.url)
    options = LoopOptions(model="gpt-4o-mini", stream=stream, retries=0)
    return AgentSession(backend, Toolbox(database, clock=CLOCK), options)


def surrogates_in(value: Any) -> list[str]:
    """Every string holding a surrogate, anywhere in events, dicts, lists (iterative)."""
    found: list[str] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if SURROGATE.search(item):
                found.append(item)
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            pending.extend(getattr(item, f.name) for f in dataclasses.fields(item))
    return found


def sse(*deltas: dict[str, Any], finish: str = "stop") -> str:
    """An event stream of exactly these deltas (the server's own chunking, chosen here)."""
    base = {"id": "chatcmpl-x", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    choices = [{"index": 0, "delta": d, "finish_reason": None} for d in deltas]
    choices.append({"index": 0, "delta": {}, "finish_reason": finish})
    chunks = [{**base, "choices": [choice]} for choice in choices]
    return "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"


def reply(server: ChatServer, streamed: bool, *args: Any, **kwargs: Any) -> None:
    (server.stream if streamed else server.completion)(*args, **kwargs)


def assert_clean(s: AgentSession, events: list[Any], server: ChatServer) -> None:
    assert surrogates_in(events) == []
    assert surrogates_in(s.history) == []
    for body in server.requests:
        assert problems(body["messages"]) == []


@pytest.mark.parametrize("streamed", [True, False], ids=["stream", "json"])
async def test_a_lone_surrogate_in_a_reply_becomes_a_replacement_character(
    chat_server: ChatServer, world_db: Any, streamed: bool
) -> None:
    reply(chat_server, streamed, "Have a nice trip \ud83d and goodbye.")  # JSON: "\ud83d"
    reply(chat_server, streamed, "You are welcome.")
    s = session(chat_server, world_db, stream=streamed)
    first = await run_turn(s, "Thanks!")
    second = await run_turn(s, "Thanks again!")  # the history, with the reply, is sent
    cleaned = "Have a nice trip \ufffd and goodbye."
    assert of_type(first, AssistantMessage)[0].content == cleaned
    assert of_type(second, TurnFinished)[0].reason == "answered"
    assert chat_server.requests[1]["messages"][2]["content"] == cleaned
    if streamed:
        assert "".join(e.text for e in of_type(first, TextDelta)) == cleaned
    assert_clean(s, first + second, chat_server)


@pytest.mark.parametrize("streamed", [True, False], ids=["stream", "json"])
async def test_a_lone_surrogate_in_tool_arguments_reaches_the_tool_as_a_replacement(
    chat_server: ChatServer, world_db: Any, streamed: bool
) -> None:
    # The JSON text of the arguments escapes half a pair: `{"user_id": "emma\ud83d"}`.
    arguments = json.dumps({"user_id": "emma_kim_9957\ud83d"})
    assert "\\ud83d" in arguments
    reply(chat_server, streamed, tool_calls=[("get_user_details", arguments)])
    reply(chat_server, streamed, "I could not find that customer.")
    s = session(chat_server, world_db, stream=streamed)
    events = await run_turn(s, "I am emma_kim_9957")
    [started] = of_type(events, ToolStarted)
    assert started.arguments == {"user_id": "emma_kim_9957\ufffd"}
    [finished] = of_type(events, ToolFinished)
    assert finished.error == "NOT_FOUND"  # a normal result, not a crash
    assert of_type(events, ErrorOccurred) == []
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert len(chat_server.requests) == 2  # the tool's result was sent back
    assert_clean(s, events, chat_server)


async def test_an_emoji_split_across_two_chunks_is_joined_again(
    chat_server: ChatServer, world_db: Any
) -> None:
    # 😀 is U+1F600, the pair \ud83d \ude00 in UTF-16; each chunk carries one half.
    chat_server.raw(
        sse(
            {"role": "assistant", "content": "Done "},
            {"content": "\ud83d"},
            {"content": "\ude00 enjoy"},
            {"content": " \ud83d"},  # a last half that never gets its pair
        ),
        content_type="text/event-stream",
    )
    s = session(chat_server, world_db, stream=True)
    events = await run_turn(s, "Thanks")
    [message] = of_type(events, AssistantMessage)
    assert message.content == "Done 😀 enjoy \ufffd"
    assert "".join(e.text for e in of_type(events, TextDelta)) == message.content
    assert_clean(s, events, chat_server)


async def test_an_emoji_split_inside_streamed_arguments_is_joined_again(
    chat_server: ChatServer, world_db: Any
) -> None:
    head = {"index": 0, "id": "call_1", "type": "function"}
    chat_server.raw(
        sse(
            {"tool_calls": [{**head, "function": {"name": "get_user_details", "arguments": ""}}]},
            {"tool_calls": [{"index": 0, "function": {"arguments": '{"user_id": "emma'}}]},
            {"tool_calls": [{"index": 0, "function": {"arguments": "\ud83d"}}]},
            {"tool_calls": [{"index": 0, "function": {"arguments": '\ude00"}'}}]},
            finish="tool_calls",
        ),
        content_type="text/event-stream",
    )
    chat_server.stream("There is no such customer.")
    s = session(chat_server, world_db, stream=True)
    events = await run_turn(s, "I am emma")
    [started] = of_type(events, ToolStarted)
    assert started.raw_arguments == '{"user_id": "emma😀"}'
    assert started.arguments == {"user_id": "emma😀"}
    pieces = "".join(e.arguments for e in of_type(events, ToolCallDelta))
    assert pieces == '{"user_id": "emma😀"}'
    assert of_type(events, ToolFinished)[0].error == "NOT_FOUND"
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert_clean(s, events, chat_server)


@pytest.mark.parametrize("levels", [DEEP, 900], ids=["60000-deep", "900-deep"])
@pytest.mark.parametrize("streamed", [True, False], ids=["stream", "json"])
async def test_deeply_nested_arguments_are_answered_as_invalid(
    chat_server: ChatServer, world_db: Any, streamed: bool, levels: int
) -> None:
    # 900 levels parse as JSON, but every recursive consumer of the events after the
    # loop (the recorder's YAML, a front end's JSON) breaks on them.
    arguments = '{"user_id": ' + "[" * levels + "]" * levels + "}"
    if streamed:  # in two pieces (the helper's 7-character pieces would be 17,000 chunks)
        head = {"index": 0, "id": "call_1", "type": "function"}
        half = len(arguments) // 2
        chat_server.raw(
            sse(
                {"tool_calls": [{**head, "function": {"name": "get_user_details"}}]},
                {"tool_calls": [{"index": 0, "function": {"arguments": arguments[:half]}}]},
                {"tool_calls": [{"index": 0, "function": {"arguments": arguments[half:]}}]},
                finish="tool_calls",
            ),
            content_type="text/event-stream",
        )
    else:
        chat_server.completion(tool_calls=[("get_user_details", arguments)])
    reply(chat_server, streamed, "Which customer are you?")
    s = session(chat_server, world_db, stream=streamed)
    events = await run_turn(s, "hello")
    assert of_type(events, ToolStarted) == []  # not run: answered as invalid
    [finished] = of_type(events, ToolFinished)
    assert finished.error == "INVALID_ARGUMENTS"
    assert finished.arguments is None
    # Told what is wrong: the shape, not a reply cut off by max_tokens.
    assert "nested only as its schema says" in finished.result["message"]
    assert "max_tokens" not in finished.result["message"]
    assert of_type(events, TurnFinished)[0].reason == "answered"
    sent = chat_server.requests[1]["messages"]
    assert sent[2]["tool_calls"][0]["function"]["arguments"] == "{}"  # not echoed back
    assert_clean(s, events, chat_server)


def test_chat_records_a_conversation_with_60000_deep_arguments(
    chat_server: ChatServer, db: Any, tmp_path: Any
) -> None:
    chat_server.completion(tool_calls=[("get_user_details", DEEP_ARGUMENTS)])
    chat_server.completion("Which customer are you?")
    recording = tmp_path / "deep-arguments.yaml"
    result = invoke_cli(
        "chat",
        "--db",
        str(db),
        "--approve",
        "auto",
        "--no-stream",
        "--record",
        str(recording),
        stdin="hello\n",
        server=chat_server,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    body = yaml.safe_load(recording.read_text())
    [call] = body["turns"][0]["responses"][0]["tool_calls"]
    assert call["arguments"] == DEEP_ARGUMENTS  # kept as the text the model sent
    replay = invoke_cli("replay", str(recording), "--json")
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert json.loads(replay.stdout)["scenarios"][0]["status"] == "passed"


@pytest.mark.parametrize("streamed", [True, False], ids=["stream", "json"])
def test_chat_prints_a_reply_with_a_lone_surrogate_and_goes_on(
    chat_server: ChatServer, db: Any, streamed: bool
) -> None:
    reply(chat_server, streamed, "Half an emoji: \ud83d, then more.")
    reply(chat_server, streamed, "Still here.")
    result = run_cli(
        "chat",
        "--db",
        str(db),
        "--stream" if streamed else "--no-stream",
        stdin="hello\nare you there?\n",
        server=chat_server,
        PYTHONIOENCODING="utf-8",  # strict, as on a UTF-8 terminal
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "Half an emoji: \ufffd, then more." in result.stdout
    assert "Still here." in result.stdout
