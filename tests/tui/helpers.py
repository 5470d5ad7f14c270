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


async def wait_until_steady(
    pilot: Pilot, predicate: Callable[[], object], checks: int = 3, timeout: float = 10.0
) -> None:
    """`wait_until(predicate)`, then until it has held at `checks` looks in a row, a few
    screen refreshes apart: for what Textual lays out again after a refresh (a footer
    recomposes its keys when the focus moves, and is empty while it does)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    held = 0
    while held < checks:
        held = held + 1 if predicate() else 0
        if loop.time() > deadline:
            raise AssertionError(
                f"timed out waiting for {getattr(predicate, '__name__', predicate)} to hold"
            )
        await pilot.pause(0.05)
    await pilot.pause()


def library_shown(app: App) -> bool:
    """The scenario picker is up and has read the library (it loads in a worker)."""
    from airline_agent.tui.screens.picker import ScenarioPicker

    return isinstance(app.screen, ScenarioPicker) and app.screen.loaded


async def close_the_library(pilot: Pilot) -> None:
    """Offline, the app opens on the scenario library: wait for it, then close it (esc)."""
    await wait_until(pilot, lambda: library_shown(pilot.app))
    await pilot.press("escape")


def screen_lines(app: App) -> list[str]:
    """What the terminal shows, line by line (the compositor's strips as text)."""
    return [
        "".join(segment.text for segment in strip)
        for strip in app.screen._compositor.render_strips()
    ]


def shown_in(app: App, widget: object) -> list[str]:
    """The lines of the screen inside `widget`'s region (its border included)."""
    region = widget.region  # type: ignore[attr-defined]
    return [line[region.x : region.right] for line in screen_lines(app)[region.y : region.bottom]]


def chat_notes(app: App) -> list[str]:
    """The notes above the chat's conversation (what a chosen scenario set)."""
    from airline_agent.tui.widgets.chat_pane import ChatPane

    return app.screen_stack[0].query_one(ChatPane).notes()
