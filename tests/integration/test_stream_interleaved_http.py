"""Interleaved streamed tool calls through the real `openai` client and a Chat
Completions server on loopback: each call gets its own JSON arguments (issue 14)."""

from __future__ import annotations

import json

from airline_agent.agent.openai_backends import OpenAIBackend
from airline_agent.agent.streaming import ModelReply
from tests.support.interleaved_stream import CALLS, interleaved_sse


async def test_interleaved_calls_from_a_server_each_get_their_own_arguments(chat_server) -> None:
    chat_server.raw(interleaved_sse(), content_type="text/event-stream")
    backend = OpenAIBackend(model="test-model", base_url=chat_server.url, api_key="test-key")
    try:
        body = {
            "model": "test-model",
            "messages": [{"role": "user", "content": "EHGLP3, user emma_kim_9957"}],
            "stream": True,
        }
        replies = [item async for item in backend.reply(body) if isinstance(item, ModelReply)]
    finally:
        await backend.aclose()
    assert chat_server.requests[0]["stream"] is True
    (reply,) = replies
    assert [(c.call_id, c.name) for c in reply.tool_calls] == [(i, n) for i, n, _ in CALLS]
    assert [json.loads(c.arguments) for c in reply.tool_calls] == [a for _, _, a in CALLS]
