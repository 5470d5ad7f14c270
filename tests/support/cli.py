"""The real `airline-agent` command in a child process, with an isolated environment."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.chat_server import ChatServer


def cli_env(
    server: ChatServer | None = None, *, model: str | None = "gpt-4o-mini", **extra: str
) -> dict[str, str]:
    """This process's environment without any OPENAI_* / AIRLINE_AGENT_* of the machine."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AIRLINE_AGENT_"))}
    if model is not None:
        env["AIRLINE_AGENT_MODEL"] = model
    if server is not None:
        env["OPENAI_BASE_URL"] = server.url
    return env | extra


def run_cli(
    *args: str,
    stdin: str = "",
    server: ChatServer | None = None,
    model: str | None = "gpt-4o-mini",
    timeout: float = 120,
    **extra_env: str,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "airline_agent", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=cli_env(server, model=model, **extra_env),
        timeout=timeout,
    )


def run_cli_bytes(
    *args: str,
    stdin: bytes = b"",
    server: ChatServer | None = None,
    model: str | None = "gpt-4o-mini",
    timeout: float = 120,
    **extra_env: str,
) -> subprocess.CompletedProcess[bytes]:
    """The same with bytes in and out: input that is not text, output in any encoding."""
    return subprocess.run(
        [sys.executable, "-m", "airline_agent", *args],
        input=stdin,
        capture_output=True,
        env=cli_env(server, model=model, **extra_env),
        timeout=timeout,
    )
