"""The debugger in the TUI: `space` steps the wire in the articles' order, `>` plays to the
end of the turn, breakpoints hold a request before the server receives anything, an
edited body is what the server receives byte for byte, an edited tool argument is what
the tool runs with, and a fork goes on apart from its original, each with its database,
saved as a scenario that replays."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import openai
from rich.text import Text
from textual.widgets import Input, TextArea

from airline_agent.agent.events import RequestHeld, ToolCallHeld, ToolFinished, TurnFinished
from airline_agent.config import Settings
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.runner import replay_scenario_async
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.inspector import InspectorScreen
from airline_agent.tui.screens.json_editor import JsonEditorScreen
from airline_agent.tui.screens.prompt import PromptScreen
from tests.support.chat_server import ChatServer
from tests.support.sample_db import seeded
from tests.tui.helpers import wait_until

SIZE = (160, 48)
DEADLINE = 60.0  # a scenario's fresh copy, a loopback server: generous under load


def _status(app: AirlineApp) -> str:
    return Text.from_markup(str(app.main.query_one("#status").render())).plain


async def _at_rest(pilot, app: AirlineApp) -> None:
    """Held (or the turn over) and everything the turn produced is on screen."""
    main = app.main
    feed = app.controller.feed
    await wait_until(pilot, lambda: feed.held is not None or not main.turn_running, DEADLINE)
    await wait_until(pilot, lambda: not main.backlog, DEADLINE)


async def _playing(pilot, app: AirlineApp, scenario: str) -> None:
    await wait_until(pilot, lambda: app.controller.feed.scenario_name == scenario, DEADLINE)
    await wait_until(pilot, lambda: not app.main.turn_running, DEADLINE)


def _offline(tmp_path: Path, scenario: str) -> AirlineApp:
    app = AirlineApp(AgentController(Settings(db=str(tmp_path / "unused.db"))), pace=0)
    app.start_scenario = scenario
    return app


async def test_space_steps_the_showcase_in_the_articles_order(tmp_path: Path) -> None:
    app = _offline(tmp_path, "cancel-ehglp3")
    async with app.run_test(size=SIZE) as pilot:
        await _playing(pilot, app, "cancel-ehglp3")
        feed = app.controller.feed
        trace = app.main.trace
        seen: list[tuple[str | None, str | None, int]] = []
        for press in ["space"] * 5 + [">"]:  # the rest of turn 2 at once
            await _at_rest(pilot, app)
            last = trace.titles()[-1] if trace.entries else None
            seen.append((feed.upcoming(), last, feed.conversation.requests))
            assert f"next: {feed.upcoming()}" in _status(app)
            await pilot.press(press)
        assert seen == [
            ("customer message (turn 1)", None, 0),
            # Held before the request: nothing is sent yet.
            ("send request #1", None, 0),
            ("run get_reservation_details (call_ehglp3_1)", "model: response #1 · 1 tool call", 1),
            ("send request #2", "framework: tool get_reservation_details", 1),
            ("customer message (turn 2)", "model: response #2 · reply", 2),
            ("send request #3", "customer: turn 2 · customer message", 2),
        ]
        await wait_until(pilot, lambda: not app.main.turn_running, DEADLINE)
        assert feed.conversation.requests == 3 and feed.upcoming() is None
        assert "next:" not in _status(app)
        # The steps the events carry, in order: the loop's own numbering, none skipped.
        steps = [getattr(event, "step", 0) for event in feed.events]
        assert [step for step in steps if step] == list(range(1, 10))


async def test_the_footer_offers_the_turn_key(tmp_path: Path) -> None:
    from textual.widgets._footer import FooterKey

    app = _offline(tmp_path, "cancel-ehglp3")
    async with app.run_test(size=SIZE) as pilot:
        await _playing(pilot, app, "cancel-ehglp3")
        await wait_until(pilot, lambda: bool(app.main.query(FooterKey)))
        keys = {key.key for key in app.main.query(FooterKey)}
        assert {"space", "greater_than_sign"} <= keys


# -- live, against the loopback server ----------------------------------------------------

EMMA = "emma_kim_9957"


def _live(server: ChatServer, tmp_path: Path, **settings: object) -> AirlineApp:
    chosen = Settings(
        model="gpt-4o-mini",
        base_url=server.url,
        api_key="sk-debugger-test-key",
        db=str(seeded(tmp_path / "airline.db")),
        approve="auto",
        stream=False,
        **settings,
    )
    controller = AgentController(chosen)
    controller.feed.act_for(EMMA)
    return AirlineApp(controller, pace=0)


async def _ready(pilot, app: AirlineApp) -> None:
    await wait_until(pilot, lambda: app.controller.feed.ready, DEADLINE)
    await pilot.press("escape")  # out of the chat input: the letters are keys


async def _say(pilot, app: AirlineApp, text: str) -> None:
    chat = app.main.chat
    chat.input.focus()
    chat.input.value = text
    await pilot.press("enter")


async def _held(pilot, app: AirlineApp, kind: type) -> object:
    feed = app.controller.feed
    await wait_until(pilot, lambda: isinstance(feed.held, kind), DEADLINE)
    await wait_until(pilot, lambda: not app.main.backlog, DEADLINE)
    return feed.held


async def test_a_request_breakpoint_holds_it_until_space(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.completion("marker")  # answers the probe below, sent while the turn is held
    chat_server.completion("Hello Emma, how can I help?")
    app = _live(chat_server, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        await pilot.press("b")
        assert app.controller.feed.breakpoints.request
        assert "break: requests" in _status(app)
        await _say(pilot, app, "hi")
        held = await _held(pilot, app, RequestHeld)
        assert "next: send request #1 (break: request)" in _status(app)
        # Another client's request makes a whole round trip through the same event loop
        # and server meanwhile: the server has received that one, and only that one.
        probe = openai.AsyncOpenAI(api_key="k", base_url=chat_server.url, max_retries=0)
        await probe.chat.completions.create(
            model="probe", messages=[{"role": "user", "content": "?"}]
        )
        await probe.close()
        assert [body["model"] for body in chat_server.requests] == ["probe"]
        assert app.main.turn_running and app.controller.feed.held is held
        await pilot.press("space")
        await wait_until(pilot, lambda: not app.main.turn_running, DEADLINE)
        assert [body["model"] for body in chat_server.requests] == ["probe", "gpt-4o-mini"]
        assert app.main.chat.messages()[-1].text == "Hello Emma, how can I help?"


async def test_an_edited_body_is_what_the_server_receives_byte_for_byte(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.completion("EHGLP3 flies from PHX to JFK.")
    app = _live(chat_server, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        await pilot.press("b")
        await _say(pilot, app, "hi")
        await _held(pilot, app, RequestHeld)
        await pilot.press("i")  # the inspector shows the body about to be sent
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        shown = json.loads(app.screen.shown_json)
        assert shown["messages"][-1] == {"role": "user", "content": "hi"}
        await pilot.press("e")  # edits it from there
        editor = await _editor(pilot, app)
        body = json.loads(editor.text)
        assert body == shown
        area = editor.query_one(TextArea)
        area.text = '{"model": "gpt-4o-mini", "messages": []}'
        await pilot.press("ctrl+s")  # refused: the problem is shown, the editor stays
        await wait_until(pilot, lambda: bool(editor.shown_problems))
        assert app.screen is editor and any("messages" in p for p in editor.shown_problems)
        area.text = "{ not json"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: "not valid JSON" in editor.shown_problems[0])
        assert chat_server.requests == []
        body["messages"][-1]["content"] = "I am emma_kim_9957: where does EHGLP3 go?"
        body["temperature"] = 0.25
        edited = json.dumps(body, indent=1, ensure_ascii=False) + "\n"  # no client writes so
        area.text = edited
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not app.main.turn_running, DEADLINE)
        assert chat_server.raw_requests == [edited.encode("utf-8")]
        trace = app.main.trace
        await wait_until(pilot, lambda: "api: request #1 → gpt-4o-mini · edited" in trace.titles())
        assert "you: request #1 edited before it was sent" in trace.titles()
        yours = next(entry for entry in trace.entries if entry.producer == "you")
        assert 'changed: messages #1, "temperature"' in yours.body
        await pilot.press("i")  # the inspector: the body sent, and the diff
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        await pilot.press("4")
        diff = app.screen.shown_json.splitlines()
        assert '-      "content": "hi"' in diff
        assert '+      "content": "I am emma_kim_9957: where does EHGLP3 go?"' in diff


async def test_an_edited_tool_argument_runs_with_the_edit(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    model_says = {"reservation_id": "ZZZZZZ"}
    chat_server.completion(tool_calls=[("get_reservation_details", model_says, "call_lookup")])
    chat_server.completion("EHGLP3 flies from PHX to JFK.")
    app = _live(chat_server, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot, app)
        await pilot.press("b")  # held before request #1; from there, space steps
        await _say(pilot, app, "Where does my trip EHGLP3 go?")
        await _held(pilot, app, RequestHeld)
        await pilot.press("space")
        held = await _held(pilot, app, ToolCallHeld)
        assert "next: run get_reservation_details (call_lookup)" in _status(app)
        assert held.call.arguments == json.dumps(model_says)
        await pilot.press("e")
        editor = await _editor(pilot, app)
        assert json.loads(editor.text) == model_says
        editor.query_one(TextArea).text = '{"reservation_id": "EHGLP3"}'
        await pilot.press("ctrl+s")
        await _held(pilot, app, RequestHeld)  # still stepping: before request #2
        await pilot.press(">")
        await wait_until(pilot, lambda: not app.main.turn_running, DEADLINE)
        [finished] = [e for e in app.controller.feed.events if isinstance(e, ToolFinished)]
        assert finished.arguments == {"reservation_id": "EHGLP3"} and finished.error is None
        assert finished.result["reservation_id"] == "EHGLP3"
        # The server was sent the model's call as it made it, answered by the edited run.
        assistant, answer = chat_server.requests[1]["messages"][-2:]
        assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == model_says
        assert answer["tool_call_id"] == "call_lookup" and "EHGLP3" in answer["content"]
        trace = app.main.trace
        await wait_until(pilot, lambda: not app.main.backlog)
        titles = trace.titles()
        yours = titles.index(
            "you: get_reservation_details (call_lookup) arguments edited before it ran"
        )
        assert titles[yours + 1] == "framework: tool get_reservation_details"


async def _editor(pilot, app: AirlineApp) -> JsonEditorScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, JsonEditorScreen))
    await wait_until(pilot, lambda: bool(app.screen.query(TextArea)))
    return app.screen  # type: ignore[return-value]


def _status_of(database: Path | None, reservation: str = "EHGLP3") -> str | None:
    """A reservation's status in a database file (None: active)."""
    import sqlite3

    assert database is not None
    with closing(sqlite3.connect(database)) as connection:
        row = connection.execute(
            "SELECT status FROM reservation WHERE reservation_id = ?", (reservation,)
        ).fetchone()
    return row[0]


