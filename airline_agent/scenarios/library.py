"""The shipped scenario library (`data/scenarios/`), and which scenario opens the picker."""

from __future__ import annotations

from pathlib import Path

from airline_agent.project import PROJECT_ROOT

# The seed articles' conversation: Emma Kim asks to cancel EHGLP3 and is refused.
SHOWCASE = "cancel-ehglp3"


def library_dir() -> Path:
    """`data/scenarios` of the project."""
    return PROJECT_ROOT / "data" / "scenarios"


def ordered(names: list[str]) -> list[str]:
    """Library order for pickers: the showcase first, then by name."""
    return sorted(names, key=lambda name: (name != SHOWCASE, name))
