"""Auto-play's speed, as the first screen shows and changes it: a person's reading pace
by default (1×), faster or slower with `+` / `-`, instant for tests and the benchmark (an
explicit `pace=0`). A pace is 1 / the speed shown: every pause auto-play makes is
multiplied by it. How long each pause is (it matches on the agent's events) is
`pacing.py`'s, loaded after the first frame with what shows a feed's events.
"""

from __future__ import annotations

# The speeds `+` and `-` go through (1× reads at pacing.READING_CHARS_PER_SECOND); 0: instant.
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 0.0)
DEFAULT_PACE = 1.0


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
