"""Issue 11's teaching half, on the shipped showcase (cancel-ehglp3) through the real loop,
tools and database: STEP A before STEP B in the trace, the tool_call_id link, reasoning
per request and visibly not sent back, the prefix, the raw response and who produced
what in the inspector, honest figures; and secrets kept off the screen and out of files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from textual.widgets import Collapsible

from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.inspector import InspectorScreen
from airline_agent.tui.widgets.chat_pane import ChatPane
from airline_agent.tui.widgets.trace_pane import LINKED_STYLE, TracePane
from airline_agent.tui.widgets.usage_pane import UsagePane
from tests.support.chat_server import ChatServer
from tests.support.sample_db import seeded
from tests.tui.helpers import library_shown, wait_until

SIZE = (160, 48)
SHOWCASE = Path(__file__).resolve().parents[2] / "data/scenarios/cancel-ehglp3.yaml"


@pytest.fixture
def library(tmp_path: Path) -> Path:
    folder = tmp_path / "library"
    folder.mkdir()
    shutil.copy(SHOWCASE, folder / SHOWCASE.name)
    return folder


async def _first_turn(pilot, app: AirlineApp) -> TracePane:
    await wait_until(pilot, lambda: library_shown(app))
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.controller.feed.scenario_name == "cancel-ehglp3", 60)
    await pilot.press(">")
    trace = app.main.query_one(TracePane)
    await wait_until(pilot, lambda: "model: response #2 · reply" in trace.titles(), 60)
    await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog, 30)
    return trace


def _index(trace: TracePane, title: str) -> int:
    return trace.titles().index(title)


async def test_the_trace_builds_the_request_in_order_and_links_each_call_to_its_result(
    library: Path,
) -> None:
    app = AirlineApp(AgentController(Settings(), library=library), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        trace = await _first_turn(pilot, app)
        titles = trace.titles()
        # STEP A: the developer's part, then the customer's message, then the request.
        assert titles[:3] == [
            "developer: system prompt + 14 tool schemas",
            "customer: turn 1 · customer message",
            "api: request #1 → qwen3.6-plus",
        ]
        assert "prefix " in trace.entries[0].body and "tokens" in trace.entries[0].body
        call = _index(trace, "model: response #1 · 1 tool call")
        result = _index(trace, "framework: tool get_reservation_details")
        assert "· id call_ehglp3_1" in trace.entries[call].body
        assert "role: tool · tool_call_id call_ehglp3_1" in trace.entries[result].body
        # Highlighting the result marks its call, and the other way round.
        trace.focus()
        trace.highlighted = result
        await wait_until(pilot, lambda: trace.linked == {call})
        assert trace.linked_to(call) == {result}
        line = next(
            y for y in range(trace.size.height) if "response #1" in trace.render_line(y).text
        )
        linked = LINKED_STYLE.bgcolor
        assert any(s.style and s.style.bgcolor == linked for s in trace.render_line(line))
        # The next request: the prefix unchanged since #1, the reasoning left out.
        request_two = trace.entries[_index(trace, "api: request #2 → qwen3.6-plus")].body
        assert "unchanged since request #1" in request_two
        assert "reasoning_content of response #1 not sent back" in request_two


async def test_each_requests_reasoning_stays_with_its_request_in_the_chat(library: Path) -> None:
    app = AirlineApp(AgentController(Settings(), library=library), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _first_turn(pilot, app)
        agent = app.main.query_one(ChatPane).messages()[-1]
        assert agent.reasoning_of(1).startswith("Thinking Process:")
        assert agent.reasoning_of(2).startswith("The reservation belongs to emma_kim_9957")
        assert "Thinking Process" not in agent.reasoning_of(2)
        titles = [str(block.title) for block in agent.query(Collapsible)]
        assert titles == ["reasoning · request #1", "reasoning · request #2"]


async def test_usage_shows_cached_and_reasoning_tokens_in_one_format_and_scripted_times(
    library: Path,
) -> None:
    app = AirlineApp(AgentController(Settings(), library=library), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _first_turn(pilot, app)
        rows = app.main.query_one(UsagePane).table.lines()
        assert rows[0].split() == ["#1", "2,874", "2,560", "121", "100", "scripted"]
        assert rows[1].split() == ["#2", "3,211", "2,816", "207", "89", "scripted"]
        assert rows[2].split()[:6] == ["turn", "1", "6,085", "5,376", "328", "189"]
        assert not any(" ms" in row or "k " in row for row in rows)


async def test_the_inspector_shows_the_generated_response_and_who_produced_what(
    library: Path,
) -> None:
    app = AirlineApp(AgentController(Settings(), library=library), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await _first_turn(pilot, app)
        app.main.action_inspect()
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen)
        await pilot.press("left_square_bracket")  # request #1
        notes = str(inspector.query_one("#inspector-notes").render())
        assert "generated offline from the scripted response" in notes
        title = str(inspector.query_one("#inspector-title").render())
        assert title.startswith("Request #1 of 2") and "prefix " in title
        inspector.query_one("TabbedContent").active = "response-tab"
        await pilot.pause()
        response = inspector.shown_json
        assert '"generated_by": "airline-agent (scripted)"' in response
        assert '"finish_reason": "tool_calls"' in response
        assert '"arguments": "{\\"reservation_id\\": \\"EHGLP3\\"}"' in response
        assert '"cached_tokens": 2560' in response and '"reasoning_tokens": 100' in response
        rows = inspector.anatomy_rows()
        who = [(row[0], row[1], row[2]) for row in rows]
        assert who[:2] == [("A", "developer", "system prompt"), ("A", "developer", "tools")]
        assert ("A", "customer", "customer message") in who
        reasoning = next(row for row in rows if row[:3] == ("B", "model", "reasoning_content"))
        assert "not sent back" in reasoning[5]
        assert ("B", "api", "finish_reason") in who
        await pilot.press("right_square_bracket")  # request #2: the reasoning is not in it
        notes = str(inspector.query_one("#inspector-notes").render())
        assert "reasoning_content of response #1 not sent back" in notes


KEY = "sk-live-secret-key-4242"
PASSWORD = "url-password-9999"


async def test_an_api_key_and_a_base_url_credential_never_reach_the_screen_or_a_file(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    base_url = chat_server.url.replace("http://", f"http://proxyuser:{PASSWORD}@")
    settings = Settings(
        model="test-model", base_url=base_url, api_key=KEY, db=str(seeded(tmp_path / "a.db"))
    )
    echoed = f"Your key is {KEY} and the proxy password is {PASSWORD}."
    chat_server.stream(echoed, reasoning=f"The key {KEY} was in the prompt.")
    controller = AgentController(settings)
    app = AirlineApp(controller, pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, 60)
        chat = app.main.query_one(ChatPane)
        chat.input.focus()
        chat.input.value = f"my key is {KEY}"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(chat_server.requests) >= 1, 30)
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog, 30)
        assert "proxyuser:***@127.0.0.1" in controller.feed.source
        agent = chat.messages()[-1]
        assert "[redacted]" in agent.text and "[redacted]" in agent.reasoning
        screens = [app.export_screenshot()]
        app.main.action_inspect()
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen)
        shown = [inspector.shown_json, inspector.response_json, app.export_screenshot()]
        saved = controller.save_transcript(tmp_path / "out")
        saved.append(controller.save_scenario(tmp_path / "out" / "live.yaml"))
        files = [path.read_text(encoding="utf-8") for path in saved]
        trace = app.main.trace
        rows = [str(trace.get_option_at_index(i).prompt) for i in range(trace.option_count)]
        assert any("my key is [redacted]" in row for row in rows)
        texts = [*screens, *shown, *files, *rows]
        for text in texts:
            assert KEY not in text and PASSWORD not in text


async def test_while_a_live_response_is_awaited_the_status_line_counts_the_seconds(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    settings = Settings(
        model="test-model",
        base_url=chat_server.url,
        api_key=KEY,
        db=str(seeded(tmp_path / "a.db")),
    )
    progress = {"total": 2874, "cache": 512, "processed": 1024, "time_ms": 80}
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "model": "test-model", "created": 1,
         "choices": [{"index": 0, "delta": {"role": "assistant", "content": None},
                      "finish_reason": None}], "prompt_progress": progress},
        {"id": "c1", "object": "chat.completion.chunk", "model": "test-model", "created": 1,
         "choices": [{"index": 0, "delta": {"content": "Hello."}, "finish_reason": "stop"}]},
    ]  # fmt: skip
    body = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
    # Held long enough for a tick of the status line (no figure is asserted on it).
    chat_server.raw(body, content_type="text/event-stream", delay=4.0)
    app = AirlineApp(AgentController(settings), pace=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, 60)
        state = app.controller.status
        chat = app.main.query_one(ChatPane)
        chat.input.focus()
        chat.input.value = "hello"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "s for response #1" in state.activity, 30)
        assert state.activity.startswith("waiting ") and state.activity.endswith("esc cancels")
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog, 30)
        assert state.activity == ""
        [shown] = [e for e in app.controller.feed.events if type(e).__name__ == "PromptProgress"]
        assert (shown.processed, shown.total, shown.cached) == (1024, 2874, 512)
