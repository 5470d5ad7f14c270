"""What the session records of a turn, once, for every reader: a turn cancelled with esc
ends with a `TurnFinished(reason="cancelled")` in the conversation's events — what the
trace shows, and what a saved scenario or transcript is written from (defect 7 of issue
9, the TUI's part); and a customer the loop binds goes into the session's state — the
status line shows it, the trace says how (defect 8's display)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.text import Text

from airline_agent.agent.events import TurnFinished, Usage
from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.trace_pane import TracePane
from tests.support.chat_server import ChatServer
from tests.support.sample_db import seeded
from tests.tui.helpers import close_the_library, wait_until
from tests.tui.scripted_events import two_turn_controller

SIZE = (140, 40)
HELD = 3600.0  # seconds: a reply held until the server closes at the test's end
CANCELLED = "framework: turn 1 ended · cancelled"


def _live(server: ChatServer, tmp_path: Path) -> AgentController:
    settings = Settings(
        model="test-model",
        base_url=server.url,
        db=str(seeded(tmp_path / "airline.db")),
        approve="auto",
    )
    return AgentController(settings)


def _status(app: AirlineApp) -> str:
    return Text.from_markup(str(app.main.query_one("#status").render())).plain


async def test_a_cancelled_turn_is_recorded_once_and_the_trace_shows_that_record() -> None:
    controller = two_turn_controller()
    controller.gate = asyncio.Event()  # holds the turn before the model's answer
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await close_the_library(pilot)
        await pilot.press("space")
        await wait_until(pilot, lambda: app.main.turn_running and controller.feed.events)
        await pilot.press("escape")
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: CANCELLED in trace.titles())
        ends = [e for e in controller.feed.events if isinstance(e, TurnFinished)]
        # No usage came before the cancel: none counted, and the cost is unknown, not $0.
        assert ends == [TurnFinished(1, "cancelled", Usage(), None)]
        assert controller.feed.events[-1] is ends[0]
        assert trace.titles().count(CANCELLED) == 1
        shown = next(e for e in trace.entries if f"framework: {e.title}" == CANCELLED)
        assert shown.details == {"turn": 1, "reason": "cancelled"}


async def test_a_live_turn_cancelled_while_the_model_answers_is_recorded_as_cancelled(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    # Never answered while the test runs (the server lets go when it closes): esc always
    # comes while the model answers, however busy the machine (a 5 s delay raced it).
    chat_server.stream(content="Too late.", delay=HELD)
    chat_server.stream(content="Hello again.", usage=(900, 3))
    app = AirlineApp(_live(chat_server, tmp_path), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        chat = app.main.query_one(ChatPane)
        chat.input.value = "Hello?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(chat_server.requests) == 1, timeout=30)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.main.turn_running)
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: CANCELLED in trace.titles())
        events = app.controller.feed.events
        assert events[-1] == TurnFinished(1, "cancelled", Usage(), None)
        await wait_until(pilot, lambda: chat.messages()[-1].speaker == "notice")
        assert "cancelled" in chat.messages()[-1].text
        # The conversation goes on: the next turn is turn 2, and it is answered.
        chat.input.focus()
        chat.input.value = "Are you there?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(chat_server.requests) == 2, timeout=30)
        await wait_until(pilot, lambda: isinstance(app.controller.feed.events[-1], TurnFinished))
        assert app.controller.feed.events[-1].reason == "answered"  # type: ignore[union-attr]
        assert app.controller.feed.events[-1].turn == 2  # type: ignore[union-attr]


async def test_a_customer_the_loop_binds_is_shown_with_how_it_was_bound(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.stream(tool_calls=[("get_user_details", {"user_id": "emma_kim_9957"})])
    chat_server.stream(content="Hello Emma, how can I help?", usage=(900, 8))
    app = AirlineApp(_live(chat_server, tmp_path), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        assert "customer not identified" in _status(app)
        chat = app.main.query_one(ChatPane)
        chat.input.value = "Hi, I am emma_kim_9957."
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(chat_server.requests) == 2, timeout=30)
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
        trace = app.main.query_one(TracePane)
        bound = (
            "framework: customer bound: emma_kim_9957 — named by the customer, "
            "confirmed by get_user_details"
        )
        assert bound in trace.titles()
        assert (
            trace.titles().index(bound)
            == trace.titles().index("framework: tool get_user_details") + 1
        )
        assert "customer emma_kim_9957" in _status(app)
        # The conversation is the one owner of whom it acts for, and of how that came to be.
        conversation = app.controller.feed.conversation
        assert conversation is not None
        assert (conversation.customer, conversation.bound_by) == ("emma_kim_9957", "stated")
        # A new conversation binds nobody until the customer says who they are.
        app.main.trace.focus()
        await pilot.press("n")
        await wait_until(pilot, lambda: "customer not identified" in _status(app))
        assert app.controller.feed.conversation.customer is None  # type: ignore[union-attr]


async def test_a_turn_cancelled_between_events_while_auto_playing_is_recorded_too() -> None:
    # Auto-play waits `pace` between events: esc then lands in the screen's worker, not
    # inside the loop; the turn must still end as cancelled, at once.
    controller = two_turn_controller()
    app = AirlineApp(controller, pace=5.0)
    async with app.run_test(size=SIZE) as pilot:
        await close_the_library(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: app.main.turn_running and controller.feed.events)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.main.turn_running)
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: CANCELLED in trace.titles())
        ends = [e for e in controller.feed.events if isinstance(e, TurnFinished)]
        assert [e.reason for e in ends] == ["cancelled"]
        assert controller.feed.events[-1] is ends[0]
        assert trace.titles().count(CANCELLED) == 1


CANCELLED_SCENARIO = """\
name: cancelled-at-the-question
customer: emma_kim_9957
settings: {approval: ask-accept, guard: false}
turns:
  - customer: Cancel EHGLP3, plans changed.
    cancelled: true
    responses:
      - tool_calls:
          - name: cancel_reservation
            arguments: {reservation_id: EHGLP3, reason: change_of_plan}
  - customer: Thanks.
    responses:
      - content: You're welcome.
