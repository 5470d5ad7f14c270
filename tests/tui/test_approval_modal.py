"""Issue 19 item 22: the TUI's approval question fails closed.

`esc` declines every call; a question closed without an answer (the app quits while it is
open) declines too, so the loop never waits on it nor takes it for a yes. The modal is
tested in a tiny host app (as oterm tests a widget), and the closing in the real app.
"""

from __future__ import annotations

import asyncio

from textual.app import App
from textual.widgets import Checkbox

from airline_agent.agent.events import PendingWrite
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.screens.approval import ApprovalScreen
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller

SIZE = (140, 40)


def pending(call_id: str, reservation: str) -> PendingWrite:
    return PendingWrite(
        call_id, "cancel_reservation", {"reservation_id": reservation}, f"cancel {reservation}"
    )


class Host(App[None]):
    """Asks once; keeps the answer the modal dismissed with."""

    def __init__(self, *calls: PendingWrite) -> None:
        super().__init__()
        self.calls = calls
        self.answers: dict[str, bool] | None = None
        self.answered = False

    def on_mount(self) -> None:
        self.push_screen(ApprovalScreen(self.calls), callback=self._answered)

    def _answered(self, answers: dict[str, bool] | None) -> None:
        self.answers, self.answered = answers, True


async def test_escape_declines_every_call() -> None:
    app = Host(pending("call_1", "EHGLP3"), pending("call_2", "66EEUA"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.answered)
    assert app.answers == {"call_1": False, "call_2": False}


async def test_calls_whose_ids_are_no_widget_ids_are_asked_and_answered_one_by_one() -> None:
    """Ids as servers send them (Kimi's `functions.name:0`, a space) made widget ids that
    Textual refuses: the question could not open. Each call's box is its own."""
    odd = (pending("functions.cancel_reservation:0", "EHGLP3"), pending("call 2", "66EEUA"))
    app = Host(*odd)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        first = app.screen.query(Checkbox).first()
        first.value = False  # uncheck the first call only
        await pilot.press("y")
        await wait_until(pilot, lambda: app.answered)
    assert app.answers == {"functions.cancel_reservation:0": False, "call 2": True}


async def test_a_question_closed_without_an_answer_declines() -> None:
    """The worker that holds the question ends before the modal answered (closed from
    elsewhere): the question is answered "no" for every call, and the turn goes on. Before,
    it was never answered at all: the loop waited for it for ever."""
    controller = two_turn_controller()
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await close_the_library(pilot)
        await pilot.press("space")
        await wait_until(pilot, lambda: controller.position == 1 and not app.main.turn_running)
        await pilot.press("space")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        [asking] = [worker for worker in app.workers if worker.group == "approval"]
        asking.cancel()
        decision = await asyncio.wait_for(controller.approvals[0].decision, 5)
        assert decision.approved == {"call_3_0": False}
        await wait_until(pilot, lambda: not app.main.turn_running)
    assert not controller.cancelled  # the turn went on to its end, the write declined
