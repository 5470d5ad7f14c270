"""The real `airline-agent` command, with an isolated environment: in this process
(`invoke_cli`: the typer app, as `python -m airline_agent` builds it) or in a child process
(`run_cli`, `run_cli_bytes`).

A child process costs two to four seconds of CPU, nearly all of it imports (openai,
sqlmodel, the tools); in this process they are paid once per test worker. Use a child
process where the process is what the test is about: a signal, the locale or encoding of a
real stdin/stdout, a terminal, bytes that are not text, the exit status of the real entry
point, what a fresh interpreter imports. Every command keeps at least one such test.
"""

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


def invoke_cli(
    *args: str,
    stdin: str = "",
    server: ChatServer | None = None,
    model: str | None = "gpt-4o-mini",
    **extra_env: str,
) -> subprocess.CompletedProcess[str]:
    """`airline-agent ARGS` run by typer's CliRunner in this process, with the environment
    `run_cli` would give the child (for the call only); what it prints and its exit status
    as a CompletedProcess. An exception the command lets out fails the test (a child would
    have printed a traceback)."""
    from typer.testing import CliRunner

    from airline_agent.cli import build_app

    wanted = cli_env(server, model=model, **extra_env)
    overrides: dict[str, str | None] = {name: None for name in os.environ if name not in wanted}
    overrides |= {name: value for name, value in wanted.items() if os.environ.get(name) != value}
    result = CliRunner().invoke(
        build_app(), list(args), input=stdin, env=overrides, catch_exceptions=False
    )
    return subprocess.CompletedProcess(
        ["airline-agent", *args], result.exit_code, result.stdout, result.stderr
    )


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
