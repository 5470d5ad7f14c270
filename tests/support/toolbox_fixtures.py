"""A fresh copy of the small world database for each test (built once per session)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from airline_agent.domain.db import Database
from airline_agent.tools.toolbox import Toolbox
from tests.support.world import CLOCK, make_world_db


@pytest.fixture(scope="session")
def world_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("world") / "world.db"
    make_world_db(path).close()  # the last connection closing folds the WAL in
    return path


@pytest.fixture
def world_db(world_template: Path, tmp_path: Path) -> Database:
    path = tmp_path / "world.db"
    for suffix in ("", "-wal"):
        if Path(f"{world_template}{suffix}").exists():
            shutil.copyfile(f"{world_template}{suffix}", f"{path}{suffix}")
    database = Database.open(path)
    yield database
    database.close()


def toolbox(database: Database, *, guard: bool = True, acting_user: str | None = None) -> Toolbox:
    return Toolbox(database, clock=CLOCK, guard=guard, acting_user=acting_user)
