"""A conversation with a timeline is restored exactly as it was after any step, even after
its history was shortened or replaced later (a message taken back, an edited request)."""

from __future__ import annotations

import pytest

from airline_agent.agent.conversation import Conversation
from airline_agent.agent.events import RequestEdit
from airline_agent.agent.grounding import Evidence, ground_reply
from airline_agent.agent.steps import UnknownStep
from airline_agent.agent.turn import TurnProgress


def conversation() -> Conversation:
    talk = Conversation.start("You are an airline agent.", None)
    talk.keep_timeline()
    return talk


def test_each_step_restores_the_state_right_after_it() -> None:
    talk = conversation()
    talk.turns = 1
    talk.open_turn = TurnProgress(1, 1)
    talk.add_customer_message("I am emma_kim_9957, reservation EHGLP3")
    assert talk.take_step("customer") == 1
    talk.history.append({"role": "assistant", "content": "Looking."})
    talk.bind("emma_kim_9957")
    talk.changed_reservations.add("EHGLP3")
    assert talk.take_step("response", request=1) == 2

    at_one, at_two = talk.restored(1), talk.restored(2)
    assert at_one.history == talk.history[:2] and at_two.history == talk.history
    assert (at_one.customer, at_one.changed_reservations) == (None, set())
    assert (at_two.customer, at_two.bound_by, at_two.changed_reservations) == (
        "emma_kim_9957",
        "stated",
        {"EHGLP3"},
    )
    assert at_one.customer_gave("emma_kim_9957")  # what the customer said is kept
    assert at_one.cut_turn is not None and at_one.cut_turn.number == 1
    assert at_one.timeline is not None and at_one.timeline.last == 1
    assert talk.restored(0).history == talk.history[:1]
    with pytest.raises(UnknownStep, match="there is no step 3: the conversation has steps 0 to 2"):
        talk.restored(3)


def test_a_message_taken_back_or_a_history_edited_later_leaves_earlier_steps_exact() -> None:
    talk = conversation()
    talk.add_customer_message("first question, EHGLP3")
    talk.take_step("customer")
    talk.take_back_customer_message()  # never answered
    talk.add_customer_message("second question, K1NW8N")
    talk.take_step("customer")
    edited = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "third"}]
    edit = RequestEdit(1, {"messages": talk.history}, {"messages": edited}, b"{}")
    talk.adopt_request_edit(edit)
    talk.take_step("request", request=1)

    assert talk.restored(1).history[-1]["content"] == "first question, EHGLP3"
    assert talk.restored(2).history[-1]["content"] == "second question, K1NW8N"
    assert talk.restored(3).history == edited and talk.restored(3).edits == [edit]
    assert talk.restored(2).edits == []
    # The evidence follows: after the edit, the model was given "third" only.
    assert talk.restored(1).evidence.mentions("EHGLP3")
    assert not talk.restored(2).evidence.mentions("EHGLP3")
    assert not talk.restored(3).evidence.mentions("K1NW8N")


def test_the_evidence_of_a_prefix_grounds_as_the_evidence_then_did() -> None:
    evidence = Evidence(rules=["C3 never invent"])
    evidence.add("my reservation is EHGLP3")
    evidence.add_tool_result("get_reservation_details", '{"price": 135}', ok=True)
    evidence.add("and K1NW8N")
    earlier = evidence.prefix(2)
    assert len(earlier) == 2
    assert ground_reply("EHGLP3 cost $135.", earlier) == ()
    assert [f.value for f in ground_reply("K1NW8N cost $135.", earlier)] == ["K1NW8N"]
    assert ground_reply("K1NW8N cost $135.", evidence) == ()
