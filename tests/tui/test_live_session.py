"""Live sessions against a loopback Chat Completions server: the database seeded on first
start with a visible progress bar, a new conversation, switching customer."""

from __future__ import annotations

import threading
from pathlib import Path

from rich.text import Text
from textual.widgets import ProgressBar

from airline_agent.config import Settings
from airline_agent.domain.loading import Progress
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.customer_picker import CustomerPicker
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.trace_pane import TracePane
from airline_agent.tui.widgets.usage_pane import UsagePane
from tests.support.chat_server import ChatServer
from tests.support.sample_db import seeded
from tests.tui.helpers import wait_until

SIZE = (140, 40)


def _settings(server: ChatServer, db: Path | None, **changes: object) -> Settings:
    """Live settings on `db`, seeded first (a named database must exist); None: the
    default location, which the first start builds."""
    named = {} if db is None else {"db": str(seeded(db))}
    return Settings(
        model="test-model",
        base_url=server.url,
        api_key="sk-tui-test-key-123",
        approve="auto",
        **named,
        **changes,
    )


class HeldSeeding(AgentController):
    """Seeding stops after its first progress report until the test lets it go on."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.go_on = threading.Event()

    async def prepare(self, progress: Progress | None = None) -> None:
        def held(stage: str, done: int, total: int) -> None:
            if progress is not None:
                progress(stage, done, total)
            self.go_on.wait(30)

        await super().prepare(held)


async def _say(pilot, app: AirlineApp, server: ChatServer, text: str, requests: int = 1) -> None:
    """Type as the customer; return when the agent's reply (after `requests`) is shown."""
    chat = app.main.query_one(ChatPane)
    sent = len(server.requests) + requests
    chat.input.focus()
    chat.input.value = text
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(server.requests) >= sent, 30)
    await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
    await wait_until(pilot, lambda: chat.messages()[-1].speaker == "agent")


async def test_first_start_seeds_the_database_with_a_visible_progress_bar(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.stream(content="Hello! How can I help?", usage=(900, 8))
    database = tmp_path / "data" / "airline.db"  # the default location (cwd: tmp_path)
    controller = HeldSeeding(_settings(chat_server, None))
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        # Mounted with the first progress of the build (not composed: most starts build none).
        await wait_until(pilot, lambda: app.main.query("#seeding"))
        bar = app.main.query_one("#seeding", ProgressBar)
        status = app.main.query_one("#status")
        await wait_until(pilot, lambda: bar.display)
        assert bar.region.height > 0  # on screen, not only in the tree
        assert "building database" in str(status.render())
        assert not app.controller.feed.ready
        controller.go_on.set()
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        assert not bar.display
        assert "building database" not in str(status.render())
        assert database.is_file()
        await _say(
            pilot, app, chat_server, "Hi there."
        )  # the screen works once the database is built
        chat = app.main.query_one(ChatPane)
        assert chat.messages()[-1].text == "Hello! How can I help?"


async def test_new_conversation_clears_the_panes_and_the_history(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.stream(content="Hello Emma.", usage=(900, 4))
    chat_server.stream(content="Hello again.", usage=(700, 4))
    app = AirlineApp(AgentController(_settings(chat_server, tmp_path / "a.db")), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        await _say(pilot, app, chat_server, "Hi, I am Emma.")
        chat, trace = app.main.query_one(ChatPane), app.main.query_one(TracePane)
        usage = app.main.query_one(UsagePane)
        await wait_until(pilot, lambda: len(chat.messages()) == 2)
        assert trace.entries and usage.table.row_count
        app.main.trace.focus()  # keys go to the screen, not the input
        await pilot.press("n")
        await wait_until(pilot, lambda: not chat.messages() and not trace.entries)
        assert usage.table.row_count == 0
        assert app.controller.feed.events == []
        await _say(pilot, app, chat_server, "A new question.")
    second = chat_server.requests[1]["messages"]
    assert [message["role"] for message in second] == ["system", "user"]
    assert second[-1]["content"] == "A new question."


async def test_switching_customer_shows_them_and_acts_for_them(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    # The model tries to cancel Emma Kim's EHGLP3 while the session acts for Noah Garcia.
    chat_server.stream(tool_calls=[("cancel_reservation", {"reservation_id": "EHGLP3"})])
    chat_server.stream(content="I cannot change that reservation.")
    controller = AgentController(_settings(chat_server, tmp_path / "b.db"))
    controller.feed.act_for("emma_kim_9957")
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        app.main.trace.focus()
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, CustomerPicker))
        app.screen.query_one("Input").value = "noah_garcia_7579"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, CustomerPicker))
        status = Text.from_markup(str(app.main.query_one("#status").render())).plain
        assert "customer noah_garcia_7579" in status
        assert controller.feed.conversation.customer == "noah_garcia_7579"
        await _say(pilot, app, chat_server, "Cancel EHGLP3.", requests=2)
        trace = app.main.query_one(TracePane)
        await wait_until(
            pilot, lambda: any(e.title == "tool cancel_reservation" for e in trace.entries)
        )
        tool = next(e for e in trace.entries if e.title == "tool cancel_reservation")
        assert tool.error and tool.details["error"] == "PERMISSION_DENIED"
        assert not tool.details["changes"]
    tool_message = chat_server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and "PERMISSION_DENIED" in tool_message["content"]


async def test_request_settings_reach_the_live_requests(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.stream(content="Hello.", usage=(900, 2))
    settings = _settings(chat_server, tmp_path / "a.db", temperature=0.3, max_tokens=77)
    app = AirlineApp(AgentController(settings), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        await _say(pilot, app, chat_server, "Hi.")
    body = chat_server.requests[0]
    assert body["temperature"] == 0.3
    assert body["max_tokens"] == 77
