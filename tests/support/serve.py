"""`airline-agent serve` in a child process on a free port: its URL, what it prints, and
the app processes it runs (one per browser tab), counted from /proc."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tests.support.cli import cli_env

SERVING = re.compile(r"serving the TUI at (\S+)")
LISTENING = re.compile(r"listening on (\S+)")


class ServeProcess:
    """The real command, started on port 0 (any free port: safe beside other workers)."""

    def __init__(
        self, *args: str, model: str | None = None, timeout: float = 60, **extra_env: str
    ) -> None:
        argv = [sys.executable, "-m", "airline_agent", "serve", "--port", "0", *args]
        # In a folder of its own: no `.env` of the developer's reaches it or its tabs.
        self.folder = tempfile.TemporaryDirectory(prefix="serve-test-")
        self.process = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(model=model, **extra_env),
            cwd=self.folder.name,
        )
        self.ending = ""  # how serve ended, once stop() has seen it
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._readers = [
            threading.Thread(target=_collect, args=(self.process.stdout, self.stdout), daemon=True),
            threading.Thread(target=_collect, args=(self.process.stderr, self.stderr), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self.url = self._wait_for_url(timeout)  # what browsers are told to use
        listening = LISTENING.search(self.output)  # printed when that is a proxy's URL
        self.local_url = listening.group(1) if listening else self.url

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def output(self) -> str:
        return "".join(self.stdout) + "".join(self.stderr)

    def _wait_for_url(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.stdout):
                if found := SERVING.search(line):
                    return found.group(1)
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"serve did not start; it printed:\n{self.output}")

    def app_processes(self) -> set[int]:
        """The server's child processes: the tabs' apps (a zombie counts: not yet reaped)."""
        return child_processes(self.pid)

    def wait_for_apps(self, condition, timeout: float = 60, what: str = "") -> set[int]:
        """Wait until the set of app processes satisfies `condition`; returns it."""
        deadline = time.monotonic() + timeout
        while True:
            apps = self.app_processes()
            if condition(apps):
                return apps
            if time.monotonic() > deadline:
                raise AssertionError(f"app processes {sorted(apps)}: not {what}\n{self.output}")
            time.sleep(0.05)

    def wait_for_output(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not printed; serve printed:\n{self.output}")
            time.sleep(0.05)

    def stop(self, timeout: float = 30) -> int:
        """ctrl+c, as a person stops it; its exit status (-9: still running `timeout`
        seconds after ctrl+c, it was killed; `report` then says so, with its apps)."""
        if self.process.poll() is not None:
            self.ending = self.ending or f"serve exited with {self.process.returncode} by itself"
        else:
            started = time.monotonic()
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                apps = sorted(self.app_processes())
                self.process.kill()
                self.process.wait(timeout)
                self.ending = f"serve still ran {timeout:g} s after ctrl+c (apps {apps}): killed"
            else:
                took = time.monotonic() - started
                self.ending = (
                    f"serve exited with {self.process.returncode} {took:.1f} s after ctrl+c"
                )
        for reader in self._readers:
            reader.join(timeout)
        self.folder.cleanup()
        return self.process.returncode

    @property
    def report(self) -> str:
        """How serve ended and what it printed: what a failed assertion about it shows."""
        return f"{self.ending}; it printed:\n{self.output}"


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not {what} within {timeout} s")
        time.sleep(0.05)


def _collect(stream, lines: list[str]) -> None:
    for line in stream:
        lines.append(line)


def child_processes(parent: int) -> set[int]:
    """Processes whose parent is `parent`, from /proc (Linux)."""
    children = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        # pid (comm) state ppid …: comm may hold spaces and parentheses
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == parent:
            children.add(int(entry.name))
    return children


def process_environment(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {key.decode(): value.decode() for key, value in pairs}


def running_on_linux() -> bool:
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self")
