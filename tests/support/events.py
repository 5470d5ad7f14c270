"""Helpers for tests that run the loop: collect a turn's events, pick them by type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from airline_agent.agent.events import AgentEvent, ApprovalRequested

T = TypeVar("T")


async def run_turn(
    session: Any,
    text: str,
    *,
    approve: Callable[[ApprovalRequested], dict[str, bool] | bool] | None = None,
) -> list[AgentEvent]:
    """All events of one turn; approval requests are answered by `approve` (default: no)."""
    events: list[AgentEvent] = []
    async for event in session.run_turn(text):
        events.append(event)
        if isinstance(event, ApprovalRequested):
            event.decide(approve(event) if approve else False)
    return events


def of_type(events: list[AgentEvent], kind: type[T]) -> list[T]:
    return [event for event in events if isinstance(event, kind)]