async def test_a_fork_before_a_cancellation_goes_on_apart_and_its_saved_scenario_replays(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.completion("Hello Emma, how can I help?")
    cancel = {"reservation_id": "EHGLP3", "reason": "change_of_plan"}
    chat_server.completion(tool_calls=[("cancel_reservation", cancel, "call_cancel")])
    chat_server.completion("Done: EHGLP3 is cancelled.")
    app = _live(chat_server, tmp_path, guard=False)  # the write goes through
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.controller.feed.ready, DEADLINE)
        feed = app.controller.feed
        for text in ("Hi, I am emma_kim_9957.", "Please cancel EHGLP3."):
            await _say(pilot, app, text)
            await wait_until(pilot, lambda: not app.main.turn_running, DEADLINE)
        debugger = feed.debugger
        assert debugger is not None and _status_of(feed.working_database_file()) == "cancelled"
        trace = app.main.trace
        await wait_until(pilot, lambda: "framework: tool cancel_reservation" in trace.titles())
        trace.focus()
        trace.highlighted = trace.titles().index("model: response #1 · reply")  # step 3
        await pilot.press("f")
        await wait_until(pilot, lambda: len(debugger.branches) == 2, DEADLINE)
        await wait_until(pilot, lambda: "branch 2/2" in _status(app) and not app.main.backlog)
        original, fork = debugger.branches
        assert debugger.current is fork and fork.forked_at == 3
        assert "framework: tool cancel_reservation" not in trace.titles()  # the fork's events
        assert _status_of(fork.database_file) is None  # as it was after step 3
        assert _status_of(original.database_file) == "cancelled"

        chat_server.completion("Of course: EHGLP3 stays booked.")
        await _say(pilot, app, "Actually, never mind: keep it.")
        await wait_until(pilot, lambda: not app.main.turn_running, DEADLINE)
        sent = chat_server.requests[-1]["messages"]
        assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
        assert _status_of(fork.database_file) is None
        assert _status_of(original.database_file) == "cancelled"

        await pilot.press("escape", "[")  # out of the chat input; the original, intact
        await wait_until(pilot, lambda: "branch 1/2" in _status(app) and not app.main.backlog)
        assert "framework: tool cancel_reservation" in trace.titles()
        await pilot.press("]")
        await wait_until(pilot, lambda: "branch 2/2" in _status(app) and not app.main.backlog)

        target = tmp_path / "kept.yaml"
        await pilot.press("s")  # the branch on screen, saved by the usual path
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await wait_until(pilot, target.exists, DEADLINE)
    saved = load_scenario(target)
    assert [turn.customer for turn in saved.turns] == [
        "Hi, I am emma_kim_9957.",
        "Actually, never mind: keep it.",
    ]
    report = await replay_scenario_async(saved)
    assert report.status == "passed", report.why()
    assert report.changes == []  # nothing was cancelled on the fork


