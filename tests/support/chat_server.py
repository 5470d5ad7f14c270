"""A real Chat Completions server on 127.0.0.1 for tests (stdlib http.server, one thread).

Queue one reply per expected request, point an OpenAI client at `server.url`, then check
`server.requests` (every request body received, JSON-decoded) — e.g. that the history
sent in the next request is valid.

    server = ChatServer()                       # or the `chat_server` pytest fixture
    server.completion(tool_calls=[("get_reservation_details", {"reservation_id": "EHGLP3"})])
    server.stream(content="It is cancelled.", usage=(120, 8))
    server.error(429, "slow down", headers={"retry-after": "0"})
    server.capture("02-tools-auto-stream")      # a llama-server capture, byte for byte
    server.raw(b"<html>", content_type="text/html")
    server.completion(content="late", delay=2)  # answers after 2 s (client timeouts)
    server.stream(content="never", held=True)   # answers only after release() (a cancel test)
    server.wait_for_requests(1)                 # the client's first request has arrived
    server.stream(content="…", cut_after=200)   # sends 200 bytes of the body, then hangs up
    server.stream(content="…", stall_after=200) # sends 200 bytes, then nothing until
    server.end_stalls()                         # …this (or close): then it hangs up
    ...
    server.requests[1]["messages"]              # what the client sent second
    server.close()

A request with nothing queued gets HTTP 500 with a message saying so, unless the server
has a `responder`: a function of the request body that answers it (a scripted role that
reads the conversation so far, e.g. tests/support/eval_roles.py).
"""

from __future__ import annotations

import json
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ToolCallSpec = tuple[str, dict[str, Any] | str] | tuple[str, dict[str, Any] | str, str]
UsageSpec = tuple[int, int] | tuple[int, int, int] | dict[str, Any] | None

LLAMA_DIR = Path(
    os.environ.get(
        "AIRLINE_AGENT_LLAMA_DIR",
        Path(__file__).resolve().parents[2].parent / "shared/reference/llama-server",
    )
)


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering
    cut_after: int | None = None  # bytes of the body to send before hanging up
    held: bool = False  # wait for ChatServer.release() (or close) before answering
    stall_after: int | None = None  # bytes to send, then silence until end_stalls(), then hang up


def usage_body(usage: UsageSpec) -> dict[str, Any] | None:
    """(prompt, completion[, cached]) → the `usage` object of a response."""
    if usage is None or isinstance(usage, dict):
        return usage
    prompt, completion, *rest = usage
    body: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if rest:
        body["prompt_tokens_details"] = {"cached_tokens": rest[0]}
    return body


def _calls(tool_calls: Iterable[ToolCallSpec], first_id: int) -> list[dict[str, Any]]:
    calls = []
    for position, spec in enumerate(tool_calls):
        name, arguments = spec[0], spec[1]
        call_id = spec[2] if len(spec) > 2 else f"call_{first_id + position}"
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        calls.append(
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}
        )
    return calls


def completion_body(
    content: str | None = None,
    tool_calls: Sequence[ToolCallSpec] = (),
    *,
    finish_reason: str | None = None,
    usage: UsageSpec = (100, 20),
    reasoning: str | None = None,
    model: str = "test-model",
    first_id: int = 1,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    calls = _calls(tool_calls, first_id)
    if calls:
        message["tool_calls"] = calls
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1715785200,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason or ("tool_calls" if calls else "stop"),
            }
        ],
    }
    if usage is not None:
        body["usage"] = usage_body(usage)
    return body


def stream_body(
    content: str | None = None,
    tool_calls: Sequence[ToolCallSpec] = (),
    *,
    finish_reason: str | None = None,
    usage: UsageSpec = (100, 20),
    reasoning: str | None = None,
    model: str = "test-model",
    first_id: int = 1,
    done: bool = True,
) -> bytes:
    """SSE like llama-server's: null first content, small argument pieces, usage last."""
    base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": None})]
    if reasoning:
        chunks += [
            chunk({"reasoning_content": reasoning[i : i + 12]})
            for i in range(0, len(reasoning), 12)
        ]
    if content:
        words = content.split(" ")
        chunks += [chunk({"content": w if i == 0 else " " + w}) for i, w in enumerate(words)]
    calls = _calls(tool_calls, first_id)
    for index, call in enumerate(calls):
        arguments = call["function"]["arguments"]
        head = {"index": index, "id": call["id"], "type": "function"}
        chunks.append(
            chunk(
                {
                    "tool_calls": [
                        {**head, "function": {"name": call["function"]["name"], "arguments": ""}}
                    ]
                }
            )
        )
        for i in range(0, len(arguments), 7):
            piece = {"index": index, "function": {"arguments": arguments[i : i + 7]}}
            chunks.append(chunk({"tool_calls": [piece]}))
    chunks.append(chunk({}, finish_reason or ("tool_calls" if calls else "stop")))
    if usage is not None:
        chunks.append({**base, "choices": [], "usage": usage_body(usage)})
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    if done:
        text += "data: [DONE]\n\n"
    return text.encode()


