"""The MCP server's DNS-rebinding protection on loopback (`loopback_security`), as the
SDK applies it to each request: only this server's names and port in `Host`, only its own
origin in `Origin`. In this process; against the real server: test_mcp_server.py."""

from __future__ import annotations

import pytest
from mcp.server.transport_security import TransportSecurityMiddleware
from starlette.requests import Request

from airline_agent.mcp_server.transports import loopback_security

PORT = 8765
REFUSED_HOST, REFUSED_ORIGIN = 421, 403


async def answer(
    host: str, origin: str | None, *, bound: str = "127.0.0.1", port: int = PORT
) -> int:
    """The status the SDK answers a POST with (200: let through to the server)."""
    headers = [(b"host", host.encode()), (b"content-type", b"application/json")]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    request = Request({"type": "http", "method": "POST", "path": "/mcp", "headers": headers})
    refused = await TransportSecurityMiddleware(loopback_security(bound, port)).validate_request(
        request, is_post=True
    )
    return 200 if refused is None else refused.status_code


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "[::1]"])
async def test_the_servers_own_names_and_origin_are_let_through(name: str) -> None:
    assert await answer(f"{name}:{PORT}", None) == 200  # not a browser: no page
    assert await answer(f"{name}:{PORT}", f"http://{name}:{PORT}") == 200
    # A browser's page of this server at one of its names calls it at another.
    assert await answer("127.0.0.1:8765", f"http://{name}:{PORT}") == 200


@pytest.mark.parametrize(
    "origin",
    [
        f"http://127.0.0.1:{PORT + 1}",
        f"http://localhost:{PORT + 1}",
        f"http://[::1]:{PORT + 1}",
        f"http://127.0.0.1:{PORT}0",
        f"http://127.0.0.1:{PORT}1@attacker.example",
        f"http://localhost:{PORT}.attacker.example",
        "http://127.0.0.1",
        "http://localhost",
        f"http://0.0.0.0:{PORT}",
        f"http://127.0.0.2:{PORT}",
        f"http://127.1:{PORT}",
        f"http://[::ffff:127.0.0.1]:{PORT}",
        f"https://127.0.0.1:{PORT}",
        f"https://localhost:{PORT}",
        "null",
        f"http://127.0.0.1.:{PORT}",
        f"http://localhost.:{PORT}",
        f"http://user@127.0.0.1:{PORT}",
        f"http://127.0.0.1:{PORT}/",
        "http://attacker.example",
    ],
)
async def test_every_other_origin_of_this_machine_is_refused(origin: str) -> None:
    assert await answer(f"127.0.0.1:{PORT}", origin) == REFUSED_ORIGIN


@pytest.mark.parametrize(
    "host",
    [
        f"127.0.0.1:{PORT + 1}",
        f"localhost:{PORT + 1}",
        f"[::1]:{PORT + 1}",
        "127.0.0.1",
        "localhost",
        f"127.0.0.2:{PORT}",
        f"0.0.0.0:{PORT}",
        f"localhost.:{PORT}",
        f"attacker.example:{PORT}",
        "attacker.example",
        f"127.0.0.1:{PORT}.attacker.example",
        "",
    ],
)
async def test_a_request_for_another_name_or_port_is_refused(host: str) -> None:
    assert await answer(host, None) == REFUSED_HOST


async def test_bound_to_another_loopback_address_it_answers_to_that_address_too() -> None:
    assert await answer(f"127.0.0.2:{PORT}", f"http://127.0.0.2:{PORT}", bound="127.0.0.2") == 200
    for name in ("127.0.0.1", "localhost", "[::1]"):  # and to loopback's names still
        assert await answer(f"{name}:{PORT}", f"http://{name}:{PORT}", bound="127.0.0.2") == 200
    assert await answer(f"[fe80::1]:{PORT}", f"http://[fe80::1]:{PORT}", bound="fe80::1") == 200
    assert await answer(f"[::1]:{PORT}", f"http://[::1]:{PORT}", bound="::1") == 200
    assert await answer(f"127.0.0.3:{PORT}", None, bound="127.0.0.2") == REFUSED_HOST


async def test_on_port_80_a_browser_leaves_the_port_out() -> None:
    assert await answer("localhost", "http://localhost", port=80) == 200
    assert await answer("localhost:80", "http://localhost:80", port=80) == 200
    assert await answer("localhost", "http://localhost") == REFUSED_HOST  # not on port 80
