"""Serving the server over stdio (one client, the process's stdin and stdout) or
streamable HTTP (many sessions, one port).

stdio. The SDK drops a line it cannot parse without a word, and a client waiting for
that request's answer then waits forever. Lines are screened before the SDK reads them:
JSON that only Python's parser accepts (a lone UTF-16 surrogate, `"\\ud800"`, is valid
JSON text that the SDK's parser refuses) is a `tools/call` answered through the session
(`INVALID_ARGUMENTS` naming the argument, as for a model) or any other request answered
with a parse error under its id; a line that is no JSON at all gets a parse error
(`id: null`, as JSON-RPC says). While serving, fd 1 points at stderr: a stray print
never corrupts the wire.

HTTP. uvicorn on a socket bound here (so `--http 127.0.0.1:0` reports the port it got).
On loopback the SDK's DNS-rebinding protection admits only this server's loopback names
and port in `Host`, and only its own origin in `Origin` (`loopback_security`). A session
ends when its client deletes it (HTTP DELETE), after 30 minutes without a request, or when
the server stops; it is then recorded and its copy removed.
Request bodies over 4 MiB get 413 before anything reads them (the SDK's limit).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import IO

import anyio
import anyio.to_thread
import pydantic_core
import uvicorn
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, InputRequiredResult
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from airline_agent.mcp_server.server import AirlineServer

IDLE_SECONDS = 30 * 60.0
MAX_SESSIONS = 64  # each has its own copy of the database (a few MB) unless --shared
PARSE_ERROR = -32700


# ---------------------------------------------------------------- stdio


class _Wire:
    """The protocol's end of stdout: whole lines, one writer at a time."""

    def __init__(self, file: IO[bytes]) -> None:
        self._file = file
        self._lock = threading.Lock()

    async def write(self, text: str) -> None:
        await anyio.to_thread.run_sync(self._write, text)

    def _write(self, text: str) -> None:
        data = text.encode("utf-8", errors="backslashreplace")
        with self._lock:
            self._file.write(data)
            self._file.flush()

    async def flush(self) -> None:
        return None  # every write is flushed


@dataclass
class _ScreenedLines:
    """stdin's lines for the SDK, less those the SDK cannot read, which are answered here."""

    source: IO[bytes]
    wire: _Wire
    answer: Callable[[str, object], Awaitable[CallToolResult | InputRequiredResult]]

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            raw = await anyio.to_thread.run_sync(self.source.readline)
            if not raw:
                return
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            try:
                pydantic_core.from_json(line)
            except ValueError:
                await self._answer_unreadable(line)
                continue
            yield line

    async def _answer_unreadable(self, line: str) -> None:
        try:
            message = json.loads(line)
        except (ValueError, RecursionError) as exc:
            reason = str(exc) if isinstance(exc, ValueError) else "nested too deeply"
            await self._send({"jsonrpc": "2.0", "id": None, "error": _parse_error(reason)})
            return
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            return  # a notification or a response: nothing to answer
        ident = message["id"]
        params = message.get("params")
        if not isinstance(params, dict):
            params = {}
        name = params.get("name")
        if message.get("method") == "tools/call" and isinstance(name, str):
            result = await self.answer(name, params.get("arguments"))
            body = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            await self._send({"jsonrpc": "2.0", "id": ident, "result": body})
            return
        reason = "the message holds text that is not valid Unicode (a lone surrogate)"
        await self._send({"jsonrpc": "2.0", "id": ident, "error": _parse_error(reason)})

    async def _send(self, message: dict[str, object]) -> None:
        # ensure_ascii: whatever came in (a lone surrogate) goes out as an escape.
        await self.wire.write(json.dumps(message) + "\n")


def _parse_error(reason: str) -> dict[str, object]:
    return {"code": PARSE_ERROR, "message": f"Parse error: {reason}"}


def _claim_stdio() -> tuple[IO[bytes], IO[bytes]]:
    """The wire's stdin and stdout; fd 0 then reads nothing and fd 1 writes to stderr."""
    wire_in = os.fdopen(os.dup(0), "rb", buffering=0)
    wire_out = os.fdopen(os.dup(1), "wb")
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    os.dup2(2, 1)
    return wire_in, wire_out


