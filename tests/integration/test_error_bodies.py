"""Bodies that are not what a Chat Completions client expects, through the real `openai`
client on loopback: binary data on a 200 (whole, or after good stream chunks), an HTML
error page, JSON nested too deeply to read, an error message holding half an emoji. Each
is one plain line that says what the server sent; a broken stream is retried like a cut
one; no markup, no Python exception names, no bytes are shown.
"""

from __future__ import annotations

import json
import re

import pytest

from airline_agent.agent.events import (
    AssistantMessage,
    ErrorOccurred,
    RetryScheduled,
    TurnFinished,
)
from airline_agent.agent.history import problems
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.chat_server import ChatServer
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox
from tests.support.loopback import loopback_backend

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\xff\xfe\xfd binary"
NGINX_503 = (
    b"<html>\r\n<head><title>503 Service Temporarily Unavailable</title>"
    b"<style>body { font-family: sans-serif; color: #333 }</style></head>\r\n"
    b"<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n"
    b"<script>var retry = 'later';</script>"
    b"<hr><center>nginx/1.25.3</center>\r\n" + b"<!-- padding -->" * 50 + b"</body>\r\n</html>\r\n"
)

pytestmark = pytest.mark.usefixtures("closing_loopback_backends")


def make_session(server: ChatServer, *, stream: bool, retries: int = 0) -> AgentSession:
    backend = loopback_backend(server.url)
    options = LoopOptions(stream=stream, retries=retries, retry_base_delay=0.01)
    return AgentSession(backend, FakeToolbox(), options)


def one_plain_line(text: str) -> None:
    assert "\n" not in text
    assert "<" not in text and ">" not in text, text
    assert "Error:" not in text and "Traceback" not in text, text  # no Python exception names
    assert not re.search(r"[\x00-\x08\x0e-\x1f\ufffd]", text), text


@pytest.mark.parametrize("streamed", [True, False], ids=["stream", "json"])
async def test_a_binary_body_on_a_200_says_the_server_sent_binary_data(
    chat_server: ChatServer, streamed: bool
) -> None:
    content_type = "text/event-stream" if streamed else "application/json"
    chat_server.raw(PNG, content_type=content_type)
    s = make_session(chat_server, stream=streamed, retries=0)
    events = await run_turn(s, "hi")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "bad_response"
    assert "UnicodeDecodeError" not in error.message
    assert "binary data" in error.message
    one_plain_line(error.message)
    assert error.hint and "/v1" in error.hint
    assert of_type(events, TurnFinished)[0].reason == "error"
    assert problems(s.history) == []


async def test_a_stream_that_turns_into_binary_data_is_retried_as_a_cut_stream(
    chat_server: ChatServer,
) -> None:
    good = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "Hel"}, "finish_reason": None}],
    }
    chat_server.raw(
        f"data: {json.dumps(good)}\n\n".encode() + b"data: \xff\xfe\x00\x01garbage\n\n",
        content_type="text/event-stream",
    )
    chat_server.stream("Hello again.")
    s = make_session(chat_server, stream=True, retries=1)
    events = await run_turn(s, "hi")
    [retry] = of_type(events, RetryScheduled)
    one_plain_line(retry.reason)
    assert "not text" in retry.reason
    assert of_type(events, AssistantMessage)[-1].content == "Hello again."
    assert of_type(events, TurnFinished)[0].reason == "answered"
    assert chat_server.requests[0] == chat_server.requests[1]  # the same request again


async def test_a_503_html_page_is_one_plain_line_with_its_words(chat_server: ChatServer) -> None:
    for _ in range(2):
        chat_server.raw(NGINX_503, status=503, content_type="text/html")
    s = make_session(chat_server, stream=False, retries=1)
    events = await run_turn(s, "hi")
    [retry] = of_type(events, RetryScheduled)  # a 503 is still worth a retry
    [error] = of_type(events, ErrorOccurred)
    assert (error.kind, error.status) == ("server", 503)
    one_plain_line(error.message)
    one_plain_line(retry.reason)
    assert "503 Service Temporarily Unavailable" in error.message
    assert "nginx/1.25.3" in error.message
    assert "font-family" not in error.message and "retry = " not in error.message
    assert len(error.message) <= 200


async def test_a_200_html_page_is_named_in_words(chat_server: ChatServer) -> None:
    page = b"<!DOCTYPE html><html><head><title>Welcome</title></head><body>" + b"x" * 9000
    chat_server.raw(page + b"<p>It works!</p></body></html>", content_type="text/html")
    s = make_session(chat_server, stream=False)
    events = await run_turn(s, "hi")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "bad_response"
    assert error.hint and "<" not in error.hint and "/v1" in error.hint


async def test_a_completion_nested_too_deeply_to_read_is_not_a_completion(
    chat_server: ChatServer,
) -> None:
    chat_server.raw(b'{"choices": ' + b"[" * 50_000 + b"]" * 50_000 + b"}")
    s = make_session(chat_server, stream=False)
    events = await run_turn(s, "hi")
    [error] = of_type(events, ErrorOccurred)
    assert error.kind == "bad_response"
    assert "RecursionError" not in error.message + (error.hint or "")
    one_plain_line(error.message)


async def test_an_error_message_with_half_an_emoji_can_be_printed(
    chat_server: ChatServer,
) -> None:
    chat_server.error(400, "bad value \ud83d in messages")  # JSON: "\ud83d"
    s = make_session(chat_server, stream=False)
    events = await run_turn(s, "hi")
    [error] = of_type(events, ErrorOccurred)
    assert "bad value \ufffd in messages" in error.message
    error.message.encode("utf-8")  # printable: no lone surrogate
