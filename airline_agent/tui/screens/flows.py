"""The main screen's actions that ask first: each a worker that awaits the modal's answer
(`await self.app.push_screen_wait(...)`) and goes on from there, in order, in one place —
the library, a customer, a reset, where to save, an approval.

A modal is imported where it opens: the first frame does not wait for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.screen import Screen

from airline_agent.tui import notices

if TYPE_CHECKING:
    from airline_agent.agent.events import ApprovalRequested
    from airline_agent.tui.controller import SessionController
    from airline_agent.tui.database_reset import ResetPlan
    from airline_agent.tui.widgets.chat_pane import ChatPane

OFFLINE_REASON = (
    "Offline: no model configured (set AIRLINE_AGENT_MODEL or --model for live chat). "
    "Scenarios run through the real loop and tools with scripted model responses."
)
LIVE_REASON = (
    "A scenario plays offline: the real loop and tools on a fresh copy of its dataset, "
    "the model's answers from the file. The live chat waits meanwhile; l brings it back."
)


class ModalFlows(Screen[None]):
    """The flows of `MainScreen` that wait for a modal's answer (see the module)."""

    controller: SessionController
    autoplay: bool
    ready: bool  # live: the database is open and no reset is under way

    if TYPE_CHECKING:  # provided by MainScreen

        @property
        def chat(self) -> ChatPane: ...

        @property
        def turn_running(self) -> bool: ...

        def show_activity(self, activity: str = "") -> None: ...

        def show_input(self) -> None: ...

        async def clear_panes(self) -> None: ...

        async def show_conversation(self) -> None: ...

        async def _settled(self) -> bool: ...

        def _progress(self, stage: str, done: int, total: int) -> None: ...

    # -- the library ------------------------------------------------------------------
    def action_library(self) -> None:
        self.choose_scenario()

    @work(exclusive=True, group="library")
    async def choose_scenario(self) -> None:
        from airline_agent.tui.screens.picker import LIVE_CHAT, ScenarioPicker

        controller = self.controller
        live_chat = None
        if controller.mode == "live":
            live_chat = "← Stay in the live chat (esc does too)"
        elif controller.live_paused:
            live_chat = "← Back to the live chat"
        picker = ScenarioPicker(
            controller.scenario_choices,
            quick=controller.quick_choices,
            offline_reason=LIVE_REASON if live_chat else OFFLINE_REASON,
            live_chat=live_chat,
        )
        chosen = await self.app.push_screen_wait(picker)
        if chosen == LIVE_CHAT:
            if controller.mode == "live":
                return
            if self.turn_running:
                self.notify("Cancel the running turn first (esc).", severity="warning")
                return
            await self.return_to_live()
        elif chosen:
            self.play_scenario(chosen)

    @work(exclusive=True, group="turn")
    async def play_scenario(self, name: str) -> None:
        self.autoplay = False
        if not await self._settled():
            return
        was_live = self.controller.mode == "live"
        self.show_activity(f"preparing scenario {name}…")
        try:
            said = await self.controller.start_scenario(name, self._progress)
        except Exception as error:
            await self.chat.add_message("error", f"Could not start {name}: {error}")
            return
        finally:
            self.query_one("#seeding").display = False
            self.show_activity()
        await self.clear_panes()
        self.show_input()
        leaving = " The live chat waits: l brings it back." if was_live else ""
        self.notify(f"{said}{leaving} space plays the next step, a auto-plays.", timeout=10)

    async def return_to_live(self) -> None:
        await self.controller.back_to_live()
        await self.show_conversation()
        self.show_input()
        self.notify("Back in the live chat.")

    # -- the customer -----------------------------------------------------------------
    @work(exclusive=True, group="prompt")
    async def action_switch_customer(self) -> None:
        from airline_agent.tui.screens.customer_picker import CustomerPicker

        if self.controller.mode != "live":
            self._customer_is_the_scenarios()
            return
        if self.turn_running:
            self.notify("Cancel the running turn first (esc).", severity="warning")
            return
        try:
            customers = await asyncio.to_thread(self.controller.customers)
        except Exception as error:  # the database went away or broke since it was opened
            self.notify(f"Could not read the customers: {error}", severity="error")
            return
        customer = await self.app.push_screen_wait(
            CustomerPicker(customers, self.controller.state.customer)
        )
        if customer is None or self.turn_running:
            return
        self.controller.set_customer(customer or None)
        await self.clear_panes()
        self.notify(f"New conversation as {customer or 'an unidentified customer'}.")

    def _customer_is_the_scenarios(self) -> None:
        """Offline, the script is written for its customer: `u` says so, changes nothing."""
        name = self.controller.scenario_name
        if name is None:
            self.notify("No scenario is playing: l opens the library.")
            return
        customer = self.controller.state.customer or "an unidentified customer"
        self.notify(
            f"{name} is written for {customer}: its script acts for them. Another customer: "
            "the live chat (set AIRLINE_AGENT_MODEL), or l for another scenario."
        )

    # -- reset ------------------------------------------------------------------------
    @work(exclusive=True, group="reset")
    async def action_reset_database(self) -> None:
        if self.turn_running:
            self.notify("Cancel the running turn first (esc).", severity="warning")
            return
        self.autoplay = False
        if self.controller.mode == "live":
            await self._reset_live_database()
        else:
            await self._restart_scenario()

    async def _restart_scenario(self) -> None:
        """Offline, `r` plays the scenario again on a fresh copy: no user data at stake."""
        name = self.controller.scenario_name
        if name is None:
            self.notify(
                "Nothing to reset: no scenario is playing (offline, your database is never opened)."
            )
            return
        try:
            await self.controller.restart_scenario(self._progress)
        except Exception as error:
            await self.chat.add_message("error", f"Could not restart {name}: {error}")
            return
        await self.clear_panes()
        self.notify(
            f"{name} starts again on a fresh copy of its dataset (your own database is not "
            "involved)."
        )

    async def _reset_live_database(self) -> None:
        was_ready, self.ready = self.ready, False  # no turn starts on a database being reset
        try:
            await self._reset_with_confirmation()
        finally:
            self.ready = was_ready

    async def _reset_with_confirmation(self) -> None:
        from airline_agent.tui.screens.confirm import ConfirmScreen

        plan = await self._reset_plan()
        if plan is None:
            return
        if plan.differing == 0:
            await self.controller.discard_reset(plan)
            self.notify(f"{plan.location} is {plan.restores} already: nothing to reset.")
            return
        confirmed = await self.app.push_screen_wait(
            ConfirmScreen(plan.question(), plan.details(), yes="Reset", no="Keep my data")
        )
        if not confirmed:
            await self.controller.discard_reset(plan)
            self.notify("Nothing was reset.")
            return
        self.show_activity("resetting the database…")
        try:
            await self.controller.apply_reset(plan)
        except Exception as error:
            await self.chat.add_message("error", f"Could not reset the database: {error}")
            return
        finally:
            self.show_activity()
        await self.clear_panes()
        self.notify(
            f"{plan.location} is {plan.restores} again ({plan.differing} records restored); "
            "new conversation."
        )

    async def _reset_plan(self) -> ResetPlan | None:
        self.show_activity("comparing the database with how it was built…")
        try:
            return await self.controller.plan_reset(self._progress)
        except Exception as error:
            await self.chat.add_message("error", f"Could not reset the database: {error}")
            return None
        finally:
            self.query_one("#seeding").display = False
            self.show_activity()

    # -- saving -----------------------------------------------------------------------
    def action_save_scenario(self) -> None:
        self._ask_and_save(
            "Save the conversation as a scenario file:", ".yaml", self.controller.save_scenario
        )

    def action_save_transcript(self) -> None:
        self._ask_and_save(
            "Save the transcript (JSONL + Markdown) in directory:",
            "",
            self.controller.save_transcript,
        )

    def _ask_and_save(self, question: str, suffix: str, save: Callable[[Path], object]) -> None:
        """Ask where (a dated name under recordings/ proposed), then save there."""
        if not self.controller.events:  # before asking where, not after
            self.notify("Nothing to save yet.", severity="warning")
            return
        if self.turn_running:  # the save reads the conversation in a thread
            self.notify("The turn is still running: save when it ends (esc cancels).")
            return
        self._save_where(question, suffix, save)

    @work(exclusive=True, group="prompt")
    async def _save_where(self, question: str, suffix: str, save: Callable[[Path], object]) -> None:
        from airline_agent.tui.screens.prompt import PromptScreen

        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        proposed = Path("recordings") / f"conversation-{stamp}{suffix}"
        path = await self.app.push_screen_wait(PromptScreen(question, str(proposed)))
        if not path:
            return
        self.show_activity("saving…")
        try:
            # Off the UI's loop: comparing the database with its dataset takes a moment.
            saved = await asyncio.to_thread(save, Path(path))
        except Exception as error:
            self.notify(notices.save_failed(Path(path), error), severity="error")
            return
        finally:
            self.show_activity()
        self.notify(notices.saved(saved if isinstance(saved, list) else [saved]))

    # -- approval ---------------------------------------------------------------------
    @work(group="approval")
    async def ask_approval(self, event: ApprovalRequested) -> None:
        from airline_agent.tui.screens.approval import ApprovalScreen

        answers: dict[str, bool] | None = None
        try:
            answers = await self.app.push_screen_wait(ApprovalScreen(event.calls))
        finally:
            # Fails closed: a question closed without an answer (the app quitting) declines.
            event.decide(answers)
