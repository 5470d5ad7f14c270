"""The property tests have no time limit (no timed assertions, docs/development.md): an
example that a busy machine slows down is not a failure. Hypothesis's own limit of 200 ms
an example failed a redaction test under mutmut (356 ms); tests/conftest.py lifts it."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=2)  # the profile's limits otherwise: what every property test gets
@given(st.booleans())
def test_an_example_slower_than_hypothesis_default_limit_passes(_: bool) -> None:
    time.sleep(0.25)  # a busy machine's example (the default limit is 200 ms)
