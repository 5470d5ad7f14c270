"""Forks around writes and approvals, through the loop's hooks (agent/hooks.py): a fork right
after each write holds exactly the rows that write changed, as they were after it (and a
fork right before it, as they were before), the same as `replay --stop-at` gives; a fork
made while an approval is asked goes on in its own database: asked again there, the
write runs there alone, and the original's "no" stays final."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from airline_agent.agent.backends import ScriptedResponse
from airline_agent.agent.debugger import Branch, Debugger
from airline_agent.agent.events import ApprovalRequested, ToolFinished, TurnFinished
from airline_agent.agent.history import problems
from airline_agent.domain.db import Database
from airline_agent.domain.tau2 import export_tau2
from airline_agent.scenarios import datasets
from airline_agent.scenarios.dbdiff import RecordKey, changed_records, export_records, owners_of
from airline_agent.scenarios.library import library_dir
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.runner import play_turns, replay_to_step
from airline_agent.scenarios.script import ScenarioScript
from airline_agent.stack import Stack, open_existing_database, scenario_stack, scripted_backend
from tests.support.profile import SLOW

WITH_WRITES = ["correct-passenger-add-bags", "cancel-business-refund"]
if SLOW:
    WITH_WRITES += [
        "book-with-bags-split-payment",
        "change-return-flight",
        "upgrade-cabin-business",
    ]
DECLINED = load_scenario(library_dir() / "bags-approval-declined.yaml")


def stack_for(scenario: Scenario) -> Stack:
    copy, _ = datasets.fresh_copy(scenario.dataset, scenario.name)
    return scenario_stack(scenario, open_existing_database(copy), debug=True)


def close(stack: Stack) -> None:
    copy = stack.database.sqlite_file.path  # type: ignore[union-attr]
    stack.close()
    datasets.discard(copy)


def file_of(branch: Branch) -> Path:
    assert branch.database_file is not None
    return branch.database_file


def rows(branch: Branch, table: str) -> list[dict[str, Any]]:
    """Every row of `table` in the branch's database, read with sqlite3 itself."""
    with closing(sqlite3.connect(file_of(branch))) as connection:
        connection.row_factory = sqlite3.Row
        return [dict(row) for row in connection.execute(f'SELECT * FROM "{table}"')]


def records(branch: Branch, keys: set[RecordKey]) -> dict[RecordKey, Any]:
    return export_records(branch.toolbox.database, keys)


async def replayed_records(scenario: Scenario, step: int, keys: set[RecordKey]) -> dict:
    stopped = await replay_to_step(scenario, step)
    try:
        return export_records(stopped.database, keys)
    finally:
        datasets.discard(stopped.database)


def dropped(debugger: Debugger, *branches: Branch) -> None:
    for branch in branches:
        debugger.databases.discard(branch.toolbox)
        debugger.branches.remove(branch)


@pytest.mark.parametrize("name", WITH_WRITES)
async def test_a_fork_right_after_each_write_holds_the_rows_it_changed(name: str):
    scenario = load_scenario(library_dir() / f"{name}.yaml")
    stack = stack_for(scenario)
    try:
        async for _ in play_turns(scenario, stack):
            pass
        debugger = stack.debugger
        assert debugger is not None
        writes = stack.session.conversation.timeline.writes  # type: ignore[union-attr]
        assert writes, "the scenario writes"
        for write in writes:
            keys = set().union(*(owners_of(change) for change in write.changes))
            before = debugger.fork(write.step - 1, of=debugger.branch(1))
            after = debugger.fork(write.step, of=debugger.branch(1))
            try:
                # This write's records, and nothing else, differ between the two.
                assert changed_records(file_of(before), file_of(after)) == keys, write.name
                assert records(before, keys) != records(after, keys)
                # Each is what playing the scenario up to its step gives on a fresh copy.
                assert records(after, keys) == await replayed_records(scenario, write.step, keys)
                assert records(before, keys) == await replayed_records(
                    scenario, write.step - 1, keys
                )
                # The rows the write reported: as it left them after, as it found them before.
                for change in write.changes:
                    rows_before, rows_after = rows(before, change.table), rows(after, change.table)
                    if change.after is not None:
                        assert change.after in rows_after and change.after not in rows_before
                    if change.before is not None:
                        assert change.before in rows_before and change.before not in rows_after
            finally:
                dropped(debugger, before, after)
        # The original is left as the scenario ended it.
        assert debugger.current is debugger.branch(1) and len(debugger.branches) == 1
    finally:
        close(stack)


async def test_a_fork_made_while_an_approval_is_asked_goes_on_alone_and_the_no_is_final():
    stack = stack_for(DECLINED)
    debugger, session = stack.debugger, stack.session
    assert debugger is not None
    script = ScenarioScript(DECLINED, scripted_backend(stack))
    start = export_tau2(stack.toolbox.database)["reservations"]["RLIVUH"]
    fork: Branch | None = None
    try:
        for turn in DECLINED.turns[:2]:
            script.load(turn)
            async for event in session.run_turn(turn.customer):
                if isinstance(event, ApprovalRequested):
                    # Asked about the bags: the fork is made while the question is open.
                    assert session.conversation.steps == 12  # the reply asking for the write
                    fork = debugger.fork(session.conversation.steps)
                    assert fork.conversation.cut_turn is not None
                script.answer(event)  # ask-decline: "no"
        assert fork is not None
        # The original: declined, nothing written; its record says so.
        [declined] = [e for e in debugger.branch(1).events if isinstance(e, ToolFinished)][-1:]
        assert (declined.name, declined.error) == (
            "update_reservation_baggages",
            "PERMISSION_DENIED",
        )
        assert export_tau2(stack.toolbox.database)["reservations"]["RLIVUH"] == start
        assert debugger.start_database is not None  # copied before the write was asked about

        # The fork resumes its cut turn: asked again, "yes" there, the bags added there.
        debugger.switch(fork)
        scripted_backend(stack).load([ScriptedResponse("Done: two bags on RLIVUH.")])
        asked = []
        events = []
        async for event in session.resume_turn():
            events.append(event)
            if isinstance(event, ApprovalRequested):
                asked.append(event)
                event.decide(True)
        assert [[c.name for c in a.calls] for a in asked] == [["update_reservation_baggages"]]
        [ran] = [e for e in events if isinstance(e, ToolFinished)]
        assert ran.error is None and ran.step == 13
        assert isinstance(events[-1], TurnFinished) and events[-1].reason == "answered"
        assert export_tau2(fork.toolbox.database)["reservations"]["RLIVUH"]["total_baggages"] == 2
        assert problems(session.history) == []

        # The original's "no" is final: its database never had the bags, and a fork after
        # the declined call goes on without asking again or writing.
        debugger.switch(debugger.branch(1))
        original = Database.open(file_of(debugger.branch(1)))
        try:
            assert export_tau2(original)["reservations"]["RLIVUH"] == start
        finally:
            original.close()
        after_no = debugger.fork(13)  # the declined call answered
        debugger.switch(after_no)
        scripted_backend(stack).load([ScriptedResponse("Nothing was changed.")])
        events = [event async for event in session.resume_turn()]
        assert not [e for e in events if isinstance(e, ApprovalRequested | ToolFinished)]
        assert export_tau2(after_no.toolbox.database)["reservations"]["RLIVUH"] == start
        assert problems(session.history) == []
    finally:
        close(stack)
