"""The scenario library: listed from the files at once, then validated."""

from __future__ import annotations

from pathlib import Path

from airline_agent.config import Settings
from airline_agent.scenarios.library import library_dir
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from tests.tui.helpers import library_shown, wait_until


def test_the_quick_listing_is_the_validated_one_for_the_shipped_library() -> None:
    controller = AgentController(Settings())
    assert controller.quick_choices() == controller.scenario_choices()
    assert len(controller.scenario_choices()) == len(list(library_dir().glob("*.yaml")))


async def test_a_file_that_fails_validation_is_marked_once_checked(tmp_path: Path) -> None:
    library = tmp_path / "library"
    library.mkdir()
    shipped = (library_dir() / "cancel-ehglp3.yaml").read_text()
    (library / "cancel-ehglp3.yaml").write_text(shipped)
    broken = shipped.replace("cancel-ehglp3", "broken", 1) + "oops: 1\n"  # an unknown key
    (library / "broken.yaml").write_text(broken)
    app = AirlineApp(AgentController(Settings(), library=library), pace=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: library_shown(app))
        picker = app.screen
        await wait_until(pilot, lambda: any(c.problem for c in picker.choices))
        broken = next(c for c in picker.choices if c.name == "broken")
        assert "unknown key" in (broken.problem or "")
        assert [c.name for c in picker.choices] == ["cancel-ehglp3", "broken"]
        options = picker.query_one("OptionList")
        assert options.get_option("broken").disabled
        assert options.highlighted_option.id == "cancel-ehglp3"


def _library_with_a_broken_file(folder: Path) -> Path:
    """The showcase, and a file the quick listing reads but validation refuses."""
    folder.mkdir()
    shipped = (library_dir() / "cancel-ehglp3.yaml").read_text()
    (folder / "cancel-ehglp3.yaml").write_text(shipped)
    broken = shipped.replace("cancel-ehglp3", "broken", 1) + "oops: 1\n"  # an unknown key
    (folder / "broken.yaml").write_text(broken)
    return folder


async def test_the_library_is_listed_while_its_validation_still_runs(tmp_path: Path) -> None:
    import threading

    from textual.widgets import OptionList

    from airline_agent.tui.screens.picker import ScenarioPicker

    # Issue 19 item 25: on the shipped library the quick and the validated lists are
    # equal, so the last assertion held whether or not validation ever arrived. Here the
    # validated list differs (the broken file is marked), and the test waits for it.
    library = _library_with_a_broken_file(tmp_path / "library")
    controller = AgentController(Settings(), library=library)
    validated = threading.Event()

    def validate():
        validated.wait(10)  # held until the listing has been checked
        return controller.scenario_choices()

    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ScenarioPicker))
        app.pop_screen()
        picker = ScenarioPicker(validate, quick=controller.quick_choices)
        await app.push_screen(picker)
        await pilot.pause()
        options = picker.query_one(OptionList)
        assert picker.loaded
        assert options.get_option_at_index(0).id == "cancel-ehglp3"
        assert options.highlighted == 0 and options.has_focus
        assert picker.choices != controller.scenario_choices()  # not validated yet
        assert not options.get_option("broken").disabled
        validated.set()
        await wait_until(pilot, lambda: picker.choices == controller.scenario_choices())
        assert picker.choices == controller.scenario_choices()
        assert options.get_option("broken").disabled  # the list shows what validation said
