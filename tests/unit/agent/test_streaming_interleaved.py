"""Streamed tool calls whose argument pieces interleave are assembled by `index`, each
call getting its own JSON (issue 14)."""

from __future__ import annotations

import json

from airline_agent.agent.streaming import StreamAssembler, ToolCallPiece
from tests.support.interleaved_stream import CALLS, interleaved_chunks


def test_interleaved_argument_pieces_go_to_the_call_of_their_index() -> None:
    chunks = interleaved_chunks()
    pieces = [chunk["choices"][0]["delta"]["tool_calls"][0] for chunk in chunks[3:-1]]
    pieces_by_index = [piece["index"] for piece in pieces]
    assert not any("id" in piece for piece in pieces)
    assert pieces_by_index[:4] == [0, 1, 0, 1]  # the stream really alternates
    assembler = StreamAssembler()
    for chunk in chunks:
        assembler.feed(chunk)
    reply = assembler.finish()
    assert [(c.call_id, c.name) for c in reply.tool_calls] == [(i, n) for i, n, _ in CALLS]
    assert [json.loads(c.arguments) for c in reply.tool_calls] == [a for _, _, a in CALLS]
    assert reply.finish_reason == "tool_calls"


def test_each_piece_reports_the_index_it_came_with() -> None:
    assembler = StreamAssembler()
    reported = [
        (piece.index, piece.arguments)
        for chunk in interleaved_chunks()
        for piece in assembler.feed(chunk)
        if isinstance(piece, ToolCallPiece) and piece.arguments
    ]
    for index, (_, _, arguments) in enumerate(CALLS):
        assert "".join(text for i, text in reported if i == index) == json.dumps(arguments)
