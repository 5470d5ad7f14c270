"""Python's cyclic garbage collector, kept out of the way of a conversation being shown.

A full collection walks every object the process holds; with Textual, Rich and a long
conversation that is a few hundred thousand objects and a 100-400 ms pause, which came
every few seconds while a long scenario played, and no key was answered meanwhile.
Almost everything dies by reference counting, so full collections can wait: Textual
pauses the collector during smooth scrolling for the same reason (PAUSE_GC_ON_SCROLL).
Young collections (generations 0 and 1, a few milliseconds) keep running.
"""

from __future__ import annotations

import gc

_NEVER = 1_000_000  # young collections before a full one: never, in practice
_saved_threshold: tuple[int, int, int] | None = None
_frozen = False


def freeze_startup_heap() -> None:
    """Once: what the imports and the first screen created (over 100,000 objects that
    live as long as the process) is left out of every later full collection."""
    global _frozen
    # A flag, not gc.get_freeze_count(): that counts the frozen objects one by one, a
    # pause of tens of milliseconds at the start of every turn.
    if not _frozen:
        _frozen = True
        gc.collect()
        gc.freeze()


def defer_full_collections() -> None:
    """While a turn is being shown: only young collections."""
    global _saved_threshold
    if _saved_threshold is None:
        _saved_threshold = gc.get_threshold()
        young, middle, _ = _saved_threshold
        gc.set_threshold(young, middle, _NEVER)


def resume_full_collections() -> None:
    """The conversation is at rest: the usual thresholds again (the next full collection
    comes when Python's own rule says so)."""
    global _saved_threshold
    if _saved_threshold is not None:
        gc.set_threshold(*_saved_threshold)
        _saved_threshold = None
