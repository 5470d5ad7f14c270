"""How long auto-play pauses, at the pace the user chose (`speed.py`: 1× by default, `+` /
`-`, an explicit `pace=0` instant for tests and the benchmark). Loaded with what shows a
feed's events (screens/later.py), not with the first screen: it matches on the agent's
events.

A pause follows each event once it is on screen, long enough to read what it added: a
customer message or a reply by its length (`READING_CHARS_PER_SECOND`, about 300 words a
minute), reasoning at a skim, any other event (a request, a tool call, usage) a short
beat so the trace builds up entry by entry; then a pause between turns. At 1× the
showcase (cancel-ehglp3, two turns of long replies) takes about 44 s (it took about 3 s
before: 0.25 s an event, whatever it said); every pause is multiplied by the pace (1 /
the speed shown).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from airline_agent.agent.events import ReasoningDelta, TextDelta, TurnStarted

if TYPE_CHECKING:
    from airline_agent.tui.feed import ShownEvent

READING_CHARS_PER_SECOND = 25.0
SKIM_CHARS_PER_SECOND = 150.0  # reasoning: collapsed in the chat, a glance in the trace
EVENT_BEAT_SECONDS = 0.35  # a trace entry, a usage row: enough to see it arrive
TURN_PAUSE_SECONDS = 2.0  # after a turn, before the next customer message
LONGEST_PAUSE_SECONDS = 10.0


def _reading(chars: int, per_second: float, shortest: float) -> float:
    return min(max(chars / per_second, shortest), LONGEST_PAUSE_SECONDS)


def event_pause(event: ShownEvent, pace: float) -> float:
    """Seconds to wait after this event is shown, at this pace (0: none)."""
    if not pace:
        return 0.0
    match event:
        case TurnStarted(user_text=text):
            seconds = _reading(len(text), READING_CHARS_PER_SECOND, 1.0)
        case TextDelta(text=text):
            seconds = _reading(len(text), READING_CHARS_PER_SECOND, 0.5)
        case ReasoningDelta(text=text):
            seconds = _reading(len(text), SKIM_CHARS_PER_SECOND, 0.5)
        case _:
            seconds = EVENT_BEAT_SECONDS
    return seconds * pace


def turn_pause(pace: float) -> float:
    """Seconds between one auto-played turn and the next (at least a tick: the screen
    shows the end of the turn before the next one starts)."""
    return max(TURN_PAUSE_SECONDS * pace, 0.01)
