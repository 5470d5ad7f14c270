"""The TUI loads the tokenizer its sessions count prefixes with where it opens a stack, in
that thread: a session no longer loads it when built (`chat` shows its prompt without it),
and at a playback's first request, on the screen's loop, it would hold a key pressed then.
(The session's side: tests/unit/agent/test_tokenizer_loading.py.) Each opening, the
playback's and the live chat's, is pinned here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from airline_agent.agent.backends import ScriptedBackend
from airline_agent.agent.prefix import token_counter
from airline_agent.config import Settings
from airline_agent.scenarios import datasets
from airline_agent.scenarios.library import library_dir
from airline_agent.scenarios.loader import load_library
from airline_agent.tui.live_database import LiveDatabase
from airline_agent.tui.playback import Playback
from airline_agent.tui.status import Status


@pytest.fixture
def unloaded() -> Iterator[None]:
    token_counter.cache_clear()
    yield
    token_counter.cache_clear()


def test_opening_a_playback_loads_the_tokenizer(unloaded: None) -> None:
    scenario = next(iter(load_library(library_dir())))
    playback = Playback(Status(), scenario, default_clock="2024-05-15T15:00:00")
    try:
        assert token_counter.cache_info().currsize == 0
        playback.open()  # in the app, a worker thread
        assert token_counter.cache_info().currsize == 1
    finally:
        playback.close()


def test_opening_the_live_stack_loads_the_tokenizer(unloaded: None) -> None:
    copy, _ = datasets.fresh_copy("sample", "live")
    database = LiveDatabase(Settings(db=str(copy)), owner=1)
    try:
        assert token_counter.cache_info().currsize == 0
        stack = database.stack(customer=None, guard=True, backend=ScriptedBackend([]))
        assert token_counter.cache_info().currsize == 1
        stack.close()
    finally:
        database.database.close()
        datasets.discard(copy)
