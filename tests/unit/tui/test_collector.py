"""The TUI's garbage-collector settings (tui/collector.py)."""

from __future__ import annotations

import gc

import pytest

from airline_agent.tui import collector


def test_the_startup_heap_is_frozen_once_without_counting_it(monkeypatch) -> None:
    """`gc.get_freeze_count()` walks every frozen object (over 100,000 after the first
    screen): asked at every turn's start, it stalled each turn by tens of milliseconds."""
    frozen: list[bool] = []
    monkeypatch.setattr(collector, "_frozen", False)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    monkeypatch.setattr(gc, "collect", lambda *args: 0)

    def counted() -> int:
        raise AssertionError("the frozen heap was counted")

    monkeypatch.setattr(gc, "get_freeze_count", counted)
    for _ in range(3):
        collector.freeze_startup_heap()
    assert frozen == [True]


def test_full_collections_wait_while_a_turn_is_shown_and_resume_after(monkeypatch) -> None:
    # From the usual thresholds, nothing deferred: an app test closed in the middle of a
    # turn, earlier in this worker, leaves full collections deferred.
    monkeypatch.setattr(collector, "_saved_threshold", None)
    gc.set_threshold(700, 10, 10)
    before = gc.get_threshold()
    try:
        collector.defer_full_collections()
        collector.defer_full_collections()  # twice: the saved thresholds stay the first
        assert gc.get_threshold()[:2] == before[:2]
        assert gc.get_threshold()[2] == collector._NEVER
        collector.resume_full_collections()
        assert gc.get_threshold() == before
    finally:
        gc.set_threshold(*before)


@pytest.fixture(autouse=True)
def _restore_threshold():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)
