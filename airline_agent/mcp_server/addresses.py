"""Where `mcp --http` listens: `[HOST:]PORT` read, and what serving beyond loopback means.

Only the standard library: `airline-agent mcp` reads `--http` before it loads the server.
"""

from __future__ import annotations

import ipaddress

LOOPBACK = "127.0.0.1"


def parse_listen(text: str) -> tuple[str, int]:
    """`PORT`, `HOST:PORT` or `[IPV6]:PORT` → (host, port); ValueError says what is wrong."""
    host, _, port_text = text.rpartition(":")
    host = host.strip("[]") or LOOPBACK
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"{text!r} is not [HOST:]PORT (e.g. 8000 or 127.0.0.1:8000)") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"port {port} is not between 0 and 65535")
    return host, port


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, port: int, customer: str | None) -> str:
    who = f"as {customer}" if customer else "as any customer (the first one it looks up)"
    return (
        f"warning: {host} is not a loopback address: anyone who can reach port {port} of this "
        f"machine can act {who}, read their profile and reservations and, as approvals allow, "
        "book, change and cancel. There is no login. Serve on 127.0.0.1 (the default) unless "
        "you trust everyone who can reach it."
    )
