"""A scenario's `settings.now` is checked when the file loads, with its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from airline_agent.scenarios.loader import ScenarioLoadError, load_scenario
from tests.unit.scenarios.test_scenario_model import VALID


def with_now(tmp_path: Path, now: str) -> Path:
    text = VALID.replace(
        "customer: emma_kim_9957\n", f"customer: emma_kim_9957\nsettings:\n  now: {now}\n"
    )
    path = tmp_path / "clock.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_clock_that_is_no_date_is_a_load_error_on_its_line(tmp_path: Path) -> None:
    path = with_now(tmp_path, "yesterday")
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(path)
    assert str(caught.value) == (
        f"{path}:5: settings.now: not an ISO date and time, e.g. 2024-05-15T15:00:00"
    )


def test_an_iso_clock_loads(tmp_path: Path) -> None:
    scenario = load_scenario(with_now(tmp_path, "'2024-05-20T09:30:00'"))
    assert scenario.settings.now == "2024-05-20T09:30:00"
