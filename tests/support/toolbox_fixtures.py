"""A fresh copy of the small world database for each test (built once per run)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from airline_agent.domain.clock import Clock
from airline_agent.domain.db import Database
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import ToolOutcome
from airline_agent.tools.toolbox import Toolbox
from tests.support.postgres_fixtures import discard_later
from tests.support.postgres_fixtures import server as postgres_server
from tests.support.shared_build import built_once
from tests.support.world import CLOCK, make_world_db


@pytest.fixture(scope="session")
def world_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The last connection closing folds the WAL in.
    return built_once(tmp_path_factory, "world.db", lambda path: make_world_db(path).close())


@pytest.fixture
def world_db(dialect: str, world_template: Path, tmp_path: Path) -> Iterator[Database]:
    """A fresh copy of the small world, on SQLite (a file) or on PostgreSQL (a TEMPLATE
    copy of the world built once on the test process's server), by `dialect`."""
    if dialect == "postgres":
        owner = postgres_server()
        template = owner.template("world", lambda url: make_world_db(url).close())
        url = owner.copy_of(template)
        database = Database.open(url)
        yield database
        database.close()
        discard_later(owner, url)
        return
    path = tmp_path / "world.db"
    for suffix in ("", "-wal"):
        if Path(f"{world_template}{suffix}").exists():
            shutil.copyfile(f"{world_template}{suffix}", f"{path}{suffix}")
    database = Database.open(path)
    yield database
    database.close()


class Tools:
    """The real toolbox and one conversation: `call` and `preview` as a chat would."""

    def __init__(self, toolbox: Toolbox, conversation: ToolConversation) -> None:
        self.toolbox = toolbox
        self.conversation = conversation
        self.database = toolbox.database

    def call(self, name: str, arguments: str | dict | None) -> ToolOutcome:
        return self.toolbox.call(name, arguments, self.conversation)

    def preview(self, name: str, arguments: dict) -> str:
        return self.toolbox.preview(name, arguments, self.conversation)

    def schemas(self) -> list[dict]:
        return self.toolbox.schemas()

    def names(self) -> list[str]:
        return self.toolbox.names()

    def is_write(self, name: str) -> bool:
        return self.toolbox.is_write(name)

    @property
    def guard(self) -> bool:
        return self.toolbox.guard

    @guard.setter
    def guard(self, on: bool) -> None:
        self.toolbox.guard = on


def toolbox(
    database: Database,
    *,
    guard: bool = True,
    acting_user: str | None = None,
    clock: Clock = CLOCK,
) -> Tools:
    """The tools acting for `acting_user` (a `call --as`), in a conversation of their own."""
    tools = Toolbox(database, clock=clock, guard=guard)
    return Tools(tools, ToolConversation(customer=acting_user))
