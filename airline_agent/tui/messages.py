"""Messages the workers post to the screen (the UI never updates from inside a worker)."""

from __future__ import annotations

from typing import Literal

from textual.message import Message

TurnOutcome = Literal["finished", "failed", "cancelled"]


class TurnEnded(Message):
    """The turn's worker stopped: finished, failed, or cancelled (`how`)."""

    def __init__(self, how: TurnOutcome, detail: str = "") -> None:
        super().__init__()
        self.how = how
        self.detail = detail


class SeedingProgress(Message):
    """Posted from the seeding thread (post_message is thread-safe)."""

    def __init__(self, stage: str, done: int, total: int) -> None:
        super().__init__()
        self.stage = stage
        self.done = done
        self.total = total
