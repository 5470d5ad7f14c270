"""A streamed reply whose two tool calls interleave: both calls open (id and name), then
their argument pieces alternate by `index`, the pieces carrying no id, as a server may
send parallel calls. Every stream of tests/support/chat_server.py sends one call's deltas
in full before the next, which cannot tell a piece attached by its `index` from one
attached to the last call opened."""

from __future__ import annotations

import json
from itertools import zip_longest
from typing import Any

LOOKUP = ("call_lookup", "get_reservation_details", {"reservation_id": "EHGLP3"})
PROFILE = ("call_profile", "get_user_details", {"user_id": "emma_kim_9957"})
CALLS = (LOOKUP, PROFILE)


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-interleaved",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def interleaved_chunks(piece_size: int = 5) -> list[dict[str, Any]]:
    """The chunks, in order: opening deltas, alternating pieces, the finish."""
    chunks = [_chunk({"role": "assistant", "content": None})]
    for index, (call_id, name, _) in enumerate(CALLS):
        opening = {"index": index, "id": call_id, "type": "function"}
        chunks.append(
            _chunk({"tool_calls": [{**opening, "function": {"name": name, "arguments": ""}}]})
        )
    texts = [json.dumps(arguments) for _, _, arguments in CALLS]
    pieces = [[t[i : i + piece_size] for i in range(0, len(t), piece_size)] for t in texts]
    for pair in zip_longest(*pieces):
        for index, piece in enumerate(pair):
            if piece is not None:
                delta = {"index": index, "function": {"arguments": piece}}
                chunks.append(_chunk({"tool_calls": [delta]}))
    chunks.append(_chunk({}, "tool_calls"))
    return chunks


def interleaved_sse() -> bytes:
    """The same chunks as a server-sent event stream."""
    lines = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in interleaved_chunks())
    return (lines + "data: [DONE]\n\n").encode()
