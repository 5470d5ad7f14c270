"""How a cancelled turn ended, said by the front end that cancelled it.

A turn's events end with `TurnFinished`, but a turn cancelled from outside (esc in the
TUI, Ctrl-C in the chat, a replay at the point where a recording was cancelled) is an
async generator closed mid-way: it can yield nothing more. The front end then makes the
`TurnFinished` itself, with this one function, so that every front end, the recorder and
the transcript see the same event.
"""

from __future__ import annotations

from collections.abc import Iterable

from airline_agent.agent.events import (
    AgentEvent,
    RequestSent,
    TurnFinished,
    TurnStarted,
    UsageReported,
)
from airline_agent.agent.usage import Spend


def cancelled_turn(events: Iterable[AgentEvent]) -> TurnFinished:
    """`TurnFinished(reason="cancelled")` for the turn whose events these are: its number,
    and the usage and cost of its answered requests. A request cut off by the cancel
    reported nothing, yet a provider may bill for it: then, as when nothing was reported
    at all, the cost is unknown, not $0."""
    number = 0
    turn_events: list[AgentEvent] = []
    for event in events:
        if isinstance(event, TurnStarted):
            number, turn_events = event.turn, []
        turn_events.append(event)
    spend = Spend.of(turn_events)
    sent = sum(isinstance(event, RequestSent) for event in turn_events)
    reported = sum(isinstance(event, UsageReported) for event in turn_events)
    cost = None if reported == 0 or sent > reported else spend.cost
    return TurnFinished(number, "cancelled", spend.usage, cost)
