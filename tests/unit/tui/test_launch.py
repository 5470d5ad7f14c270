"""Starting the TUI: the cycle collector is paused until the first frame is shown, and
given back whatever happens."""

from __future__ import annotations

import gc
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


async def test_the_modal_screens_load_once_the_settings_are_read(monkeypatch) -> None:
    """The first frame waits for none of them (test_first_screen_imports.py); a worker
    opens their door once the settings are read, so opening one does not wait."""
    from airline_agent.tui.screens import main

    opened: list[bool] = []
    door = main.later

    def later():
        opened.append(True)
        return door()

    monkeypatch.setattr(main, "later", later)
    app = AirlineApp(AgentController(Settings()), pace=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: opened, 30)
        assert library_shown(app)
