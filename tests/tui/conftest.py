"""Fixtures for the TUI tests: a Chat Completions server on 127.0.0.1 for live sessions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.chat_server import ChatServer


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A loopback Chat Completions server; queue replies, read `requests` afterwards."""
    server = ChatServer()
    yield server
    server.close()
