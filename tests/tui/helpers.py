"""Waiting for the UI without bare sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.app import App
from textual.pilot import Pilot


async def wait_until(pilot: Pilot, predicate: Callable[[], object], timeout: float = 10.0) -> None:
    """Let the app run until `predicate()` is true; fail with the predicate's name if not."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(
                f"timed out waiting for {getattr(predicate, '__name__', predicate)}"
            )
        await pilot.pause(0.02)
    await pilot.pause()


def library_shown(app: App) -> bool:
    """The scenario picker is up and has read the library (it loads in a worker)."""
    from airline_agent.tui.screens.picker import ScenarioPicker

    return isinstance(app.screen, ScenarioPicker) and app.screen.loaded


async def close_the_library(pilot: Pilot) -> None:
    """Offline, the app opens on the scenario library: wait for it, then close it (esc)."""
    await wait_until(pilot, lambda: library_shown(pilot.app))
    await pilot.press("escape")
