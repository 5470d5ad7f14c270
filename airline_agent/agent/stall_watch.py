"""Silence while a request waits: the backend's pieces, with a `Silence` each time nothing
has come for a while, so that the loop can say a stream stalled while it is stalled.

The backend's iterator runs in a task of its own that puts each piece in a queue; the
watch awaits the queue with a timeout. So the iterator (and the HTTP stream under it)
lives in one task from its first piece to its close, and the watch can give up waiting
without touching it. Cancelling the watch cancels the task, which closes the stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TypeVar

Item = TypeVar("Item")


@dataclass(frozen=True)
class Silence:
    """Nothing came for `seconds` (counted from the last piece, or the start)."""

    seconds: float


def watched(source: AsyncIterator[Item], notice_s: float | None) -> AsyncIterator[Item | Silence]:
    """`source`'s items in order, a `Silence` after each `notice_s` seconds without one;
    `source`'s exception, if it raises, after the items before it. `None`: no watch (the
    source itself, not one more generator around it)."""
    return source if notice_s is None else _watching(source, notice_s)


async def _watching(source: AsyncIterator[Item], notice_s: float) -> AsyncIterator[Item | Silence]:
    queue: asyncio.Queue[tuple[Item | None, BaseException | None, bool]] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for item in source:
                queue.put_nowait((item, None, False))
        except asyncio.CancelledError:
            raise  # the watch cancelled it: nobody reads the queue any more
        except BaseException as error:  # handed to the watch, which raises it where read
            queue.put_nowait((None, error, True))
        else:
            queue.put_nowait((None, None, True))

    task = asyncio.ensure_future(pump())
    silent = 0.0
    try:
        while True:
            if queue.empty():
                try:
                    async with asyncio.timeout(notice_s):
                        entry = await queue.get()
                except TimeoutError:
                    silent += notice_s
                    yield Silence(silent)
                    continue
            else:
                entry = queue.get_nowait()
            item, error, ended = entry
            silent = 0.0
            if error is not None:
                raise error
            if ended:
                return
            yield item  # type: ignore[misc]
    finally:
        if not task.done():
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
