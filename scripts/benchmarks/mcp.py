"""One tool call through `airline-agent mcp`, over stdio and over streamable HTTP, with the
official `mcp` client, beside the same call made in process through `Toolbox.call` in the
same run.

The call: `get_reservation_details` of EHGLP3 on the sample database, in a session bound
to its customer (`--as`). Each transport's server is started once and the session opened
once (start-up and the session's database copy are not in the figures); the timed part is
`call_tool` returning. The ratio is the protocol's cost (JSON-RPC framing, the transport,
the SDK's validation, the worker thread) over the call itself. No target: a figure to know.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import Row, Timing, measure, timing

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CUSTOMER = "emma_kim_9957"
ARGUMENTS = {"reservation_id": "EHGLP3"}


def run(*, quick: bool = False) -> list[Row]:
    import anyio

    from airline_agent.config import Settings
    from airline_agent.stack import open_database, session_tool_caller
    from tests.support.mcp_servers import http_server, stdio_target

    runs = 50 if quick else 300
    folder = Path(tempfile.mkdtemp(prefix="bench-mcp-"))
    try:
        db = folder / "airline.db"
        database = open_database(db, build_if_missing=True)  # the default sample, built here
        caller = session_tool_caller(database, Settings(), customer=CUSTOMER)
        in_process = measure(lambda: caller.call("get_reservation_details", ARGUMENTS), runs=runs)
        database.close()
        stdio = anyio.run(_over, stdio_target(db, "--as", CUSTOMER), runs)
        with http_server(db, "--as", CUSTOMER) as server:
            http = anyio.run(_over, server.url, runs)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return [
        Row("mcp", "get_reservation_details over MCP stdio", stdio, "in process", in_process),
        Row("mcp", "get_reservation_details over MCP HTTP", http, "in process", in_process),
    ]


async def _over(target: object, runs: int) -> Timing:
    from mcp import Client

    async with Client(target) as client:  # type: ignore[arg-type]
        for _ in range(5):
            await client.call_tool("get_reservation_details", ARGUMENTS)
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            result = await client.call_tool("get_reservation_details", ARGUMENTS)
            samples.append((time.perf_counter() - start) * 1000)
            assert not result.is_error, result
    return timing(samples)
