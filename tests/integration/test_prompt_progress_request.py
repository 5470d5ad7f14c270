"""llama-server reports how much of the prompt it has read only when a request asks
(`return_progress: true`); other servers may refuse an unknown field. So the request asks
only when the user turned it on (AIRLINE_AGENT_PROMPT_PROGRESS), through the real
`openai` client to a loopback server that keeps every request body."""

from __future__ import annotations

from pathlib import Path

import pytest

from airline_agent.config import Settings
from airline_agent.stack import live_stack
from tests.support.chat_server import ChatServer
from tests.support.events import run_turn


async def _first_request(chat_server: ChatServer, db: Path, **settings: object) -> dict:
    chat_server.stream("Hello, how can I help?", finish_reason="stop")
    config = Settings(
        model="test-model", base_url=chat_server.url, api_key="test-key", db=str(db), **settings
    )
    stack = live_stack(config)
    try:
        await run_turn(stack.session, "Hi")
    finally:
        await stack.session.backend.aclose()
        stack.database.close()
    return chat_server.requests[0]


@pytest.mark.parametrize("asked", [True, False])
async def test_the_request_asks_for_prompt_progress_only_when_turned_on(
    chat_server: ChatServer, db: Path, asked: bool
) -> None:
    request = await _first_request(chat_server, db, prompt_progress=asked)
    assert request["stream"] is True
    assert ("return_progress" in request) is asked
    if asked:
        assert request["return_progress"] is True


def test_the_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRLINE_AGENT_PROMPT_PROGRESS", "1")
    assert Settings().prompt_progress is True
    monkeypatch.delenv("AIRLINE_AGENT_PROMPT_PROGRESS")
    assert Settings().prompt_progress is False
