"""`airline-agent mcp` as a real subprocess, reached with the official `mcp` client:
stdio (the SDK's stdio client starts the server) or streamable HTTP on a free loopback
port (the server says which on stderr)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SERVING = re.compile(r"at (http://127\.0\.0\.1:\d+/mcp)")
DEADLINE = 60.0  # seconds; generous, for a machine whose cores are all busy


def server_command(db: Path | str, *options: str) -> list[str]:
    return [sys.executable, "-m", "airline_agent", "mcp", "--db", str(db), *options]


def stdio_target(db: Path, *options: str) -> Any:
    from mcp.client.stdio import StdioServerParameters

    command = server_command(db, *options)
    return StdioServerParameters(
        command=command[0], args=command[1:], env=dict(os.environ), cwd=str(db.parent)
    )


class HttpServer:
    def __init__(self, process: subprocess.Popen[str], url: str, log: list[str]) -> None:
        self.process = process
        self.url = url
        self.log = log  # the server's stderr lines, as they come

    def wait_for_line(self, fragment: str) -> str:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            for line in list(self.log):
                if fragment in line:
                    return line
            time.sleep(0.05)
        raise AssertionError(f"no {fragment!r} from the server; it said: {self.log}")


@contextmanager
def http_server(db: Path | str, *options: str, cwd: Path | None = None) -> Iterator[HttpServer]:
    """A server on a database file (run in its folder) or URL (run in `cwd`)."""
    process = subprocess.Popen(
        server_command(db, "--http", "127.0.0.1:0", *options),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd or Path(db).parent,
    )
    log: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line.rstrip("\n"))
            if SERVING.search(line):
                found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        if not found.wait(DEADLINE):
            raise AssertionError(f"the server did not start: {log}")
        url = next(m.group(1) for line in log if (m := SERVING.search(line)))
        yield HttpServer(process, url, log)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(DEADLINE)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        reader.join(5)
