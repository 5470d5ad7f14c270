"""Every call of the 50 τ² reference solutions answers what τ²'s own tool answers, as τ²'s
evaluator reads a tool message (the JSON it parses, else the text): its strict replay
compares every write's result so, and a trial whose write results differ cannot be
scored by it. The one deliberate difference (a read, which τ² never replays) is listed in
docs/eval.md: `search_direct_flight` gives each flight's `date`, where τ²'s leaves null.
(The tasks that touch no common customer or reservation share a database copy in the
default run, and the oracle's state with it: tests/support/tau2_batches.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from airline_agent.domain.clock import Clock
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.toolbox import Toolbox
from tests.support import tau2_batches, tau2_oracle
from tests.support.toolbox_fixtures import Tools

CLOCK = Clock.at("2024-05-15T15:00:00")


def as_tau2_reads(content: str) -> Any:
    """A tool message's content as τ²'s `Environment.set_state` compares it."""
    try:
        return json.loads(content)
    except json.JSONDecodeError:
        return content


def _deliberate(name: str, arguments: dict, ours: Any) -> Any:
    """Our result with docs/eval.md's deliberate differences put back in τ²'s form."""
    if name == "search_direct_flight":
        assert all(flight["date"] == arguments["date"] for flight in ours)
        return [{**flight, "date": None} for flight in ours]
    return ours


def test_every_reference_call_answers_as_tau2_does(tau2_reference, tmp_path: Path) -> None:
    _, initial, tasks = tau2_reference
    calls = writes = 0
    differing: list[str] = []
    for batch in tau2_batches.batches(tasks, initial):
        database = tau2_reference.fresh(tmp_path)
        expected_db = tau2_batches.copy_of(initial)
        try:
            for task in batch:
                tools = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
                for action in task["evaluation_criteria"]["actions"]:
                    name, arguments = action["name"], action["arguments"]
                    outcome = tools.call(name, arguments)
                    assert outcome.error is None, (task["id"], name, outcome.result)
                    theirs = tau2_oracle.apply(expected_db, name, arguments)
                    ours = _deliberate(name, arguments, as_tau2_reads(outcome.content()))
                    calls += 1
                    writes += name in tau2_oracle.WRITES
                    if ours != theirs:
                        differing.append(f"task {task['id']} {name}")
        finally:
            database.close()
    assert (calls, writes) == (142, 49)
    assert differing == []


def test_in_eval_like_tau2_every_reference_call_answers_exactly_as_tau2_does(
    tau2_reference, tmp_path: Path
) -> None:
    """`eval --like tau2`'s tools (search_direct_flight's dates null, as τ²'s): all 142
    calls answer what τ²'s answer, with no deliberate difference left, and the text the
    agent reads is τ²'s tool message byte for byte (each record's keys in the order of
    τ²'s model, a reservation's flights `flight_number, origin, destination, date,
    price`; json.dumps's separators and escapes). The oracle's texts were checked against
    τ²'s own tools and environment at a2c0247: the same for all 142 calls, and for every
    user, reservation, search and flight status read of db.json (6,280 reads)."""
    _, initial, tasks = tau2_reference
    calls = searches = 0
    differing: list[str] = []
    differing_text: list[str] = []
    for batch in tau2_batches.batches(tasks, initial):
        database = tau2_reference.fresh(tmp_path)
        expected_db = tau2_batches.copy_of(initial)
        try:
            for task in batch:
                toolbox = Toolbox(database, clock=CLOCK, guard=False, dated_direct_flights=False)
                tools = Tools(toolbox, ToolConversation())
                for action in task["evaluation_criteria"]["actions"]:
                    name, arguments = action["name"], action["arguments"]
                    outcome = tools.call(name, arguments)
                    assert outcome.error is None, (task["id"], name, outcome.result)
                    theirs = tau2_oracle.apply(expected_db, name, arguments)
                    calls += 1
                    searches += name == "search_direct_flight"
                    if as_tau2_reads(outcome.content()) != theirs:
                        differing.append(f"task {task['id']} {name}")
                    if outcome.content() != tau2_oracle.tau2_text(name, theirs):
                        differing_text.append(f"task {task['id']} {name}")
        finally:
            database.close()
    assert (calls, searches) == (142, 20)
    assert differing == []
    assert differing_text == []


def test_in_eval_like_tau2_a_result_escapes_what_is_not_ascii_as_tau2s(
    tau2_reference, tmp_path: Path
) -> None:
    """τ²'s environment writes a result with `json.dumps`'s defaults: "Meï" as `Me\\u00ef`.
    `--like ours` keeps the letter as it is."""
    _, initial, _ = tau2_reference
    passengers = [
        {"first_name": "Anya", "last_name": "García", "dob": "1992-11-12"},
        {"first_name": "Meï", "last_name": "García", "dob": "1989-12-13"},
    ]
    arguments = {"reservation_id": "3RK2T9", "passengers": passengers}
    theirs = tau2_oracle.apply(
        tau2_batches.copy_of(initial), "update_reservation_passengers", arguments
    )
    database = tau2_reference.fresh(tmp_path)
    try:
        for tau2, name in ((True, "Me\\u00ef"), (False, "Meï")):
            toolbox = Toolbox(database, clock=CLOCK, guard=False, dated_direct_flights=not tau2)
            outcome = Tools(toolbox, ToolConversation()).call(
                "update_reservation_passengers", arguments
            )
            assert outcome.error is None, outcome.result
            assert f'"first_name": "{name}"' in outcome.content()
            assert json.loads(outcome.content()) == theirs
        tau2_toolbox = Toolbox(database, clock=CLOCK, guard=False, dated_direct_flights=False)
        read = Tools(tau2_toolbox, ToolConversation()).call(
            "get_reservation_details", {"reservation_id": "3RK2T9"}
        )
        assert read.content() == tau2_oracle.tau2_text("get_reservation_details", theirs)
        assert read.content().isascii()
    finally:
        database.close()


def test_a_reservation_result_has_status_null_as_tau2s_model(tau2_reference, tmp_path) -> None:
    database = tau2_reference.fresh(tmp_path)
    try:
        tools = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
        read = tools.call("get_reservation_details", {"reservation_id": "EHGLP3"})
        assert read.result["status"] is None and "status" in json.loads(read.content())
        bags = tools.call(
            "update_reservation_baggages",
            {
                "reservation_id": "EHGLP3",
                "total_baggages": 0,
                "nonfree_baggages": 0,
                "payment_id": "credit_card_5832574",
            },
        )
        assert bags.error is None and bags.result["status"] is None
    finally:
        database.close()


def test_calculate_answers_a_number_as_tau2s_evaluator_reads_it(tau2_reference, tmp_path) -> None:
    database = tau2_reference.fresh(tmp_path)
    try:
        tools = Tools(Toolbox(database, clock=CLOCK, guard=False), ToolConversation())
        outcome = tools.call("calculate", {"expression": "(500 + 700) * 1"})
        assert outcome.result == 1200.0 and isinstance(outcome.result, float)
        assert outcome.content() == "1200.0"  # τ²'s text, byte for byte
    finally:
        database.close()
