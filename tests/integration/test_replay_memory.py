"""Replaying a long scenario takes memory in proportion to its turns, not to their square.

Every request body holds the whole history so far; keeping every body (the scripted
backend did) or every request's event (the runner did, for transcripts nobody asked for)
made a replay of 1,000 / 2,000 / 4,000 turns peak at 117 / 230 / 645 MB. The fast tests
check the two places that kept them; the slow one measures the peak memory of the real
command at 2,000, 4,000 and 8,000 turns.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.cli import app
from airline_agent.commands import replay_work
from airline_agent.scenarios import runner
from airline_agent.scenarios.loader import load_scenario
from tests.support.events import run_turn
from tests.support.fake_toolbox import FakeToolbox
from tests.support.profile import heavy


def many_turns(path: Path, turns: int) -> Path:
    lines = [f"name: many-turns-{turns}", "customer: emma_kim_9957", "turns:"]
    lookup = "{name: get_reservation_details, arguments: {reservation_id: EHGLP3}}"
    for number in range(turns):
        lines += [
            f"- customer: Please look up EHGLP3 again ({number}).",
            f"  responses: [{{tool_calls: [{lookup}]}}, {{content: A basic economy trip.}}]",
            "  expect: {tools: [get_reservation_details]}",
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_the_scripted_backend_keeps_only_the_bodies_of_the_turn_it_plays() -> None:
    backend = ScriptedBackend()
    s = AgentSession(backend, FakeToolbox(), LoopOptions(stream=False))
    for turn in range(3):
        backend.load([ScriptedResponse(f"answer {turn}")])
        await run_turn(s, f"question {turn}")
        assert len(backend.requests) == 1  # this turn's request, not all of them
    assert backend.requests[0]["messages"][-1]["content"] == "question 2"


def test_a_replay_without_a_transcript_keeps_no_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reports: list[runner.ScenarioReport] = []
    replay = runner.replay_scenario

    def keep_report(*args, **kwargs):
        reports.append(replay(*args, **kwargs))
        return reports[-1]

    # `replay` runs each scenario through the name its door imported.
    monkeypatch.setattr(replay_work, "replay_scenario", keep_report)
    path = many_turns(tmp_path / "many.yaml", 3)
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    [report] = reports
    assert report.turns == 3 and report.events == []
    # With a transcript to write, the events are kept (and written).
    reports.clear()
    result = CliRunner().invoke(app, ["replay", str(path), "--transcript", str(tmp_path / "t")])
    assert result.exit_code == 0, result.output
    assert reports[0].events and (tmp_path / "t" / "many-turns-3.jsonl").is_file()


def test_the_runner_still_gives_the_events_when_asked(tmp_path: Path) -> None:
    scenario = load_scenario(many_turns(tmp_path / "many.yaml", 2))
    assert runner.replay_scenario(scenario).events
    assert runner.replay_scenario(scenario, keep_events=False).events == []


# The child reports its own high-water mark: a forked child's ru_maxrss would count the
# pytest process it was forked from.
REPORT_PEAK = """
import atexit, sys
def report():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            sys.stderr.write(line)
atexit.register(report)
sys.argv = ["airline-agent", "replay", sys.argv[1]]
from airline_agent.cli import main
main()
"""


def peak_rss_kb(path: Path) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AIRLINE_AGENT_"))}
    child = subprocess.run(
        [sys.executable, "-c", REPORT_PEAK, str(path)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=900,
    )
    assert child.returncode == 0, child.stderr
    [line] = [line for line in child.stderr.splitlines() if line.startswith("VmHWM:")]
    return int(line.split()[1])  # kB


@pytest.mark.slow
@heavy("the two places that kept every body and every event, above")
@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_peak_memory_grows_linearly_with_the_turns(tmp_path: Path) -> None:
    # From 2,000 turns on, the conversation outweighs building the sample database.
    peaks = [peak_rss_kb(many_turns(tmp_path / f"t{n}.yaml", n)) for n in (2_000, 4_000, 8_000)]
    # 2,000 more turns, then 4,000 more: linear growth doubles (2.0), quadratic quadruples.
    ratio = (peaks[2] - peaks[1]) / max(peaks[1] - peaks[0], 1)
    assert ratio < 3.0, f"peak RSS {peaks} kB: growth ratio {ratio:.2f}"
