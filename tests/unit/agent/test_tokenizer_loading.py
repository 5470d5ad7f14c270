"""The tokenizer a session counts its requests' prefixes with loads when a request first
needs it, not when the session is built: `chat` shows its prompt without waiting for it
(it was most of what `chat` added to its libraries' start-up). The TUI loads it in the
thread that opens its stack, where it holds no key press: tests/tui/test_tokenizer_thread.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.agent.prefix import token_counter
from tests.support.events import run_turn
from tests.support.fake_toolbox import FakeToolbox


@pytest.fixture
def unloaded() -> Iterator[None]:
    token_counter.cache_clear()
    yield
    token_counter.cache_clear()


def _loaded() -> bool:
    return token_counter.cache_info().currsize == 1


async def test_a_session_loads_the_tokenizer_at_its_first_request(unloaded: None) -> None:
    session = AgentSession(
        ScriptedBackend([ScriptedResponse("Hello.")]), FakeToolbox(), LoopOptions()
    )
    assert not _loaded()
    await run_turn(session, "Hi.")
    assert _loaded()
