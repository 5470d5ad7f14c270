"""Issue 19 item 13: a streamed request answered 200 with something that is not a stream
says what came back, in one plain sentence, at once (no retries: it will not change).

Before, every one of these said "the model's streamed answer was cut off … use
--no-stream", after four attempts. Each goes through the real `openai` client against
the loopback server.
"""

from __future__ import annotations

import pytest

from airline_agent.agent.events import (
    AssistantMessage,
    ErrorOccurred,
    RetryScheduled,
    TurnFinished,
)
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.chat_server import ChatServer, completion_body
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox
from tests.support.loopback import loopback_backend

pytestmark = pytest.mark.usefixtures("closing_loopback_backends")

LOGIN_PAGE = b"<html><head><title>Proxy</title></head><body><h1>Please sign in</h1></body></html>"
NO_CHOICES_CHUNK = b'data: {"id": "x", "object": "chat.completion.chunk", "choices": []}\n\n'

# name: (body, content type, words the sentence must hold)
BODIES = {
    "html": (LOGIN_PAGE, "text/html", ["an HTML page", "Please sign in"]),
    "html as an event stream": (LOGIN_PAGE, "text/event-stream", ["no chunk", "data:"]),
    "bad json": (b'{"choices": [', "application/json", ["not valid JSON", '{"choices": [']),
    "a chunk of bad json": (b'data: {"choices": [\n\n', "text/event-stream", ["not valid JSON"]),
    "empty, as json": (b"", "application/json", ["an empty body"]),
    "empty, as an event stream": (b"", "text/event-stream", ["no chunk"]),
    "choices: [], as json": (
        b'{"id": "x", "object": "chat.completion", "choices": []}',
        "application/json",
        ["no choices", "choices: []"],
    ),
    "choices: [], as chunks": (
        NO_CHOICES_CHUNK * 2 + b"data: [DONE]\n\n",
        "text/event-stream",
        ["no choices", "2 chunks"],
    ),
    "plain text": (b"Hello, this is not an API.", "text/plain", ["text", "this is not an API"]),
}


def session(server: ChatServer) -> AgentSession:
    backend = loopback_backend(server.url, timeout=10)
    return AgentSession(backend, FakeToolbox(), LoopOptions(stream=True, retry_base_delay=0.01))


@pytest.mark.parametrize(("body", "content_type", "words"), BODIES.values(), ids=BODIES.keys())
async def test_what_came_back_is_said_plainly_and_at_once(
    chat_server: ChatServer, body: bytes, content_type: str, words: list[str]
) -> None:
    for _ in range(4):  # enough for every retry: none may be made
        chat_server.raw(body, content_type=content_type)
    events = await run_turn(session(chat_server), "hi")
    [error] = of_type(events, ErrorOccurred)
    sentence = error.message
    assert "cut off" not in sentence and "--no-stream" not in (error.hint or "")
    for word in words:
        assert word in sentence, sentence
    assert "\n" not in sentence and sentence.endswith("."), sentence  # one plain sentence
    assert not of_type(events, RetryScheduled)
    assert len(chat_server.requests) == 1
    assert of_type(events, TurnFinished)[0].reason == "error"


async def test_a_whole_completion_sent_for_a_stream_is_taken_as_the_reply(
    chat_server: ChatServer,
) -> None:
    """A server that ignores `stream: true` and answers one completion: its reply is used."""
    chat_server.json(completion_body("EHGLP3 flies on 2024-05-17."))
    events = await run_turn(session(chat_server), "when does EHGLP3 fly?")
    assert not of_type(events, ErrorOccurred)
    assert of_type(events, AssistantMessage)[0].content == "EHGLP3 flies on 2024-05-17."
    assert of_type(events, TurnFinished)[0].reason == "answered"


async def test_a_stream_cut_off_after_its_chunks_is_still_said_to_be_cut_off(
    chat_server: ChatServer,
) -> None:
    chat_server.stream("It was cut", done=False, cut_after=300)
    chat_server.stream("It was not cut off the second time.")
    events = await run_turn(session(chat_server), "hi")
    assert of_type(events, RetryScheduled) and not of_type(events, ErrorOccurred)


async def test_an_event_stream_under_another_content_type_is_still_read(
    chat_server: ChatServer,
) -> None:
    """Some servers send the chunks as text/plain: the stream is read all the same."""
    from tests.support.chat_server import stream_body

    chat_server.raw(stream_body("Yes, it is on time."), content_type="text/plain")
    events = await run_turn(session(chat_server), "on time?")
    assert not of_type(events, ErrorOccurred)
    assert of_type(events, AssistantMessage)[0].content == "Yes, it is on time."
