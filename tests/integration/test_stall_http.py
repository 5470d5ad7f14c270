"""Issue 19 item 12: a stream that stalls is shown stalling as it happens, and its retry
does not print the answer twice.

A stream stalled after one chunk said nothing for 60 s per attempt, four attempts, and
the chat printed the partial text again on every retry. The loop now says `ResponseStalled`
after `stall_notice` seconds without data (20 s by default, AIRLINE_AGENT_STALL_NOTICE;
small here, and the server's stall is ended by the test once the notice was seen, so
nothing waits on a fixed time), and a retry after pieces were shown says so
(`RetryScheduled.pieces_shown`): the chat then prints only what goes beyond them.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from airline_agent.agent.events import (
    AssistantMessage,
    ErrorOccurred,
    ResponseStalled,
    RetryScheduled,
    TextDelta,
    TurnFinished,
)
from airline_agent.agent.loop import AgentSession, LoopOptions
from tests.support.chat_server import ChatServer, stream_body
from tests.support.fake_toolbox import FakeToolbox
from tests.support.loopback import loopback_backend

pytestmark = pytest.mark.usefixtures("closing_loopback_backends")

ANSWER = "Your reservation EHGLP3 is confirmed for 2024-05-17."


def stall_after_first_words(server: ChatServer, text: str = ANSWER) -> None:
    """The answer's first two chunks (role, first word), then silence until end_stalls()."""
    body = stream_body(text)
    second_chunk_end = body.index(b"\n\n", body.index(b"\n\n") + 2) + 2
    server.raw(body, content_type="text/event-stream", stall_after=second_chunk_end)


async def test_a_stall_is_said_as_it_happens_and_the_retry_continues(chat_server: ChatServer):
    stall_after_first_words(chat_server)
    chat_server.stream(ANSWER)
    backend = loopback_backend(chat_server.url, timeout=60)
    options = LoopOptions(stall_notice=0.05, retries=2, retry_base_delay=0.01)
    session = AgentSession(backend, FakeToolbox(), options)
    events = []
    async for event in session.run_turn("is EHGLP3 confirmed?"):
        events.append(event)
        if isinstance(event, ResponseStalled) and event.received:
            chat_server.end_stalls()  # seen: now the stream dies, as a stalled one does
    # (A notice may come before the first word too, while the request is under way.)
    stalled = [e for e in events if isinstance(e, ResponseStalled) and e.received]
    assert stalled and stalled[0].request == 1 and stalled[0].received == 1
    assert stalled[0].silent_s >= 0.05
    assert "after 1 piece of the answer" in stalled[0].describe()
    [retry] = [e for e in events if isinstance(e, RetryScheduled)]
    assert (retry.request, retry.pieces_shown) == (1, 1)
    assert events.index(stalled[0]) < events.index(retry)
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    assert texts[0] == "Your"  # before the stall
    assert [e.content for e in events if isinstance(e, AssistantMessage)] == [ANSWER]
    assert not [e for e in events if isinstance(e, ErrorOccurred)]
    assert events[-1] == TurnFinished(1, "answered", events[-1].usage, events[-1].cost)


async def test_a_stall_before_the_first_word_says_nothing_came_yet(chat_server: ChatServer):
    body = stream_body(ANSWER)
    chat_server.raw(body, content_type="text/event-stream", stall_after=0)
    backend = loopback_backend(chat_server.url, timeout=60)
    session = AgentSession(backend, FakeToolbox(), LoopOptions(stall_notice=0.05, retries=0))
    events = []
    async for event in session.run_turn("hi"):
        events.append(event)
        if isinstance(event, ResponseStalled):
            chat_server.end_stalls()
    stalled = [e for e in events if isinstance(e, ResponseStalled)]
    assert stalled and stalled[0].received == 0
    assert "nothing" in stalled[0].describe()
    assert [e.kind for e in events if isinstance(e, ErrorOccurred)]


async def test_a_stall_that_outlasts_the_timeout_is_said_to_have_stopped_mid_answer(
    chat_server: ChatServer,
):
    stall_after_first_words(chat_server)
    backend = loopback_backend(chat_server.url, timeout=3)  # the read timeout ends it
    session = AgentSession(backend, FakeToolbox(), LoopOptions(stall_notice=0.05, retries=0))
    events = [event async for event in session.run_turn("hi")]
    chat_server.end_stalls()
    assert [e for e in events if isinstance(e, ResponseStalled)]
    [error] = [e for e in events if isinstance(e, ErrorOccurred)]
    assert error.kind == "timeout" and "stopped sending" in error.message, error.message


async def test_the_chat_shows_the_stall_and_prints_the_answer_once(
    chat_server: ChatServer, db: Path
):
    from airline_agent.commands.chat.repl import run_chat
    from airline_agent.config import Settings

    stall_after_first_words(chat_server)
    chat_server.stream(ANSWER)

    class Screen(io.StringIO):
        def write(self, text: str) -> int:
            if "no data for" in text and "after 1 piece" in text:
                chat_server.end_stalls()
            return super().write(text)

    screen = Screen()
    settings = Settings(
        model="gpt-4o-mini", base_url=chat_server.url, db=str(db), stall_notice=0.05
    )
    status = await asyncio.wait_for(
        run_chat(settings, stdin=io.StringIO("is EHGLP3 confirmed?\n"), stdout=screen), 60
    )
    shown = screen.getvalue()
    assert status == 0, shown
    assert "no data for" in shown and "retry 1" in shown
    assert shown.count("Your") == 1, shown  # printed once, before the stall
    replies = [line.removeprefix("agent> ") for line in shown.splitlines() if "agent> " in line]
    assert "".join(reply.removeprefix("…") for reply in replies) == ANSWER, shown