async def test_an_offline_fork_cut_in_a_turn_resumes_with_the_rest_of_its_script(
    tmp_path: Path,
) -> None:
    app = _offline(tmp_path, "cancel-business-refund")
    async with app.run_test(size=SIZE) as pilot:
        await _playing(pilot, app, "cancel-business-refund")
        feed = app.controller.feed
        for _ in range(3):
            await pilot.press(">")
            await wait_until(pilot, lambda: not app.main.turn_running, DEADLINE)
        assert (
            feed.steps_left == 0
            and _status_of(feed.working_database_file(), "GWL0HE") == "cancelled"
        )
        trace = app.main.trace
        await wait_until(pilot, lambda: not app.main.backlog)
        # Step 12: the model asks to cancel; nothing ran yet.
        asked = next(i for i, e in enumerate(trace.entries) if e.step == 12)
        assert trace.entries[asked].title.endswith("1 tool call")
        trace.focus()
        trace.highlighted = asked
        await pilot.press("f")
        debugger = feed.debugger
        await wait_until(pilot, lambda: len(debugger.branches) == 2, DEADLINE)
        await wait_until(pilot, lambda: "next: resume turn 3" in _status(app))
        fork = debugger.current
        assert _status_of(fork.database_file, "GWL0HE") is None
        await pilot.press("space")  # resumes, stepping: held before the call runs
        await _held(pilot, app, ToolCallHeld)
        assert "next: run cancel_reservation" in _status(app)
        await pilot.press(">")
        await wait_until(pilot, lambda: not app.main.turn_running, DEADLINE)
        assert _status_of(fork.database_file, "GWL0HE") == "cancelled"
        assert feed.divergence is None  # the rest of the script, as recorded
        finished = [e for e in feed.events if isinstance(e, TurnFinished)]
        assert [e.reason for e in finished][-1] == "answered"


