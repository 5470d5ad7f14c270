"""The two test profiles: the default run (fast, both cores of a small machine in a few
minutes) and the heavy one, `AIRLINE_AGENT_SLOW=1` (every τ² task alone, every locale,
every transport, bigger inputs, more examples). A heavy variant always has a smaller one
in the default run that can fail the same way; README, Development, lists them."""

from __future__ import annotations

import os

import pytest

SLOW = os.environ.get("AIRLINE_AGENT_SLOW") == "1"


def heavy(default_instead: str) -> pytest.MarkDecorator:
    """Run the test only with AIRLINE_AGENT_SLOW=1; the skip says what the default run
    checks instead."""
    return pytest.mark.skipif(
        not SLOW, reason=f"AIRLINE_AGENT_SLOW=1 (the default run: {default_instead})"
    )
