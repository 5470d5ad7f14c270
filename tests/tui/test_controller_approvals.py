"""The TUI's offline playback answers approvals call by call, as `replay` does, and saving
the conversation keeps each answer: the saved scenario replays the same."""

from __future__ import annotations

from pathlib import Path

import yaml

from airline_agent.agent.events import ApprovalRequested
from airline_agent.config import Settings
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.runner import replay_scenario_async
from airline_agent.tui.controller import AgentController
from airline_agent.tui.turns import run_turn

SCENARIO = """\
name: mixed-answers
customer: harper_smith_5967
settings: {approval: ask-decline}
turns:
  - customer: Cancel GWL0HE, plans changed, and add a bag to VZG2V6.
    responses:
      - tool_calls:
          - name: cancel_reservation
            arguments: {reservation_id: GWL0HE}
            approve: true
          - name: update_reservation_baggages
            arguments:
              reservation_id: VZG2V6
              total_baggages: 2
              nonfree_baggages: 1
              payment_id: gift_card_9429371
      - content: GWL0HE is cancelled; no bag was added.
    expect:
      calls:
        - {tool: cancel_reservation, ok: true}
        - {tool: update_reservation_baggages, error: PERMISSION_DENIED}
database: null
"""


async def test_playback_answers_each_write_and_the_saved_scenario_replays(
    tmp_path: Path,
) -> None:
    library = tmp_path / "library"
    library.mkdir()
    (library / "mixed-answers.yaml").write_text(SCENARIO)
    controller = AgentController(Settings(), library=library)
    await controller.start_scenario("mixed-answers")
    events = []
    try:
        while (message := controller.feed.next_customer_message()) is not None:
            events += [event async for event in run_turn(controller.feed, message)]
        saved = controller.save_scenario(tmp_path / "saved.yaml")
    finally:
        controller.close()

    [asked] = [e for e in events if isinstance(e, ApprovalRequested)]
    answers = asked.decision.result().approved
    assert list(answers.values()) == [True, False]  # answered before the app saw it
    body = yaml.safe_load(saved.read_text())
    # One yes, one no: the first answer is the default, the other is stated on its call.
    assert body["settings"]["approval"] == "ask-accept"
    calls = body["turns"][0]["responses"][0]["tool_calls"]
    assert [call.get("approve") for call in calls] == [None, False]
    report = await replay_scenario_async(load_scenario(saved), path=saved)
    assert report.status == "passed", report.why()
    assert [f"{c.kind}/{c.key}" for c in report.changes] == ["reservations/GWL0HE"]


async def test_a_saved_scenario_too_large_to_replay_is_said_so(tmp_path: Path, monkeypatch) -> None:
    """Issue 19 item 15: the TUI's `s` saves the file whole and warns when `replay` would
    refuse it (here under a limit a test can reach)."""
    from airline_agent.scenarios import yaml_text

    library = tmp_path / "library"
    library.mkdir()
    (library / "mixed-answers.yaml").write_text(SCENARIO)
    controller = AgentController(Settings(), library=library)
    warned: list[str] = []
    controller.warn = warned.append
    await controller.start_scenario("mixed-answers")
    try:
        while (message := controller.feed.next_customer_message()) is not None:
            [event async for event in run_turn(controller.feed, message)]
        monkeypatch.setattr(yaml_text, "MAX_FILE_BYTES", 1024)
        saved = controller.save_scenario(tmp_path / "saved.yaml")
    finally:
        controller.close()
    assert saved.stat().st_size > 1024
    [warning] = warned
    assert "1 KiB" in warning and "will refuse it" in warning