class ChatServer:
    """Answers POST …/chat/completions from a queue of replies (then from `responder`);
    records every body."""

    def __init__(self, responder: Callable[[dict[str, Any]], Reply] | None = None) -> None:
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.raw_requests: list[bytes] = []  # the same bodies, byte for byte
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []  # per request, names in lower case
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._received = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._released = threading.Event()
        self._stalls_over = threading.Event()
        self._next_id = 1
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        host, port = self._server.server_address[:2]
        self.root = f"http://{host}:{port}"
        self.url = f"{self.root}/v1"

    # -- queueing replies ---------------------------------------------------------------

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def raw(
        self,
        body: bytes | str,
        *,
        status: int = 200,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
        cut_after: int | None = None,
        held: bool = False,
        stall_after: int | None = None,
    ) -> None:
        data = body.encode() if isinstance(body, str) else body
        headers = dict(headers or {})
        self.queue(
            Reply(
                status,
                data,
                content_type,
                headers,
                delay,
                cut_after,
                held=held,
                stall_after=stall_after,
            )
        )

    def json(self, body: Any, *, status: int = 200, **options: Any) -> None:
        self.raw(json.dumps(body), status=status, **options)

    def completion(
        self,
        content: str | None = None,
        tool_calls: Sequence[ToolCallSpec] = (),
        *,
        finish_reason: str | None = None,
        usage: UsageSpec = (100, 20),
        reasoning: str | None = None,
        model: str = "test-model",
        **options: Any,
    ) -> None:
        body = completion_body(
            content,
            tool_calls,
            finish_reason=finish_reason,
            usage=usage,
            reasoning=reasoning,
            model=model,
            first_id=self._take_ids(len(tool_calls)),
        )
        self.json(body, **options)

    def stream(
        self,
        content: str | None = None,
        tool_calls: Sequence[ToolCallSpec] = (),
        *,
        finish_reason: str | None = None,
        usage: UsageSpec = (100, 20),
        reasoning: str | None = None,
        model: str = "test-model",
        done: bool = True,
        **options: Any,
    ) -> None:
        body = stream_body(
            content,
            tool_calls,
            finish_reason=finish_reason,
            usage=usage,
            reasoning=reasoning,
            model=model,
            first_id=self._take_ids(len(tool_calls)),
            done=done,
        )
        self.raw(body, content_type="text/event-stream", **options)

    def error(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        code: str | int | None = None,
        **options: Any,
    ) -> None:
        self.json(
            {"error": {"message": message, "type": type, "code": code}}, status=status, **options
        )

    def capture(self, name: str, *, directory: Path = LLAMA_DIR) -> None:
        """A llama-server capture (`NN-name`), with its status and its body byte for byte."""
        status_line = (directory / f"{name}.status.txt").read_text().split()
        body = (directory / f"{name}.resp.txt").read_bytes()
        streamed = body.lstrip().startswith(b"data:")
        self.raw(
            body,
            status=int(status_line[1]),
            content_type="text/event-stream" if streamed else "application/json; charset=utf-8",
        )

    def _take_ids(self, count: int) -> int:
        with self._lock:
            first, self._next_id = self._next_id, self._next_id + count
        return first

    # -- serving ------------------------------------------------------------------------

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return self.responder(body)
        message = {"error": {"message": "chat_server: no reply queued for this request"}}
        return Reply(500, json.dumps(message).encode())

    @property
    def pending(self) -> int:
        """Replies queued and not served yet."""
        return len(self._queue)

    def wait_for_requests(self, count: int = 1, timeout: float = 60) -> None:
        """Return once `count` requests have arrived; AssertionError after `timeout` s."""
        with self._received:
            if not self._received.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(
                    f"chat_server: {len(self.requests)} of {count} requests in {timeout} s"
                )

    def release(self) -> None:
        """Let the `held` replies go out."""
        self._released.set()

    def end_stalls(self) -> None:
        """Let every stalled reply go on: each then hangs up, as a dead stream does."""
        self._stalls_over.set()

    def close(self) -> None:
        self._stopping.set()
        self._released.set()  # a held reply is dropped, not sent
        self._stalls_over.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ChatServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _handler_for(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
        disable_nagle_algorithm = True  # else headers and body wait on delayed ACKs (~40 ms)

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {"_raw": raw.decode(errors="replace")}
            with server._lock:
                server.requests.append(body)
                server.raw_requests.append(raw)
                server.paths.append(self.path)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                server._received.notify_all()
            reply = server._next_reply(body)
            if reply.delay and server._stopping.wait(reply.delay):
                return
            if reply.held:
                server._released.wait()
                if server._stopping.is_set():
                    return
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                cut = reply.cut_after if reply.stall_after is None else reply.stall_after
                if cut is not None:
                    self.send_header("Connection", "close")
                self.end_headers()
                if cut is None:
                    self.wfile.write(reply.body)
                    return
                self.wfile.write(reply.body[:cut])
                self.wfile.flush()
                if reply.stall_after is not None:
                    server._stalls_over.wait()
                self.close_connection = True
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (a timeout test)

        def do_GET(self) -> None:
            body = json.dumps({"object": "list", "data": [{"id": "test-model"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler
