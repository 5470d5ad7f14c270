"""A conversation's state has one owner: who it acts for, and what it changed.

Issue 9, defects 2 and 8, and issue 10 §5: the P4 check ("after a change") means a change
in *this* conversation; the customer a conversation acts for is the one the customer
named and a lookup confirmed, never whoever the model looked up first; once bound, a
conversation reads only its own customer's profile and reservations.
"""

from __future__ import annotations

from pathlib import Path

from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
from airline_agent.agent.events import CustomerBound, ToolFinished
from airline_agent.agent.loop import AgentSession, LoopOptions
from airline_agent.domain.db import Database
from airline_agent.stack import open_existing_database, toolbox
from tests.support.events import of_type, run_turn
from tests.support.world import CLOCK

EMMA, OMAR, SOFIA = "emma_kim_9957", "omar_ahmed_5835", "sofia_ruiz_2002"


def call(name: str, call_id: str, **arguments: object) -> ScriptedToolCall:
    return ScriptedToolCall(name, arguments, call_id)


def session(database: Database, *calls: ScriptedToolCall, **kwargs: object) -> AgentSession:
    """A session whose model makes `calls` one per request, then answers 'Done.'"""
    responses = [ScriptedResponse(tool_calls=(c,)) for c in calls]
    backend = ScriptedBackend([*responses, ScriptedResponse("Done.")])
    tools = toolbox(database, now=CLOCK.iso(), guard=True)
    return AgentSession(backend, tools, LoopOptions(approval="auto"), **kwargs)  # type: ignore[arg-type]


def results(events: list) -> list[str | None]:
    return [e.error for e in of_type(events, ToolFinished)]


async def test_p4_after_a_change_means_a_change_in_this_conversation(world_db) -> None:
    certificate = {"user_id": SOFIA, "reservation_id": "DELAY1", "reason": "delayed_flight"}
    change = {
        "reservation_id": "DELAY1",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT300", "date": "2024-05-16"}],
        "payment_id": "credit_card_5555555",
    }
    agent = session(world_db, call("update_reservation_flights", "a", **change), customer=SOFIA)
    assert results(await run_turn(agent, "Move DELAY1 to tomorrow please.")) == [None]
    agent.new_conversation()
    agent.backend.load(  # type: ignore[attr-defined]
        [
            ScriptedResponse(
                tool_calls=(call("send_certificate", "b", amount=100, **certificate),)
            ),
            ScriptedResponse("Done."),
        ]
    )
    [refused] = of_type(await run_turn(agent, "My flight was delayed."), ToolFinished)
    assert refused.error == "POLICY_VIOLATION" and refused.result["rule"] == "P4"
    assert "after" in refused.result["message"]  # not the amount: the change is not here


async def test_the_customer_named_decides_who_the_conversation_acts_for(db: Path) -> None:
    database = open_existing_database(db)
    try:
        agent = session(
            database,
            call("get_user_details", "omar", user_id=OMAR),  # the model's guess
            call("get_user_details", "emma", user_id=EMMA),
            call(
                "update_reservation_passengers",
                "rewrite",
                reservation_id="3U16G1",  # one of Omar's
                passengers=[{"first_name": "Eve", "last_name": "Mallory", "dob": "1990-01-01"}],
            ),
        )
        events = await run_turn(agent, "Hi, I am emma_kim_9957.")
    finally:
        database.close()
    assert results(events) == ["PERMISSION_DENIED", None, "PERMISSION_DENIED"]
    assert [(e.customer, e.call_id) for e in of_type(events, CustomerBound)] == [(EMMA, "emma")]
    assert agent.conversation.customer == EMMA


async def test_a_bound_conversation_reads_only_its_own_customers_data(db: Path) -> None:
    database = open_existing_database(db)
    try:
        agent = session(
            database,
            call("get_user_details", "own", user_id=EMMA),
            call("get_user_details", "other", user_id=OMAR),
            call("get_reservation_details", "theirs", reservation_id="3U16G1"),
            call("get_reservation_details", "mine", reservation_id="EHGLP3"),
            customer=EMMA,
        )
        events = await run_turn(agent, "Show me what you can.")
    finally:
        database.close()
    finished = of_type(events, ToolFinished)
    assert [e.error for e in finished] == [None, "PERMISSION_DENIED", "PERMISSION_DENIED", None]
    shown = " ".join(str(e.result) for e in finished)
    assert "omar.ahmed" not in shown and "Omar" not in shown  # nothing of Omar's profile


async def test_with_the_guard_off_the_lenient_reads_stay(db: Path) -> None:
    database = open_existing_database(db)
    try:
        agent = session(database, call("get_user_details", "other", user_id=OMAR), customer=EMMA)
        agent.toolbox.guard = False
        events = await run_turn(agent, "Look up Omar.")
    finally:
        database.close()
    assert results(events) == [None]


async def test_a_new_conversation_starts_bound_to_the_sessions_customer_only(db: Path) -> None:
    database = open_existing_database(db)
    try:
        agent = session(database, call("get_user_details", "emma", user_id=EMMA))
        await run_turn(agent, "I am emma_kim_9957.")
        assert agent.conversation.customer == EMMA
        agent.new_conversation()
        assert agent.conversation.customer is None and not agent.conversation.changed_reservations
        assert EMMA not in agent.system_prompt
        agent.new_conversation(customer=OMAR)
        assert agent.conversation.customer == OMAR
        # The prompt says whom the conversation acts for (the mutation profile's survivor:
        # the prompt built for nobody while the conversation acted for Omar).
        assert f"identified as user id {OMAR}" in agent.system_prompt
    finally:
        database.close()


async def test_a_new_conversation_for_nobody_acts_for_nobody(db: Path) -> None:
    """Issue 19 item 23: `new_conversation(customer=None)` kept the previous customer (the
    mutant `self.customer = customer or self.customer` passed the whole suite). Told
    "nobody", the new conversation and the ones after it act for nobody: no customer in
    the prompt, and Emma's reservation is not hers to cancel in it."""
    database = open_existing_database(db)
    try:
        cancel = call("cancel_reservation", "c", reservation_id="EHGLP3", reason="change_of_plan")
        agent = session(database, customer=EMMA)
        assert agent.conversation.customer == EMMA
        agent.new_conversation(customer=None)
        assert agent.customer is None and agent.conversation.customer is None
        assert EMMA not in agent.system_prompt
        agent.backend.load([ScriptedResponse(tool_calls=(cancel,)), ScriptedResponse("Done.")])  # type: ignore[attr-defined]
        events = await run_turn(agent, "Cancel EHGLP3.")
        assert not of_type(events, CustomerBound)
        [refused] = of_type(events, ToolFinished)
        assert refused.error == "PERMISSION_DENIED"
        agent.new_conversation()  # and the next one, made without a word, too
        assert agent.conversation.customer is None
    finally:
        database.close()
