"""Fixtures for integration tests: a Chat Completions server on 127.0.0.1, sample databases."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.chat_server import ChatServer


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A loopback Chat Completions server; queue replies, read `requests` afterwards."""
    server = ChatServer()
    yield server
    server.close()


@pytest.fixture(scope="session")
def sample_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample database, built once for the session; never written to."""
    from airline_agent.domain.seed import build_database

    path = tmp_path_factory.mktemp("sample") / "sample.db"
    build_database(path).close()
    return path


@pytest.fixture
def db(sample_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the sample database for one test."""
    copy = tmp_path / "airline.db"
    shutil.copy(sample_template, copy)
    return copy
