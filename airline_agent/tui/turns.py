"""A feed's turn as the screen shows it: the code of `Feed` that matches on the agent's
events (tui/feed.py keeps what the first screen needs: its facts, its holds, its
conversation). Loaded with what shows a feed's events (screens/later.py), not with the
first screen.

A hold is kept on the feed (`feed.held`) until a key lets it go on; a turn cancelled
before its end is recorded as a `TurnFinished(reason="cancelled")`, the one record of it
the screen, the recorder and the transcript all read.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from airline_agent.agent import edits
from airline_agent.agent.cancelled import cancelled_turn
from airline_agent.agent.debugger_errors import EditRefused
from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    CustomerBound,
    Held,
    RequestHeld,
    ToolCallHeld,
    ToolFinished,
    ToolStarted,
    TurnEndHeld,
    TurnFinished,
    TurnStarted,
)

if TYPE_CHECKING:
    from airline_agent.tui.feed import Feed, ShownEvent


async def run_turn(feed: Feed, text: str | None) -> AsyncGenerator[ShownEvent, None]:
    """The feed's turn's events as the screen shows them (`text` None: the turn a fork cut
    goes on, `feed.can_resume`). A hold is kept (`feed.held`) until a key lets it go on.
    Closed early (`aclose`, or the task cancelled inside it), the turn is recorded as
    cancelled at once."""
    await feed.before_turn()
    events = feed.turn_events(text)
    try:
        async for event in events:
            if isinstance(event, RequestHeld | ToolCallHeld | TurnEndHeld):
                feed.held = event
                feed.status.changed()
                yield event
                continue
            if not feed.cancels_here(event):
                async for shown in _take(feed, event):
                    yield shown
                continue
            # A playback of a turn that was cancelled when recorded: cancelled here.
            if isinstance(event, ApprovalRequested):
                event.decision.cancel()  # a question nobody will answer: no modal
            if not isinstance(event, ToolStarted | ToolFinished):
                feed.events.append(event)  # a request or a question the customer saw
                yield event
            break
    except (asyncio.CancelledError, GeneratorExit):
        if turn_open(feed.events):
            feed.events.append(cancelled_turn(feed.events))
        raise
    finally:
        feed.let_go()
        await events.aclose()  # the loop settles its history (open calls answered)
    if turn_open(feed.events):
        async for shown in _take(feed, cancelled_turn(feed.events)):
            yield shown


async def _take(feed: Feed, event: AgentEvent) -> AsyncGenerator[ShownEvent, None]:
    """One event of the turn: observed and kept; then what follows it."""
    extra = feed.divergences_at(event)
    feed.events.append(event)
    if isinstance(event, CustomerBound):
        feed.status.changed()  # the conversation acts for its customer now
    yield event
    for shown in extra:
        yield shown


def go_on_edited(feed: Feed, text: str) -> None:
    """The held request is sent with `text` as its body, byte for byte, or the held
    call runs with `text` as its arguments. Raises EditRefused, saying why, and the
    hold stays, when it cannot be (`edits.held_problems` says so first)."""
    held = feed.held
    if not isinstance(held, RequestHeld | ToolCallHeld):
        raise EditRefused(["nothing editable is held: a request or a tool call is"])
    edits.go_on_edited(held, text)
    feed.let_go()


def last_cancelled(feed: Feed) -> TurnFinished | None:
    """The record of the turn just cancelled, if the feed's last turn was."""
    last = feed.events[-1] if feed.events else None
    if isinstance(last, TurnFinished) and last.reason == "cancelled":
        return last
    return None


def turn_open(events: list[AgentEvent]) -> bool:
    """A turn started and has not finished (a cancel must record its end)."""
    for event in reversed(events):
        if isinstance(event, TurnFinished):
            return False
        if isinstance(event, TurnStarted):
            return True
    return False


def approval_asked(event: ShownEvent) -> ApprovalRequested | None:
    """The event is a question for the user not answered yet (None: it asks none)."""
    if isinstance(event, ApprovalRequested) and not event.decision.done():
        return event
    return None


def hold(event: ShownEvent) -> Held | None:
    """The event is where the turn waits for a key (None: it goes on)."""
    return event if isinstance(event, RequestHeld | ToolCallHeld | TurnEndHeld) else None


def editable(held: Held | None) -> bool:
    """A request, or a tool call whose arguments can be edited, is held."""
    return isinstance(held, RequestHeld) or (isinstance(held, ToolCallHeld) and held.editable)


def held_request(held: Held | None) -> RequestHeld | None:
    """The request held before it is sent (None: none is)."""
    return held if isinstance(held, RequestHeld) else None


@dataclass(frozen=True)
class HeldEdit:
    """What the editor offers for the held request's body or call's arguments."""

    title: str
    accept: str  # what accepting does
    text: str  # the body or the arguments as they stand
    problems: Callable[[str], list[str]]  # what is wrong with an edited text


def held_edit(held: Held | None) -> HeldEdit | None:
    """The edit of what is held (None: nothing editable is)."""
    if isinstance(held, RequestHeld):
        title = f"Request #{held.request}, held before it is sent: its body, exactly"
        accept = "send it as it stands, byte for byte"
    elif isinstance(held, ToolCallHeld) and held.editable:
        title = (
            f"{held.call.name} ({held.call.call_id}), held before it runs: its arguments "
            "(the model's call stays in the history as it made it)"
        )
        accept = "run the call with them"
    else:
        return None
    return HeldEdit(title, accept, edits.held_text(held), partial(edits.held_problems, held))
