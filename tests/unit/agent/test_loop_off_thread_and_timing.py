"""Tool calls run off the event loop; a request reports its time to the first token and
its generation speed, measured from the stream."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
from airline_agent.agent.events import ToolFinished, UsageReported
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.agent.streaming import ModelReply, TextPiece
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import ToolOutcome
from tests.support.events import of_type, run_turn
from tests.support.fake_toolbox import FakeToolbox

LOOKUP = ScriptedToolCall("get_reservation_details", {"reservation_id": "EHGLP3"}, "c1")
PAUSE = 0.05


class SlowToolbox(FakeToolbox):
    """Each call takes PAUSE seconds and says on which thread it ran."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def call(self, name: str, arguments, conversation: ToolConversation) -> ToolOutcome:
        self.threads.append(threading.get_ident())
        threading.Event().wait(PAUSE)  # a slow write, blocking its thread
        return super().call(name, arguments, conversation)


async def test_a_slow_tool_call_leaves_the_event_loop_free():
    toolbox = SlowToolbox()
    backend = ScriptedBackend([ScriptedResponse(tool_calls=(LOOKUP,)), ScriptedResponse("Ok.")])
    session = AgentSession(backend, toolbox, LoopOptions(stream=False))
    ticks = 0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.ensure_future(tick())
    events = await run_turn(session, "Look up EHGLP3.")
    done.set()
    await ticker
    assert [e.error for e in of_type(events, ToolFinished)] == [None]
    assert toolbox.threads and toolbox.threads[0] != threading.get_ident()
    assert ticks > 1  # the loop ran other work while the tool call blocked its thread


class InMemoryToolbox(FakeToolbox):
    """Calls that never wait, and say so; each notes on which thread it ran."""

    calls_block = False

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[int] = []

    def call(self, name: str, arguments, conversation: ToolConversation) -> ToolOutcome:
        self.threads.append(threading.get_ident())
        return super().call(name, arguments, conversation)


async def test_a_toolbox_whose_calls_never_wait_is_called_on_the_event_loop():
    toolbox = InMemoryToolbox()
    backend = ScriptedBackend([ScriptedResponse(tool_calls=(LOOKUP,)), ScriptedResponse("Ok.")])
    session = AgentSession(backend, toolbox, LoopOptions(stream=False))
    events = await run_turn(session, "Look up EHGLP3.")
    assert [e.error for e in of_type(events, ToolFinished)] == [None]
    assert toolbox.threads == [threading.get_ident()]


class PacedBackend:
    """Streams three words PAUSE seconds apart, after PAUSE seconds of "prompt reading"."""

    model = "paced"
    base_url = None

    async def reply(self, body: dict) -> AsyncIterator[TextPiece | ModelReply]:
        from airline_agent.agent.events import Usage

        for word in ("one", " two", " three"):
            await asyncio.sleep(PAUSE)
            yield TextPiece(word)
        yield ModelReply("one two three", (), None, "stop", Usage(10, 21), "paced")


async def test_a_streamed_request_reports_time_to_first_token_and_tokens_per_second():
    session = AgentSession(PacedBackend(), FakeToolbox(), LoopOptions())
    [usage] = of_type(await run_turn(session, "Count."), UsageReported)
    assert usage.first_token_ms is not None and usage.first_token_ms >= PAUSE * 1000
    assert usage.first_token_ms <= usage.latency_ms
    # 20 tokens after the first, over at least two pauses: at most 20 / (2 × PAUSE).
    assert usage.tokens_per_second is not None
    assert 0 < usage.tokens_per_second <= 20 / (2 * PAUSE)


async def test_a_reply_without_a_stream_has_no_stream_timings():
    backend = ScriptedBackend([ScriptedResponse("Ok.")])
    session = AgentSession(backend, FakeToolbox(), LoopOptions(stream=False))
    [usage] = of_type(await run_turn(session, "Hi."), UsageReported)
    assert usage.first_token_ms is None and usage.tokens_per_second is None
