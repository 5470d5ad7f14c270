#!/usr/bin/env python
"""Write the tool results the tools return now into scenario files, as their `recorded`.

    .venv/bin/python scripts/refresh_scenarios.py data/scenarios/some.yaml …

Use it after writing a new scenario, or after a deliberate change to a tool that
`airline-agent replay` reports as drift. It replays each file, keeps every expectation
written by hand, adds the checks for calls that had none (tool and ok / error code), and
sets `recorded` to the current result. Read the diff before committing: a refreshed
file says what the tools do now, not what they should do.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from airline_agent.agent.events import ToolFinished
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.model import CallCheck
from airline_agent.scenarios.recorder import save_scenario
from airline_agent.scenarios.runner import replay_scenario


def refresh(path: Path) -> str:
    scenario = load_scenario(path)
    report = replay_scenario(scenario)
    finished = [e for e in report.events if isinstance(e, ToolFinished)]
    position = 0
    for turn in scenario.turns:
        count = sum(len(r.tool_calls) for r in turn.responses)
        made = finished[position : position + count]
        position += count
        checks = list(turn.expect.calls or [])
        for index, event in enumerate(made):
            if index >= len(checks):
                check = CallCheck(tool=event.name)
                if event.error:
                    check.error = event.error
                else:
                    check.ok = True
                checks.append(check)
            checks[index].recorded = event.result
        turn.expect.calls = checks
        turn.expect.tools = None
    save_scenario(scenario, path)
    again = replay_scenario(load_scenario(path))
    return f"{path}: {again.status} {again.why()}"


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        print(refresh(Path(argument)))
