"""What waits for the TUI's first frame: the library's validation and the settings, each
in a thread that would take the interpreter from drawing it (pydantic is slow to import)."""

from __future__ import annotations

from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.picker import ScenarioPicker
from tests.tui.helpers import wait_until


async def test_the_library_is_validated_and_the_settings_read_after_the_first_frame() -> None:
    happened: list[str] = []
    controller = AgentController(Settings())
    validate, settle = controller.scenario_choices, controller.settle

    def validated():
        happened.append("validated")
        return validate()

    async def settled() -> None:
        happened.append("settled")
        await settle()

    controller.scenario_choices = validated  # type: ignore[method-assign]
    controller.settle = settled  # type: ignore[method-assign]
    app = AirlineApp(controller, pace=0, first_frame_shown=lambda: happened.append("shown"))
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: "validated" in happened and "settled" in happened)
        assert happened[0] == "shown"
        assert isinstance(app.screen, ScenarioPicker) and app.screen.loaded
