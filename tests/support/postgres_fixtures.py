"""Fixtures for running tests on PostgreSQL as well as SQLite.

`postgres_server`: the server of this test process (tests/support/postgres.py), started
on first use; a test that needs it skips, saying why, where none can be started (under
CI it fails instead).

`dialect`: "sqlite" unless the test is parametrized over both, which a module (or a
test) asks for with the `both_dialects` mark: every test of it that uses a fixture
depending on `dialect` (world_db, tau2_fresh, …) then runs once per dialect, with ids
`[sqlite]` and `[postgres]`.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Iterator

import pytest

from tests.support.postgres import PostgresServer, ServerUnavailable, start_server

DIALECTS = ("sqlite", "postgres")

_server: PostgresServer | None = None
_server_problem: str | None = None
_lock = threading.Lock()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "both_dialects: run the test on SQLite and on a real PostgreSQL server"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "dialect" in metafunc.fixturenames and metafunc.definition.get_closest_marker(
        "both_dialects"
    ):
        metafunc.parametrize("dialect", DIALECTS, indirect=True)


def pytest_sessionfinish(session: pytest.Session) -> None:
    global _server
    _drops.join()
    if _server is not None:
        _server.stop()
        _server = None


def server() -> PostgresServer:
    """The process's server, started on first use; skips (or fails under CI) if none can."""
    global _server, _server_problem
    with _lock:
        if _server is None and _server_problem is None:
            try:
                _server = start_server()
            except ServerUnavailable as exc:
                _server_problem = str(exc)
    if _server is None:
        message = f"PostgreSQL tests need a server: {_server_problem}"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI must run them)", pytrace=False)
        pytest.skip(message)
    return _server


@pytest.fixture
def postgres_server() -> PostgresServer:
    return server()


@pytest.fixture
def dialect(request: pytest.FixtureRequest) -> str:
    return getattr(request, "param", "sqlite")


class _Drops:
    """Databases a test is done with, dropped in a thread so no test waits for it."""

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[PostgresServer, str]] = queue.Queue()
        self._thread: threading.Thread | None = None

    def forget(self) -> None:
        """A forked child (mutmut runs each mutant's tests in one) has no drop thread:
        without a fresh queue its `join` at the session's end would wait forever."""
        self._queue = queue.Queue()
        self._thread = None

    def put(self, owner: PostgresServer, url: str) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        self._queue.put((owner, url))

    def _run(self) -> None:
        while True:
            owner, url = self._queue.get()
            try:
                owner.drop(url)
            except Exception:
                pass  # the whole server goes at the end of the session anyway
            finally:
                self._queue.task_done()

    def join(self) -> None:
        if self._thread is not None:
            self._queue.join()


_drops = _Drops()
os.register_at_fork(after_in_child=_drops.forget)


def discard_later(owner: PostgresServer, url: str) -> None:
    _drops.put(owner, url)


@pytest.fixture
def scratch_postgres(postgres_server: PostgresServer) -> Iterator[str]:
    """The URL of a database name on the server that no database has yet (a test's
    `seed --db` target); dropped afterwards if the test made it."""
    url = postgres_server.url(postgres_server.new_name("scratch"))
    yield url
    discard_later(postgres_server, url)
