"""A real Responses API server on 127.0.0.1 for tests: POST …/v1/responses, JSON and SSE.

Written for the tests from the API reference (the `openai` package's types under
`openai.types.responses` say each object's fields), not from the project's own
generator, so that reading a server's response is checked against an independent
writer. The HTTP side is `ChatServer`'s (queue a reply per expected request, read
`server.requests`, `server.raw_requests`, `server.paths`).

    server = ResponsesServer()                     # or the `responses_server` fixture
    server.response(tool_calls=[("get_reservation_details", {"reservation_id": "EHGLP3"})])
    server.events("It is cancelled.", usage=(120, 8))          # the same as an event stream
    server.response(reasoning="Look it up first.", encrypted="gAAAA…", tool_calls=[…])
    server.response("Partial", status="incomplete")            # max_output_tokens
    server.failed("server_error", "The model crashed.")        # status "failed"
    server.events("Hel", error_after=3)                        # an `error` event mid-stream
    server.missing()                                           # 404, as llama-server's
    server.requests[1]["input"]                                # what the client sent second

A response's items get ids as OpenAI's do (`resp_…`, `rs_…`, `msg_…`, `fc_…`); call ids
are `call_1`, `call_2`, … in the order the calls are made, unless a spec gives one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from tests.support.chat_server import ChatServer, ToolCallSpec

# (input, output[, cached[, reasoning]]) tokens, or a whole `usage` object, or None.
ResponseUsageSpec = (
    tuple[int, int] | tuple[int, int, int] | tuple[int, int, int, int] | dict[str, Any] | None
)

# llama.cpp's server answers a path it does not serve so (its `not_found_error`).
NOT_FOUND = {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}}


def usage_object(usage: ResponseUsageSpec) -> dict[str, Any] | None:
    if usage is None or isinstance(usage, dict):
        return usage
    given, out, *rest = usage
    cached = rest[0] if rest else 0
    reasoning = rest[1] if len(rest) > 1 else 0
    return {
        "input_tokens": given,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": out,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": given + out,
    }


def output_items(
    content: str | None,
    tool_calls: Sequence[ToolCallSpec],
    *,
    reasoning: str | None,
    summary: str | None,
    encrypted: str | None,
    first_id: int,
    status: str,
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reasoning is not None or summary is not None or encrypted is not None:
        item: dict[str, Any] = {"id": "rs_test_1", "type": "reasoning", "summary": []}
        if summary is not None:
            item["summary"] = [{"type": "summary_text", "text": summary}]
        if reasoning is not None:
            item["content"] = [{"type": "reasoning_text", "text": reasoning}]
        if encrypted is not None:
            item["encrypted_content"] = encrypted
        items.append(item)
    if content is not None:
        items.append(
            {
                "id": "msg_test_1",
                "type": "message",
                "role": "assistant",
                "status": "incomplete"
                if status == "incomplete" and not tool_calls
                else "completed",
                "content": [{"type": "output_text", "text": content, "annotations": []}],
            }
        )
    for position, spec in enumerate(tool_calls):
        name, arguments = spec[0], spec[1]
        items.append(
            {
                "id": f"fc_test_{position + 1}",
                "type": "function_call",
                "call_id": spec[2] if len(spec) > 2 else f"call_{first_id + position}",
                "name": name,
                "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                "status": "completed",
            }
        )
    return items


def response_object(
    content: str | None = None,
    tool_calls: Sequence[ToolCallSpec] = (),
    *,
    reasoning: str | None = None,
    summary: str | None = None,
    encrypted: str | None = None,
    status: str = "completed",
    incomplete_reason: str = "max_output_tokens",
    error: dict[str, Any] | None = None,
    usage: ResponseUsageSpec = (100, 20),
    model: str = "test-model",
    first_id: int = 1,
) -> dict[str, Any]:
    """A `response` object as OpenAI's reference gives it (the fields a client reads, and
    the request's echo a server adds)."""
    return {
        "id": "resp_test_1",
        "object": "response",
        "created_at": 1715785200,
        "status": status,
        "error": error,
        "incomplete_details": {"reason": incomplete_reason} if status == "incomplete" else None,
        "instructions": None,
        "model": model,
        "output": []
        if status == "failed"
        else output_items(
            content,
            tool_calls,
            reasoning=reasoning,
            summary=summary,
            encrypted=encrypted,
            first_id=first_id,
            status=status,
        ),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": None if status == "failed" else usage_object(usage),
    }


