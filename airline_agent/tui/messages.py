"""Messages the workers post to the screen (the UI never updates from inside a worker)."""

from __future__ import annotations

from dataclasses import replace

from textual.message import Message

from airline_agent.agent.events import AgentEvent, ReasoningDelta, TextDelta


def coalesce_deltas(events: list[AgentEvent]) -> list[AgentEvent]:
    """Adjacent text (or reasoning) deltas of one request joined into one, so the chat
    appends once per batch instead of once per token."""
    joined: list[AgentEvent] = []
    for event in events:
        last = joined[-1] if joined else None
        if (
            isinstance(event, TextDelta | ReasoningDelta)
            and type(last) is type(event)
            and last.request == event.request  # type: ignore[union-attr]
        ):
            joined[-1] = replace(last, text=last.text + event.text)  # type: ignore[arg-type]
        else:
            joined.append(event)
    return joined


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
