"""How fast auto-play goes: at a person's reading pace by default, faster or slower with
`+` / `-`, instant for tests and the benchmark (an explicit `pace=0`).

A pause follows each event once it is on screen, long enough to read what it added: a
customer message or a reply by its length (`READING_CHARS_PER_SECOND`, about 300 words a
minute), reasoning at a skim, any other event (a request, a tool call, usage) a short
beat so the trace builds up entry by entry; then a pause between turns. At 1× the
showcase (cancel-ehglp3, two turns of long replies) takes about 44 s (it took about 3 s
before: 0.25 s an event, whatever it said); every pause is multiplied by the
pace (1 / the speed shown). The pause after an event is `turns.event_pause` (it
matches on the agent's events: loaded with a feed's first turn).
"""

from __future__ import annotations

READING_CHARS_PER_SECOND = 25.0
SKIM_CHARS_PER_SECOND = 150.0  # reasoning: collapsed in the chat, a glance in the trace
EVENT_BEAT_SECONDS = 0.35  # a trace entry, a usage row: enough to see it arrive
TURN_PAUSE_SECONDS = 2.0  # after a turn, before the next customer message
LONGEST_PAUSE_SECONDS = 10.0

# The speeds `+` and `-` go through (1× reads at READING_CHARS_PER_SECOND); 0: instant.
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 0.0)
DEFAULT_PACE = 1.0


def turn_pause(pace: float) -> float:
    """Seconds between one auto-played turn and the next (at least a tick: the screen
    shows the end of the turn before the next one starts)."""
    return max(TURN_PAUSE_SECONDS * pace, 0.01)


def speed_of(pace: float) -> float:
    """The speed shown for a pace (0: instant)."""
    return 1 / pace if pace else 0.0


def next_pace(pace: float, faster: bool) -> float:
    """The pace one step faster (`+`) or slower (`-`), stopping at either end."""
    speed = speed_of(pace)
    index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - speed))
    index = max(0, min(len(SPEEDS) - 1, index + (1 if faster else -1)))
    return 1 / SPEEDS[index] if SPEEDS[index] else 0.0


def describe_speed(pace: float) -> str:
    """'auto-play 2×', 'auto-play 0.5×', 'auto-play instant'."""
    speed = speed_of(pace)
    if not speed:
        return "auto-play instant"
    return f"auto-play {speed:g}×"
