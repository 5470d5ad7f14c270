"""Playing a conversation step by step fills the chat, the trace and the usage panes."""

from __future__ import annotations

import threading

import pytest

from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.picker import ScenarioPicker
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.trace_pane import TracePane
from airline_agent.tui.widgets.usage_pane import UsagePane
from tests.tui.helpers import close_the_library, library_shown, wait_until
from tests.tui.scripted_events import two_turn_controller


async def test_offline_opens_on_the_library_with_the_showcase_first() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: library_shown(app))
        picker = app.screen
        assert isinstance(picker, ScenarioPicker)
        assert picker.choices[0].name == "cancel-ehglp3"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, ScenarioPicker))
        assert app.controller.feed.scenario_name == "cancel-ehglp3"


async def test_one_step_fills_the_three_panes_in_order() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: library_shown(app))
        await pilot.press("enter")
        await pilot.press("space")
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: len(trace.entries) >= 7)
        assert trace.titles() == [
            # STEP A: the request is built from the developer's part, then the customer's.
            "developer: system prompt + 3 tool schemas",
            "customer: turn 1 · customer message",
            "api: request #1 → scripted",
            "model: response #1 · 1 tool call",
            "framework: tool get_reservation_details",
            "api: request #2 → scripted",
            "model: response #2 · reply",
            "framework: grounding warning",
        ]
        chat = app.main.query_one(ChatPane)
        messages = chat.messages()
        assert [m.speaker for m in messages] == ["customer", "agent"]
        assert messages[1].text.startswith("I can't cancel **EHGLP3**")
        assert "look the booking up" in messages[1].reasoning
        assert messages[1].warnings and "2024-05-04" in messages[1].warnings[0]
        usage = app.main.query_one(UsagePane)
        assert usage.table.row_count == 3  # two requests and the turn's subtotal
        # The totals are the conversation's (the pane keeps none): shown as it counts them.
        conversation = app.controller.feed.conversation
        assert conversation.spend.usage.prompt_tokens == 1850 + 2410
        assert "4,260" in str(usage.query_one("#usage-totals").render())
        assert conversation.spend.cost is None  # no price for "scripted": unknown, never 0
        assert "cost unknown" in str(usage.query_one("#usage-cost").render())


async def test_the_second_step_plays_the_second_turn_and_errors_stand_out() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await close_the_library(pilot)
        controller = app.controller
        await pilot.press("space")
        await wait_until(pilot, lambda: controller.position == 1 and not app.main.turn_running)
        await pilot.press("space")
        await wait_until(pilot, lambda: len(controller.approvals) == 1)
        controller.approvals[0].decide(True)
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: trace.titles()[-1] == "model: response #4 · reply")
        errors = [entry for entry in trace.entries if entry.error]
        assert [entry.title for entry in errors] == ["tool get_user_details"]
        assert errors[0].meta.startswith("NOT_FOUND")
        bag = next(e for e in trace.entries if e.title == "tool update_reservation_baggages")
        assert "reservations EHGLP3: total_baggages 0 → 1" in bag.body


async def test_auto_play_runs_every_turn() -> None:
    app = AirlineApp(two_turn_controller(), pace=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await close_the_library(pilot)
        controller = app.controller
        await pilot.press("a")
        await wait_until(pilot, lambda: len(controller.approvals) == 1)
        controller.approvals[0].decide(True)
        await wait_until(pilot, lambda: controller.position == 2 and not app.main.turn_running)
        assert controller.received == [turn for turn, _ in controller.turns]


@pytest.mark.parametrize("delivered", ["one by one", "in one read"])
async def test_space_pressed_while_the_chosen_scenario_loads_plays_its_first_step(
    tmp_path, monkeypatch, delivered: str
) -> None:
    """Issue 19 item 17: enter then space within the load (a second or so) reopened the
    library: the space found no scenario yet. A key pressed while a scenario loads waits
    for it. In one read (a paste, a fast typist, a busy machine), the space came before the
    library had closed on the enter: the library took it, and nothing played."""
    import shutil

    from airline_agent.config import Settings
    from airline_agent.scenarios.library import library_dir
    from airline_agent.tui.playback import Playback

    library = tmp_path / "library"
    library.mkdir()
    shutil.copy(library_dir() / "cancel-ehglp3.yaml", library)
    loading = threading.Event()  # the dataset's copy, held until the keys are in
    original_open = Playback.open

    def held_open(self: Playback) -> None:
        assert loading.wait(60)
        original_open(self)

    monkeypatch.setattr(Playback, "open", held_open)
    controller = AgentController(Settings(db=str(tmp_path / "unused.db")), library=library)
    app = AirlineApp(controller, pace=0)
    try:
        await _enter_and_space(app, controller, loading, delivered)
    finally:
        loading.set()  # a failed test leaves no thread waiting


async def _enter_and_space(
    app: AirlineApp, controller: AgentController, loading: threading.Event, delivered: str
) -> None:
    from textual import events

    from airline_agent.agent.events import TurnStarted

    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: library_shown(app))
        if delivered == "in one read":
            # Both queued before either is handled, as one read delivers them.
            app.post_message(events.Key("enter", "\r"))
            app.post_message(events.Key("space", " "))
            await wait_until(pilot, lambda: not isinstance(app.screen, ScenarioPicker))
            await wait_until(pilot, lambda: app.main.scenario_loading)
            # The space is held by the main screen (not taken by the library) until the
            # scenario is in place.
            await wait_until(pilot, lambda: app.main._waiting_keys == ["step"])
        else:
            await pilot.press("enter", "space")
        assert controller.feed.scenario_name is None  # still loading
        loading.set()

        def first_turn_or_library() -> bool:
            started = any(isinstance(e, TurnStarted) for e in controller.feed.events)
            return started or isinstance(app.screen, ScenarioPicker)

        await wait_until(pilot, first_turn_or_library, timeout=60)
        assert not isinstance(app.screen, ScenarioPicker)
        assert controller.feed.scenario_name == "cancel-ehglp3"
        started = [e for e in controller.feed.events if isinstance(e, TurnStarted)]
        assert [e.turn for e in started] == [1]
        assert started[0].user_text.startswith("Hi, this is Emma Kim")


async def test_keys_read_at_once_in_the_library_act_in_their_order(tmp_path) -> None:
    """down, enter and space in one read: the second scenario is chosen (the enter, a
    priority key, does not overtake the arrow), and its first turn plays."""
    import shutil

    from textual import events

    from airline_agent.agent.events import TurnStarted
    from airline_agent.config import Settings
    from airline_agent.scenarios.library import library_dir

    library = tmp_path / "library"
    library.mkdir()
    for name in ("cancel-ehglp3", "bags-approval-declined"):
        shutil.copy(library_dir() / f"{name}.yaml", library)
    controller = AgentController(Settings(db=str(tmp_path / "unused.db")), library=library)
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: library_shown(app))
        picker = app.screen
        assert isinstance(picker, ScenarioPicker)
        second = picker.choices[1].name
        for key, character in (("down", None), ("enter", "\r"), ("space", " ")):
            app.post_message(events.Key(key, character))

        def first_turn_or_library() -> bool:
            started = any(isinstance(e, TurnStarted) for e in controller.feed.events)
            return started or isinstance(app.screen, ScenarioPicker)

        await wait_until(pilot, lambda: not isinstance(app.screen, ScenarioPicker))
        await wait_until(pilot, first_turn_or_library, timeout=60)
        assert controller.feed.scenario_name == second
        started = [e for e in controller.feed.events if isinstance(e, TurnStarted)]
        assert [e.turn for e in started] == [1]
