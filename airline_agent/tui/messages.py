"""Messages the workers post to the screen (the UI never updates from inside a worker)."""

from __future__ import annotations

from textual.message import Message

from airline_agent.agent.events import AgentEvent


class AgentEventArrived(Message):
    def __init__(self, event: AgentEvent) -> None:
        super().__init__()
        self.event = event


class TurnEnded(Message):
    """The turn's worker stopped: finished, failed, or cancelled (`how`)."""

    def __init__(self, how: str, detail: str = "") -> None:
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
