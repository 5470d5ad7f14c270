"""The TUI part: launch to the first full screen, and a 200-turn conversation into the panes.

- tui_first_screen: a fresh process from start to the first painted screen (offline, the
  scenario library on top), beside a bare Textual app with one Static in the same run.
  Target: under 1 s.
- tui_200_turns: a generated 200-turn conversation (two requests, one tool call and a
  streamed reply per turn) played into the chat, trace and usage panes, headless.
- tui_key_latency: while that conversation plays, key press (`g`, guard) to the status
  line showing the change. Target: under 100 ms.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from benchmarks.common import Row, timing

ROOT = Path(__file__).resolve().parents[2]

FIRST_SCREEN = """
from airline_agent.config import Settings
from airline_agent.tui.app import AirlineApp
from airline_agent.tui.controller import AgentController
from airline_agent.tui.screens.picker import ScenarioPicker

class Probe(AirlineApp):
    def on_mount(self) -> None:
        super().on_mount()
        self.set_interval(0.005, self._check)

    def _check(self) -> None:
        if isinstance(self.screen, ScenarioPicker):  # the first full screen is up
            self.call_after_refresh(self.exit)

Probe(AgentController(Settings())).run(headless=True, size=(140, 40))
"""

BARE = """
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static("hello")

    def on_mount(self) -> None:
        self.call_after_refresh(self.exit)

Bare().run(headless=True, size=(140, 40))
"""


def _launch(code: str, workdir: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AIRLINE_AGENT_"))}
    env["PYTHONPATH"] = str(ROOT)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=workdir, env=env, check=True)
    return (time.perf_counter() - start) * 1000


def first_screen(runs: int) -> list[Row]:
    ours, bare = [], []
    with tempfile.TemporaryDirectory() as workdir:
        for _ in range(runs):  # interleaved, so both see the same machine load
            ours.append(_launch(FIRST_SCREEN, workdir))
            bare.append(_launch(BARE, workdir))
    ours_t, bare_t = timing(ours), timing(bare)
    return [
        Row(
            "tui",
            "launch to first full screen (offline library)",
            ours_t,
            "bare Textual app, one Static",
            bare_t,
            target="< 1000 ms",
            met=ours_t.median_ms < 1000,
        )
    ]


def _conversation(turn: int, request: int) -> list:
    from airline_agent.agent.events import (
        AssistantMessage,
        RequestSent,
        TextDelta,
        ToolCall,
        ToolFinished,
        TurnFinished,
        TurnStarted,
        Usage,
        UsageReported,
    )

    reply = (
        f"Reservation **R{turn:05d}** is confirmed for turn {turn}: two passengers, "
        "economy, one checked bag each. Anything else I can do?"
    )
    messages = [{"role": "user", "content": "x"}] * min(turn * 4, 400)
    usage = Usage(1500 + 40 * turn, 30, 1024, 0)
    return [
        TurnStarted(turn, f"Please look up reservation R{turn:05d}."),
        RequestSent(turn, request, "bench", messages, [], {"stream": True}),
        AssistantMessage(
            request,
            None,
            (ToolCall(f"c{request}", "get_reservation_details", '{"reservation_id": "R"}'),),
            None,
            "tool_calls",
            5.0,
        ),
        UsageReported(request, usage, None, "bench", 5.0, 128000),
        ToolFinished(
            f"c{request}",
            "get_reservation_details",
            {"reservation_id": f"R{turn:05d}"},
            {"reservation_id": f"R{turn:05d}", "passengers": [{"first_name": "A"}] * 2},
            None,
            1.0,
        ),
        RequestSent(turn, request + 1, "bench", messages, [], {"stream": True}),
        *(TextDelta(request + 1, reply[i : i + 16]) for i in range(0, len(reply), 16)),
        AssistantMessage(request + 1, reply, (), None, "stop", 5.0),
        UsageReported(request + 1, usage, None, "bench", 5.0, 128000),
        TurnFinished(turn, "answered", usage + usage, None),
    ]


async def _play(turns: int) -> tuple[float, list[float]]:
    from airline_agent.tui.app import AirlineApp
    from airline_agent.tui.controller import SessionController
    from airline_agent.tui.widgets.status_bar import SessionStatus

    class Generated(SessionController):
        mode = "offline"

        def __init__(self) -> None:
            super().__init__(SessionStatus("scenario: bench", "bench", "none", True, "auto", "-"))
            self.turn = 0
            self.scenario_name = "bench"

        def next_customer_message(self) -> str | None:
            return "next" if self.turn < turns else None

        @property
        def steps_left(self) -> int:
            return turns - self.turn

        async def run_turn(self, text: str) -> AsyncIterator:
            self.turn += 1
            for event in _conversation(self.turn, 2 * self.turn - 1):
                yield event

    controller = Generated()
    app = AirlineApp(controller, pace=0)
    latencies: list[float] = []
    async with app.run_test(size=(150, 45)) as pilot:
        while app.screen is not app.main:
            await pilot.press("escape")
        start = time.perf_counter()
        app.main.autoplay = True
        app.main.action_step()
        status = app.main.query_one("#status")
        while controller.turn < turns or app.main.turn_running:
            guard = controller.status.guard
            pressed = time.perf_counter()
            await pilot.press("g")
            while controller.status.guard == guard or status._repaint_required:
                await asyncio.sleep(0.001)
            await pilot.pause()  # the repaint has been processed
            latencies.append((time.perf_counter() - pressed) * 1000)
            await asyncio.sleep(0.05)
        trace = app.main.query_one("#trace")
        await pilot.pause()
        elapsed = (time.perf_counter() - start) * 1000
        assert len(trace.entries) >= turns * 5, len(trace.entries)
    return elapsed, latencies


def conversation(turns: int, runs: int) -> list[Row]:
    totals, latencies = [], []
    for _ in range(runs):
        elapsed, keys = asyncio.run(_play(turns))
        totals.append(elapsed)
        latencies.extend(keys)
    keys_t = timing(latencies)
    return [
        Row("tui", f"play {turns}-turn conversation into the panes", timing(totals)),
        Row(
            "tui",
            f"key press to screen while playing ({len(latencies)} presses)",
            keys_t,
            target="< 100 ms (p90)",
            met=keys_t.p90_ms < 100,
        ),
    ]


def run(quick: bool) -> list[Row]:
    sys.path.insert(0, str(ROOT))
    return [
        *first_screen(runs=3 if quick else 10),
        *conversation(turns=200, runs=1 if quick else 3),
    ]