async def serve_stdio(server: AirlineServer) -> None:
    """Serve one client on stdin/stdout until it closes stdin or a signal ends it."""
    wire_in, wire_out = _claim_stdio()
    wire = _Wire(wire_out)

    async def answer(name: str, arguments: object) -> CallToolResult | InputRequiredResult:
        return await server.answer(None, name, arguments, key=server.session_key(None))

    lines = _ScreenedLines(wire_in, wire, answer)
    lowlevel = server._lowlevel_server  # the SDK runs stdio through it (run_stdio_async)
    async with anyio.create_task_group() as group:
        group.start_soon(_stop_on_signal, group.cancel_scope)
        async with stdio_server(stdin=lines, stdout=wire) as (read, write):  # type: ignore[arg-type]
            await lowlevel.run(read, write, lowlevel.create_initialization_options())
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stdin closed: recording next
        group.cancel_scope.cancel()


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            scope.cancel()
            break
    # The sessions are recorded next: a second SIGTERM (a client's "now") must not cut
    # a recording in half (it is written whole or not at all, but would be lost).
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


# ---------------------------------------------------------------- HTTP


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: any free one). Raises OSError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def loopback_security(host: str, port: int) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding protection for a server bound to loopback `host`:port.
    Requests only for this machine's loopback names on this port (a name of another site
    made to point here is refused), and from a browser only a page of this server's own
    origin: a browser lets any page post to any address, and a page served by another
    port of this machine (any local web server's) is another site."""
    names = ["127.0.0.1", "localhost", "[::1]", f"[{host}]" if ":" in host else host]
    hosts = [f"{name}:{port}" for name in dict.fromkeys(names)]
    if port == 80:  # a browser leaves out the scheme's default port
        hosts += list(dict.fromkeys(names))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{name}" for name in hosts],
    )


class _SessionEnds:
    """ASGI: tells the sessions when a client ended its session (DELETE answered 2xx)."""

    def __init__(self, app: ASGIApp, ended: Callable[[str], Awaitable[None]]) -> None:
        self.app = app
        self.ended = ended

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "DELETE":
            await self.app(scope, receive, send)
            return
        key = next(
            (
                value.decode("latin-1")
                for name, value in scope["headers"]
                if name == b"mcp-session-id"
            ),
            None,
        )
        status = 500

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await self.app(scope, receive, watch)
        if key is not None and status < 400:
            await self.ended(key)


async def serve_http(server: AirlineServer, sock: socket.socket, loopback: bool) -> None:
    """Serve sessions on `sock` until SIGINT/SIGTERM (uvicorn's own handling)."""
    host, port = sock.getsockname()[:2]
    security = loopback_security(host, port) if loopback else None
    app = server.streamable_http_app(
        host=host,
        session_idle_timeout=IDLE_SECONDS,
        max_sessions=MAX_SESSIONS,
        transport_security=security,
    )
    sessions = server.sessions

    async def ended(key: str) -> None:
        session = sessions.take(key)
        if session is not None:
            await anyio.to_thread.run_sync(sessions.finish, session)

    config = uvicorn.Config(
        _SessionEnds(app, ended),
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=5,
    )
    # uvicorn shuts down gracefully on SIGINT or SIGTERM, then raises the signal again for
    # the handler it found: Python's default ones end the process at once (SIGTERM) or
    # raise KeyboardInterrupt inside the task group (SIGINT), either way before
    # `Server.run` has ended the sessions (recorded them, dropped their copies on a
    # PostgreSQL server). The handlers found are these instead: they only ask uvicorn to
    # stop (also for a signal that comes before it listens), and the run ends normally.
    web = uvicorn.Server(config)

    def stop(_signal: int, _frame: object) -> None:
        web.should_exit = True

    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_reap_idle, server, ended)
            await web.serve(sockets=[sock])
            group.cancel_scope.cancel()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


async def _reap_idle(server: AirlineServer, ended: Callable[[str], Awaitable[None]]) -> None:
    """End the sessions the SDK has forgotten for idleness (same timeout)."""
    while True:
        await anyio.sleep(60)
        now = time.monotonic()
        for key, session in server.sessions.items():
            if now - session.last_used > IDLE_SECONDS:
                await ended(key)


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
