"""An unusable setting is one plain line: the variable or flag, the problem, the value."""

from __future__ import annotations

import pytest

from airline_agent.config import SettingsError, load_settings


def test_a_clock_that_is_no_date_says_what_is_expected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRLINE_AGENT_NOW", "yesterday")
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert str(caught.value) == (
        "AIRLINE_AGENT_NOW: not an ISO date and time, e.g. 2024-05-15T15:00:00 (got 'yesterday')"
    )


def test_the_flag_is_named_when_the_flag_is_at_fault() -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(now="soon")
    assert str(caught.value) == (
        "--now: not an ISO date and time, e.g. 2024-05-15T15:00:00 (got 'soon')"
    )
