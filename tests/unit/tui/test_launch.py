"""Starting the TUI: the cycle collector is paused until the first frame is shown, and
given back whatever happens."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest

from airline_agent.config import Settings
from airline_agent.tui import launch
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from tests.tui.helpers import library_shown, wait_until


@pytest.fixture
def collector_on() -> Iterator[None]:
    """The collector enabled before the test, and as it was after it (a failed test must
    not leave the worker without one); what the pause froze is collectable again."""
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()
    if was_enabled:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_paused_until_the_first_frame_then_resumed(collector_on: None) -> None:
    with launch._collector_paused_until_shown() as first_frame_shown:
        assert not gc.isenabled()
        first_frame_shown()
        assert gc.isenabled()
        gc.disable()  # shown twice (it cannot be): the second call changes nothing
        first_frame_shown()
        assert not gc.isenabled()
        gc.enable()
    assert gc.isenabled()


def test_an_app_that_closes_before_its_first_frame_gives_the_collector_back(
    collector_on: None,
) -> None:
    with pytest.raises(RuntimeError), launch._collector_paused_until_shown():
        raise RuntimeError("the app failed to start")
    assert gc.isenabled()


def test_a_refused_option_gives_the_collector_back(collector_on: None, capsys) -> None:
    assert launch.run_tui(scenario="no-such-file.yaml") == 2
    assert "no such scenario file" in capsys.readouterr().err
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off(collector_on: None) -> None:
    gc.disable()
    with launch._collector_paused_until_shown() as first_frame_shown:
        first_frame_shown()
    assert not gc.isenabled()


async def test_the_app_says_when_its_first_frame_is_shown() -> None:
    shown: list[bool] = []
    app = AirlineApp(
        AgentController(Settings()),
        pace=0,
        # Offline, the first frame has the library on it.
        first_frame_shown=lambda: shown.append(library_shown(app)),
    )
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: shown, 30)
        await pilot.pause()
        assert shown == [True]


# What the TUI's first screen must not wait for: pydantic (the settings, the scenario
# files' validation and an edit's check load it after the first frame), the openai
# client, the database's libraries, the eval modules (only with --results).
AFTER_THE_FIRST_FRAME = (
    "pydantic",
    "pydantic_settings",
    "openai",
    "sqlmodel",
    "sqlalchemy",
    "sqlite3",
    "airline_agent.evaluation",
)


def test_the_first_screens_modules_load_none_of_what_comes_after_it() -> None:
    code = (
        "import sys\n"
        "import airline_agent.cli, airline_agent.tui.start\n"
        "from airline_agent.settings_peek import peek_settings\n"
        "peek_settings(None, None)\n"
        f"print(sorted(m for m in {AFTER_THE_FIRST_FRAME!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