"""


async def test_a_scenario_turn_cancelled_when_recorded_plays_cancelled_in_the_tui(
    tmp_path: Path,
) -> None:
    from airline_agent.tui.screens.approval import ApprovalScreen

    library = tmp_path / "library"
    library.mkdir()
    (library / "cancelled-at-the-question.yaml").write_text(CANCELLED_SCENARIO)
    controller = AgentController(Settings(db=str(tmp_path / "unused.db")), library=library)
    app = AirlineApp(controller, pace=0)
    app.start_scenario = "cancelled-at-the-question"
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: controller.feed.scenario_name is not None, timeout=60)
        await wait_until(pilot, lambda: not app.main.turn_running)
        await pilot.press(">")
        trace = app.main.query_one(TracePane)
        await wait_until(pilot, lambda: CANCELLED in trace.titles(), timeout=30)
        assert not isinstance(app.screen, ApprovalScreen)  # a question nobody answers
        assert "framework: approval asked · 1 write call" in trace.titles()
        assert "framework: tool cancel_reservation" not in trace.titles()  # never ran
        await wait_until(pilot, lambda: not app.main.turn_running)
        await pilot.press(">")
        await wait_until(
            pilot, lambda: controller.feed.steps_left == 0 and not app.main.turn_running
        )
        await wait_until(pilot, lambda: not app.main.backlog)
        ends = [e.reason for e in controller.feed.events if isinstance(e, TurnFinished)]
        assert ends == ["cancelled", "answered"]
        assert not any("diverged" in title for title in trace.titles())


async def test_a_live_conversation_with_a_cancelled_turn_saves_and_replays_it_cancelled(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    from airline_agent.scenarios.loader import load_scenario
    from airline_agent.scenarios.runner import replay_scenario_async

    # Never answered while the test runs (the server lets go when it closes): esc always
    # comes while the model answers, however busy the machine (a 5 s delay raced it).
    chat_server.stream(content="Too late.", delay=HELD)
    chat_server.stream(content="Hello again.", usage=(900, 3))
    controller = _live(chat_server, tmp_path)
    app = AirlineApp(controller, pace=0)
    saved = tmp_path / "with-a-cancel.yaml"
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, timeout=60)
        chat = app.main.query_one(ChatPane)
        chat.input.value = "Hello?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(chat_server.requests) == 1, timeout=30)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.main.turn_running)
        chat.input.focus()
        chat.input.value = "Are you there?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(chat_server.requests) == 2, timeout=30)
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
        controller.save_scenario(saved)
    scenario = load_scenario(saved)
    assert [turn.cancelled for turn in scenario.turns] == [True, False]
    report = await replay_scenario_async(scenario, path=saved)
    assert report.status == "passed", report.why()
    assert report.ends == ["cancelled", "answered"]


def test_the_scripted_turns_usage_is_the_sum_of_their_requests() -> None:
    """The hand-made events agree with themselves: each turn's usage is its requests' sum
    (a snapshot's turn row then agrees with its totals, and can catch a real bug)."""
    from airline_agent.agent.events import TurnFinished, Usage, UsageReported
    from tests.tui.scripted_events import two_turn_controller

    for _, events in two_turn_controller().turns:
        reported = [e.usage for e in events if isinstance(e, UsageReported) and e.usage]
        [finished] = [e for e in events if isinstance(e, TurnFinished)]
        assert finished.usage == Usage(
            sum(u.prompt_tokens for u in reported),
            sum(u.completion_tokens for u in reported),
            sum(u.cached_tokens for u in reported),
            sum(u.reasoning_tokens for u in reported),
        )