async def test_a_refused_fork_says_why_and_changes_nothing(tmp_path: Path, monkeypatch) -> None:
    from airline_agent.agent.debugger import Debugger, ForkFailed

    def refused(self: Debugger, step: int, of: object = None) -> None:
        raise ForkFailed(f"step {step} (cancel_reservation) does not do again what it did")

    monkeypatch.setattr(Debugger, "fork", refused)
    app = _offline(tmp_path, "cancel-ehglp3")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await _playing(pilot, app, "cancel-ehglp3")
        await pilot.press(">")
        await wait_until(pilot, lambda: not app.main.turn_running and not app.main.backlog)
        trace = app.main.trace
        trace.focus()
        trace.highlighted = 2
        await pilot.press("f")
        said = lambda: [n.message for n in app._notifications]  # noqa: E731
        await wait_until(pilot, lambda: any(m.startswith("No fork: step") for m in said()))
        assert len(app.controller.feed.debugger.branches) == 1
        assert "branch" not in _status(app)


async def test_auto_play_plays_through_steps_and_stops_at_a_breakpoint(tmp_path: Path) -> None:
    app = _offline(tmp_path, "cancel-ehglp3")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await _playing(pilot, app, "cancel-ehglp3")
        feed = app.controller.feed
        await pilot.press("x")  # break on an error result: the showcase has none
        await pilot.press("a")
        await wait_until(pilot, lambda: feed.steps_left == 0 and not app.main.turn_running)
        assert feed.conversation.requests == 3  # no hold on the way
        await pilot.press("r")  # again, with a break before every request
        await wait_until(pilot, lambda: feed.steps_left == 2 and not app.main.turn_running)
        await pilot.press("b", "a")
        await _held(pilot, app, RequestHeld)
        assert not app.main.autoplay and feed.conversation.requests == 0
        said = [n.message for n in app._notifications]
        assert "Auto-play stopped at a breakpoint (request)." in said
        assert "break: requests, errors" in _status(app)
