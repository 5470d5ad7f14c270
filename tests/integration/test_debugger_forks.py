"""Forks with the database exactly as it was: a fork at step N holds the database that
playing the first N steps gives on a fresh copy (compared as `export`s); forking before a
cancellation and going on leaves the original cancelled and the fork not; a fork cut in
the middle of a turn resumes; a fork saved as a scenario replays and passes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from airline_agent.agent.backends import ScriptedResponse
from airline_agent.agent.debugger import BranchBusy, ForkFailed
from airline_agent.agent.events import (
    ApprovalRequested,
    RequestHeld,
    ToolFinished,
    TurnFinished,
    TurnResumed,
)
from airline_agent.agent.history import problems
from airline_agent.domain.db import Database
from airline_agent.domain.tau2 import export_tau2
from airline_agent.output_files import OutputPermissions
from airline_agent.scenarios import datasets
from airline_agent.scenarios.dbdiff import diff_databases
from airline_agent.scenarios.library import library_dir
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.recorder import record_scenario, save_scenario
from airline_agent.scenarios.runner import play_turns, replay_scenario_async, replay_to_step
from airline_agent.stack import Stack, open_existing_database, scenario_stack, scripted_backend
from tests.support.profile import SLOW

CANCEL = load_scenario(library_dir() / "cancel-business-refund.yaml")
CANCEL_STEP = 13  # turn 3: cancel_reservation (call_gwl0he_2) answered
BAGS = load_scenario(library_dir() / "correct-passenger-add-bags.yaml")  # writes at 10 and 22


async def played(scenario: Scenario) -> Stack:
    """The scenario played to its end on a fresh copy, with a debugger."""
    copy, _ = datasets.fresh_copy(scenario.dataset, scenario.name)
    stack = scenario_stack(scenario, open_existing_database(copy), debug=True)
    async for _ in play_turns(scenario, stack):
        pass
    return stack


def close(stack: Stack) -> None:
    copy = stack.database.sqlite_file.path  # type: ignore[union-attr]
    stack.close()
    datasets.discard(copy)


@pytest.fixture
async def cancel_played() -> AsyncIterator[Stack]:
    stack = await played(CANCEL)
    yield stack
    close(stack)


def exported(database: Database) -> dict[str, Any]:
    return export_tau2(database)


async def replayed_export(scenario: Scenario, step: int) -> dict[str, Any]:
    """`export` of the database that playing the first `step` steps gives."""
    stopped = await replay_to_step(scenario, step)
    database = Database.open(stopped.database)
    try:
        return exported(database)
    finally:
        database.close()
        datasets.discard(stopped.database)


def status(stack_or_database: Stack | Database, reservation: str = "GWL0HE") -> str | None:
    database = stack_or_database if isinstance(stack_or_database, Database) else None
    database = database or stack_or_database.toolbox.database  # type: ignore[union-attr]
    # That reservation's record as a whole export has it.
    only = export_tau2(database, flights=(), users=(), reservations=[reservation])
    return only["reservations"][reservation].get("status")


async def test_a_fork_at_step_n_is_the_database_replaying_n_steps_gives(cancel_played: Stack):
    debugger = cancel_played.debugger
    assert debugger is not None
    forks = {}
    for step in (0, CANCEL_STEP - 1, CANCEL_STEP):
        fork = debugger.fork(step)
        forks[step] = exported(fork.toolbox.database)
        assert forks[step] == await replayed_export(CANCEL, step), f"step {step}"
    # The comparison can fail: the cancellation is in one and not in the other.
    assert forks[CANCEL_STEP - 1] == forks[0] != forks[CANCEL_STEP]
    assert forks[CANCEL_STEP]["reservations"]["GWL0HE"]["status"] == "cancelled"


async def test_forking_before_a_cancellation_and_going_on_leaves_the_original_cancelled(
    cancel_played: Stack, tmp_path: Path
):
    debugger, session = cancel_played.debugger, cancel_played.session
    assert debugger is not None
    original = session.conversation
    before = exported(cancel_played.toolbox.database)
    assert before["reservations"]["GWL0HE"]["status"] == "cancelled"

    fork = debugger.fork(9)  # turn 2 answered: "Shall I go ahead?"
    assert fork.describe() == "branch 2: from branch 1 after step 9"
    assert exported(cancel_played.toolbox.database) == before  # forking changed nothing
    debugger.switch(fork)
    assert cancel_played.toolbox is fork.toolbox and session.conversation is fork.conversation
    scripted_backend(cancel_played).load([ScriptedResponse("Of course: GWL0HE stays booked.")])
    events = [event async for event in session.run_turn("No, I changed my mind: keep it.")]
    assert of_reason(events) == "answered"
    assert status(cancel_played) is None  # the fork's database: not cancelled
    assert problems(session.history) == []
    assert session.history[-2]["content"] == "No, I changed my mind: keep it."

    debugger.switch(debugger.branch(1))  # the original, intact
    assert session.conversation is original
    assert exported(cancel_played.toolbox.database) == before
    assert original.history[-1]["content"].startswith("Done: reservation GWL0HE is cancelled.")

    # Saved as a scenario, the fork replays and passes: nothing changed in its database.
    start = debugger.start_database
    assert start is not None and fork.database_file is not None
    saved = record_scenario(
        fork.events,
        name="kept-after-all",
        dataset="sample",
        customer=CANCEL.customer,
        settings=CANCEL.settings,
        changes=diff_databases(start, fork.database_file),
    )
    assert saved.database == "unchanged" and len(saved.turns) == 3
    path = save_scenario(saved, tmp_path / "kept.yaml", outputs=OutputPermissions())
    report = await replay_scenario_async(load_scenario(path))
    assert report.status == "passed", report.why()


async def test_a_fork_cut_in_the_middle_of_a_turn_resumes_and_replays(
    cancel_played: Stack, tmp_path: Path
):
    debugger, session = cancel_played.debugger, cancel_played.session
    assert debugger is not None
    fork = debugger.fork(CANCEL_STEP - 1)  # the model asked to cancel; nothing ran yet
    assert status(fork.toolbox.database) is None
    debugger.switch(fork)
    assert session.can_resume
    scripted_backend(cancel_played).load([ScriptedResponse("Done: GWL0HE is cancelled.")])
    events = []
    async for event in session.resume_turn():
        events.append(event)
        if isinstance(event, ApprovalRequested):
            event.decide(True)
    assert isinstance(events[0], TurnResumed) and events[0].step == CANCEL_STEP - 1
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.name == "cancel_reservation" and finished.error is None
    assert finished.step == CANCEL_STEP
    assert of_reason(events) == "answered"
    assert status(cancel_played) == "cancelled"
    assert problems(session.history) == []
    assert not session.can_resume

    start = debugger.start_database
    assert start is not None and fork.database_file is not None
    saved = record_scenario(
        fork.events,
        name="cancelled-on-a-fork",
        dataset="sample",
        customer=CANCEL.customer,
        settings=CANCEL.settings,
        changes=diff_databases(start, fork.database_file),
    )
    path = save_scenario(saved, tmp_path / "fork.yaml", outputs=OutputPermissions())
    report = await replay_scenario_async(load_scenario(path))
    assert report.status == "passed", report.why()
    assert [c.key for c in report.changes] == ["GWL0HE"]


async def test_forks_of_forks_unknown_steps_and_a_switch_while_a_turn_runs(cancel_played: Stack):
    debugger, session = cancel_played.debugger, cancel_played.session
    assert debugger is not None
    with pytest.raises(ForkFailed, match="there is no step 99: the conversation has steps 0 to 15"):
        debugger.fork(99)
    second = debugger.fork(CANCEL_STEP)
    third = debugger.fork(4, of=second)  # a fork of the fork, before its cancellation
    assert (third.number, third.parent, third.forked_at) == (3, 2, 4)
    assert status(third.toolbox.database) is None and status(second.toolbox.database) == "cancelled"
    # System, customer, the model's lookup and its result: turn 1 was cut there.
    assert [m["role"] for m in third.conversation.history] == [
        "system",
        "user",
        "assistant",
        "tool",
    ]
    assert third.conversation.cut_turn is not None

    debugger.breakpoints.request = True
    scripted_backend(cancel_played).load([ScriptedResponse("Anything else?")])
    turn = session.run_turn("Thanks!")
    held = None
    async for event in turn:
        if isinstance(event, RequestHeld):
            held = event
            break
    assert held is not None
    with pytest.raises(BranchBusy):
        debugger.switch(second)
    await turn.aclose()  # cancelled: the branch's record says so
    assert isinstance(debugger.current.events[-1], TurnFinished)  # type: ignore[union-attr]
    assert debugger.current.events[-1].reason == "cancelled"  # type: ignore[union-attr]
    debugger.switch(second)
    assert session.conversation is second.conversation


def of_reason(events: list[Any]) -> str | None:
    return next((e.reason for e in reversed(events) if isinstance(e, TurnFinished)), None)


@pytest.fixture(scope="module")
def bags_played() -> Iterator[Stack]:
    stack = asyncio.run(played(BAGS))
    yield stack
    close(stack)


@settings(
    max_examples=25 if SLOW else 3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_property_a_fork_at_any_step_is_the_replay_to_that_step(bags_played: Stack, data: Any):
    debugger = bags_played.debugger
    assert debugger is not None
    last = bags_played.session.conversation.timeline.last  # type: ignore[union-attr]
    step = data.draw(st.integers(min_value=0, max_value=last), label="step")
    fork = debugger.fork(step, of=debugger.branch(1))
    try:
        assert exported(fork.toolbox.database) == asyncio.run(replayed_export(BAGS, step))
    finally:
        debugger.databases.discard(fork.toolbox)
        debugger.branches.remove(fork)


async def test_a_fork_after_a_booking_replays_it_whatever_order_its_rows_were_flushed_in():
    # With the guard on, the booking's reads ordered its flush otherwise than its replay
    # (guard off) does: the same rows changed the same way, in another order.
    scenario = load_scenario(library_dir() / "book-with-bags-split-payment.yaml")
    stack = await played(scenario)
    try:
        debugger = stack.debugger
        assert debugger is not None
        [write] = stack.session.conversation.timeline.writes  # type: ignore[union-attr]
        fork = debugger.fork(write.step)
        assert exported(fork.toolbox.database) == await replayed_export(scenario, write.step)
    finally:
        close(stack)


EVERY_SCENARIO = sorted(library_dir().glob("*.yaml"))
SOME_SCENARIOS = [
    library_dir() / name for name in ("tool-call-limit.yaml", "bags-approval-declined.yaml")
]


@pytest.mark.parametrize("path", EVERY_SCENARIO if SLOW else SOME_SCENARIOS, ids=lambda p: p.stem)
async def test_every_step_forks_and_goes_on_with_a_valid_history(path: Path):
    """Forked at each step, a branch goes on with a new customer message, or resumes the
    turn it cut; either way its turn ends and its history is a valid one."""
    scenario = load_scenario(path)
    stack = await played(scenario)
    debugger, session = stack.debugger, stack.session
    assert debugger is not None
    try:
        for step in range(session.conversation.timeline.last + 1):  # type: ignore[union-attr]
            for resume in (False, True):
                fork = debugger.fork(step, of=debugger.branch(1))
                debugger.switch(fork)
                if not resume or session.can_resume:
                    scripted_backend(stack).load([ScriptedResponse("All right.")] * 3)
                    turn = session.resume_turn() if resume else session.run_turn("And now?")
                    events = []
                    async for event in turn:
                        events.append(event)
                        if isinstance(event, ApprovalRequested):
                            event.decide(True)
                    assert of_reason(events) is not None, (step, resume)
                    assert problems(session.history) == [], (step, resume)
                debugger.switch(debugger.branch(1))
                debugger.databases.discard(fork.toolbox)
                debugger.branches.remove(fork)
    finally:
        debugger.switch(debugger.branch(1))
        close(stack)
