"""Ctrl-C in the chat: at the prompt it ends the chat; while the agent works (an approval
question included) it cancels just that turn, as esc does in the TUI.

The signal is handled on the event loop's thread (`loop.add_signal_handler`), between two
steps of the loop, never in the middle of one: whatever the chat is awaiting then — the
next line at the prompt, the model, a tool, the answer to an approval question — is the
task Ctrl-C cancels. Nothing blocks that thread (input is read in a thread of its own,
see `lines`), so the cancellation always runs.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

Result = TypeVar("Result")
Phase = Literal["idle", "prompt", "turn", "closing"]


class Interrupts:
    """What Ctrl-C means now, and the task it cancels."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._phase: Phase = "idle"
        self._task: asyncio.Future[Any] | None = None
        self._previous: Callable[..., object] | int | None = None
        self._installed = False
        self.turn_cancelled = False  # the running turn was cancelled by Ctrl-C
        self.ended = False  # Ctrl-C asked to end the chat

    def install(self) -> None:
        """Take Ctrl-C over (signals reach the main thread only: a chat run by a test in
        another thread keeps Python's own handling)."""
        if threading.current_thread() is not threading.main_thread():
            return
        self._previous = signal.getsignal(signal.SIGINT)
        self._loop.add_signal_handler(signal.SIGINT, self._pressed)
        self._installed = True

    def closing(self) -> None:
        """The chat is saving and closing: Ctrl-C now changes nothing."""
        self._phase = "closing"

    def uninstall(self) -> None:
        if self._installed:
            self._loop.remove_signal_handler(signal.SIGINT)
            if self._previous is not None:
                signal.signal(signal.SIGINT, self._previous)  # asyncio.run's own, say
            self._installed = False

    async def prompt(self, waiting: Awaitable[Result]) -> Result | None:
        """What `waiting` gives (the next line), or None when Ctrl-C ends the chat first."""
        if self.ended:
            if asyncio.iscoroutine(waiting):
                waiting.close()  # never awaited: say so to Python, quietly
            return None
        result = await self._run("prompt", waiting)
        return None if self.ended else result

    async def turn(self, playing: Awaitable[Result]) -> Result | None:
        """What the turn gives, or None when Ctrl-C cancelled it."""
        self.turn_cancelled = False
        return await self._run("turn", playing)

    async def _run(self, phase: Phase, work: Awaitable[Result]) -> Result | None:
        task = asyncio.ensure_future(work)
        self._phase, self._task = phase, task
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if task.cancelled() and not (current is not None and current.cancelling()):
                return None  # cancelled by Ctrl-C, not the chat itself being stopped
            raise
        finally:
            self._phase, self._task = "idle", None

    def _pressed(self) -> None:
        task = self._task
        if self._phase == "prompt" and task is not None:
            self.ended = True
            task.cancel()
        elif self._phase == "turn" and task is not None and not self.turn_cancelled:
            self.turn_cancelled = True
            task.cancel()
        elif self._phase in ("turn", "idle"):
            # Again while the turn winds down (its history is being settled), or between
            # two steps: the chat ends at the next prompt.
            self.ended = True