def stream_events(response: dict[str, Any]) -> list[dict[str, Any]]:
    """The events a server streams for `response`, in the reference's order, the text and
    the arguments in small pieces (as a model makes them)."""
    events: list[dict[str, Any]] = []

    def say(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **fields})

    begun = {**response, "status": "in_progress", "output": [], "usage": None}
    say("response.created", response=begun)
    say("response.in_progress", response=begun)
    for index, item in enumerate(response["output"]):
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "reasoning":
            begun_item = {"id": item["id"], "type": "reasoning", "summary": []}
            say("response.output_item.added", output_index=index, item=begun_item)
            for part in item.get("content", ()):
                for piece in _pieces(part["text"], 12):
                    say("response.reasoning_text.delta", **where, content_index=0, delta=piece)
            for part in item["summary"]:
                for piece in _pieces(part["text"], 12):
                    say(
                        "response.reasoning_summary_text.delta",
                        **where,
                        summary_index=0,
                        delta=piece,
                    )
        elif item["type"] == "message":
            added = {**item, "status": "in_progress", "content": []}
            say("response.output_item.added", output_index=index, item=added)
            part = item["content"][0]
            say("response.content_part.added", **where, content_index=0, part={**part, "text": ""})
            for piece in _words(part["text"]):
                say(
                    "response.output_text.delta", **where, content_index=0, delta=piece, logprobs=[]
                )
            say(
                "response.output_text.done",
                **where,
                content_index=0,
                text=part["text"],
                logprobs=[],
            )
            say("response.content_part.done", **where, content_index=0, part=part)
        else:
            added = {**item, "arguments": "", "status": "in_progress"}
            say("response.output_item.added", output_index=index, item=added)
            for piece in _pieces(item["arguments"], 7):
                say("response.function_call_arguments.delta", **where, delta=piece)
            say("response.function_call_arguments.done", **where, arguments=item["arguments"])
        say("response.output_item.done", output_index=index, item=item)
    last = {"completed": "response.completed", "incomplete": "response.incomplete"}
    say(last.get(response["status"], "response.failed"), response=response)
    return events


def _pieces(text: str, size: int) -> Iterator[str]:
    return (text[i : i + size] for i in range(0, len(text), size))


def _words(text: str) -> Iterator[str]:
    words = text.split(" ")
    return (word if i == 0 else " " + word for i, word in enumerate(words))


def sse(events: Sequence[dict[str, Any]]) -> bytes:
    """Server-sent events as OpenAI sends them: each with its `event:` name and `data:`."""
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


class ResponsesServer(ChatServer):
    """Answers POST …/responses from a queue (a `ChatServer` whose replies are Responses
    API objects); records every body and path."""

    def response(
        self, content: str | None = None, tool_calls: Sequence[ToolCallSpec] = (), **spec: Any
    ) -> None:
        """One JSON `response` (non-streamed)."""
        options = _http_options(spec)
        body = response_object(
            content, tool_calls, first_id=self._take_ids(len(tool_calls)), **spec
        )
        self.json(body, **options)

    def events(
        self,
        content: str | None = None,
        tool_calls: Sequence[ToolCallSpec] = (),
        *,
        error_after: int | None = None,
        end: bool = True,
        **spec: Any,
    ) -> None:
        """The same response as an event stream. `error_after`: that many events, then an
        `error` event; `end=False`: the stream stops before its last event."""
        options = _http_options(spec)
        body = response_object(
            content, tool_calls, first_id=self._take_ids(len(tool_calls)), **spec
        )
        events = stream_events(body)
        if error_after is not None:
            error = {
                "type": "error",
                "code": "server_error",
                "message": "The server had an error while processing your request.",
                "param": None,
                "sequence_number": error_after,
            }
            events = [*events[:error_after], error]
        elif not end:
            events = events[:-1]
        self.raw(sse(events), content_type="text/event-stream", **options)

    def failed(self, code: str, message: str, *, streamed: bool = False, **options: Any) -> None:
        """A response that failed (HTTP 200, `status: "failed"`, its `error`)."""
        error = {"code": code, "message": message}
        body = response_object(status="failed", error=error)
        if streamed:
            self.raw(sse(stream_events(body)), content_type="text/event-stream", **options)
        else:
            self.json(body, **options)

    def missing(self) -> None:
        """The answer of a server that does not serve /v1/responses (llama-server's 404)."""
        self.json(NOT_FOUND, status=404)


def _http_options(spec: dict[str, Any]) -> dict[str, Any]:
    """The HTTP options (`delay`, `held`, …) out of a response's spec."""
    names = ("delay", "held", "cut_after", "stall_after", "headers")
    return {name: spec.pop(name) for name in names if name in spec}
