"""Small text helpers shared by the panes and screens: JSON, folding, argument summaries."""

from __future__ import annotations

import json
from collections.abc import Mapping


def pretty_json(value: object) -> str:
    """Indented JSON for people; a string result is shown as it is."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def fold(text: str, max_lines: int) -> str:
    """The first `max_lines` lines, and how many more there are (the details show all)."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text
    hidden = len(lines) - max_lines
    return "\n".join([*lines[:max_lines], f"… {hidden} more line{'s' * (hidden != 1)}"])


def clip_lines(text: str, max_chars: int) -> str:
    """Each line of `text` cut to `max_chars` characters, saying how many more it had (a
    tool result of megabytes on one line is shown as its start; the details show it all)."""
    if len(text) <= max_chars:
        return text  # most texts: no line can be too long
    return "\n".join(
        line
        if len(line) <= max_chars
        else f"{line[:max_chars]}… {len(line) - max_chars:,} more characters"
        for line in text.split("\n")
    )


def call_signature(name: str, arguments: Mapping[str, object] | None, raw: str = "") -> str:
    """`cancel_reservation(reservation_id="EHGLP3")`, or the raw text when it was not JSON."""
    if arguments is None:
        return f"{name}({raw!s})"
    inner = ", ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items()
    )
    return f"{name}({inner})"


def first_line(text: str | None, width: int = 80) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def tokens(count: int | None) -> str:
    """A token count, the one format of every token column: thousands separated
    ("7,890", "12,345"; a narrow column still holds a conversation's millions)."""
    if count is None:
        return "—"
    return f"{count:,}"


def latency(elapsed_ms: float | None, scripted: bool = False) -> str:
    """A response's time in whole milliseconds; a scripted reply had no network, and says so."""
    if scripted:
        return "scripted"
    if elapsed_ms is None:
        return "—"
    return f"{elapsed_ms:,.0f} ms"


def rate(tokens_per_second: float | None) -> str:
    return "—" if tokens_per_second is None else f"{tokens_per_second:,.1f}"


def money(cost: float | None) -> str:
    """A cost in dollars, or "unknown" when no price is known (never shown as 0)."""
    if cost is None:
        return "unknown"
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"
