"""How a cancelled turn ended, said by the front end that cancelled it.

A turn's events end with `TurnFinished`, but a turn cancelled from outside (esc in the
TUI, Ctrl-C in the chat, a replay at the point where a recording was cancelled) is an
async generator closed mid-way: it can yield nothing more. The front end then makes the
`TurnFinished` itself, with this one function, so that every front end, the recorder and
the transcript see the same event.
"""

from __future__ import annotations

from collections.abc import Iterable

from airline_agent.agent.events import AgentEvent, TurnFinished, TurnStarted, Usage, UsageReported
from airline_agent.agent.usage import add_cost


def cancelled_turn(events: Iterable[AgentEvent]) -> TurnFinished:
    """`TurnFinished(reason="cancelled")` for the turn whose events these are: its number,
    and the usage and cost of its answered requests (one cut off by the cancel reported
    nothing; a request without usage makes the cost unknown)."""
    number, usage, cost, answered = 0, Usage(), None, 0
    for event in events:
        if isinstance(event, TurnStarted):
            number, usage, cost, answered = event.turn, Usage(), None, 0
        elif isinstance(event, UsageReported):
            usage = usage + (event.usage or Usage())
            cost = add_cost(cost, event.cost, first=answered == 0)
            answered += 1
    return TurnFinished(number, "cancelled", usage, cost)
