"""The fixtures any test may ask for, wherever its file lives (registered in
tests/conftest.py): a Chat Completions server on 127.0.0.1 (and a Responses API one), the
sample and τ² databases,
each built once for the whole run and copied per test, and the shipped scenario library
replayed once per worker."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

from airline_agent.domain.db import Database
from tests.conftest import tau2_files
from tests.support.chat_server import ChatServer
from tests.support.loopback import close_loopback_backends
from tests.support.postgres_fixtures import discard_later
from tests.support.postgres_fixtures import server as postgres_server
from tests.support.responses_server import ResponsesServer
from tests.support.shared_build import built_once

if TYPE_CHECKING:
    from airline_agent.scenarios.runner import ScenarioReport

# The tests that read the library's replay, kept on one pytest-xdist worker so that it is
# replayed once (`pytestmark = SHIPPED_LIBRARY`, or the mark on a test).
SHIPPED_LIBRARY = pytest.mark.xdist_group("shipped-library")


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A loopback Chat Completions server; queue replies, read `requests` afterwards."""
    server = ChatServer()
    yield server
    server.close()


@pytest.fixture
def responses_server() -> Iterator[ResponsesServer]:
    """A loopback Responses API server (POST …/v1/responses), as `chat_server`."""
    server = ResponsesServer()
    yield server
    server.close()


@pytest.fixture
async def closing_loopback_backends() -> AsyncIterator[None]:
    """After the test, in its own event loop: every `loopback_backend` it made is closed."""
    yield
    await close_loopback_backends()


@pytest.fixture(scope="session")
def sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample database, built once for the run (all workers); never written to."""
    from airline_agent.domain.provisioning import build_database

    return built_once(tmp_path_factory, "sample.db", lambda path: build_database(path).close())


@pytest.fixture
def db(sample_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the sample database for one test."""
    copy = tmp_path / "airline.db"
    shutil.copy(sample_template, copy)
    return copy


class Tau2Reference(NamedTuple):
    """The τ² data imported once: the database file (never written to), db.json as plain
    dicts (for the oracle) and the tasks."""

    path: Path
    initial: dict[str, Any]
    tasks: list[dict[str, Any]]

    @staticmethod
    def copy_path(tmp_path: Path) -> Path:
        """Where `fresh` puts the copy."""
        return tmp_path / "task.db"

    def fresh(self, tmp_path: Path) -> Database:
        """A copy of the imported database for one run (the caller closes it)."""
        copy = self.copy_path(tmp_path)
        for suffix in ("-wal", "-shm"):
            Path(f"{copy}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(self.path, copy)
        return Database.open(copy)


@pytest.fixture(scope="session")
def tau2_reference(tmp_path_factory: pytest.TempPathFactory) -> Tau2Reference:
    """The τ² reference data, imported once for the run (all workers); skips when it is
    absent."""
    from airline_agent.domain.tau2 import import_tau2

    db_json, tasks_json = tau2_files()

    def build(path: Path) -> None:
        database = Database.create(path)
        import_tau2(database, db_json)
        database.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)

    path = built_once(tmp_path_factory, "tau2.db", build)
    return Tau2Reference(path, json.loads(db_json.read_text()), json.loads(tasks_json.read_text()))


@pytest.fixture
def tau2_fresh(
    tau2_reference: Tau2Reference, dialect: str, tmp_path: Path
) -> Iterator[Callable[[], Database]]:
    """`fresh()`: a new copy of the imported τ² database on the test's dialect (a file
    under tmp_path, or a TEMPLATE copy on the PostgreSQL server), closed afterwards."""
    opened: list[Database] = []
    if dialect == "postgres":
        owner = postgres_server()

        def build(url: str) -> None:
            from airline_agent.domain.tau2 import import_tau2

            database = Database.create(url)
            import_tau2(database, tau2_files()[0])
            database.close()

        template = owner.template("tau2", build)

        def fresh() -> Database:
            database = Database.open(owner.copy_of(template))
            opened.append(database)
            return database
    else:
        count = iter(range(1_000_000))

        def fresh() -> Database:
            copy = tmp_path / f"task-{next(count)}.db"
            shutil.copyfile(tau2_reference.path, copy)
            database = Database.open(copy)
            opened.append(database)
            return database

    yield fresh
    for database in opened:
        database.close()
        if dialect == "postgres":
            discard_later(owner, str(database.engine.url.render_as_string(hide_password=False)))


@pytest.fixture(scope="session")
def shipped_library_reports() -> list[ScenarioReport]:
    """Every shipped scenario (data/scenarios), replayed once, events kept; the library
    loads without an error."""
    from airline_agent.scenarios.library import library_dir
    from airline_agent.scenarios.loader import ScenarioLoadError, load_library
    from airline_agent.scenarios.model import Scenario
    from airline_agent.scenarios.runner import replay_scenario

    loaded = load_library(library_dir())
    errors = [str(item) for item in loaded if isinstance(item, ScenarioLoadError)]
    assert not errors
    return [replay_scenario(item) for item in loaded if isinstance(item, Scenario)]
