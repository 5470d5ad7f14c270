"""The values the loop hands out (its events, the stream's pieces, a model's reply, what
requests spent, a tool call's outcome) are standard frozen dataclasses: nobody who holds
one can change it under another holder; they can be compared, hashed, pickled (a test
process, a recorder), copied with `dataclasses.replace` and taken apart with `match`."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from types import ModuleType

import pytest

from airline_agent.agent import events, model_reply, streaming, usage
from airline_agent.agent.events import TextDelta, ToolCall, Usage
from airline_agent.agent.streaming import ModelReply, TextPiece
from airline_agent.agent.usage import Spend
from airline_agent.tools import outcome
from airline_agent.tools.outcome import ToolOutcome

MODULES: tuple[ModuleType, ...] = (events, model_reply, streaming, usage, outcome)


def _value_classes() -> list[type]:
    found = []
    for module in MODULES:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and dataclasses.is_dataclass(value)
            ):
                found.append(value)
    return found


VALUES = _value_classes()


def test_the_values_of_the_loop_are_all_found() -> None:
    names = {cls.__name__ for cls in VALUES}
    assert {"UsageReported", "RequestSent", "ToolCall", "ModelReply", "TextPiece"} <= names
    assert {"Spend", "ToolOutcome", "RowChange"} <= names
    assert len(names) >= 38


@pytest.mark.parametrize("cls", VALUES, ids=lambda cls: cls.__name__)
def test_each_value_is_frozen_with_slots(cls: type) -> None:
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen and params.eq
    assert "__slots__" in vars(cls)  # no per-instance dict: no attribute can be added
    fields = dataclasses.fields(cls)
    # One distinct, hashable and picklable value per field: order and each field show.
    values = [f"value {position}" for position in range(len(fields))]
    value = cls(*values)
    assert value == cls(*values) and hash(value) == hash(cls(*values))
    assert pickle.loads(pickle.dumps(value)) == value
    assert copy.deepcopy(value) == value
    for field in fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field.name, "changed")
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(value, field.name)
        changed = dataclasses.replace(value, **{field.name: "changed"})
        assert getattr(changed, field.name) == "changed"
        assert getattr(value, field.name) != "changed"  # the original is as it was
        if field.compare:
            assert changed != value, field.name
    with pytest.raises((AttributeError, TypeError)):
        value.not_a_field = 1  # type: ignore[attr-defined]


def test_values_are_taken_apart_with_match() -> None:
    reply = ModelReply("hi", (ToolCall("call_1", "calculate", "{}"),), None, "stop", Usage(3, 4))
    match reply:
        case ModelReply(content, (ToolCall(call_id=call_id),), usage=Usage(prompt_tokens=n)):
            assert (content, call_id, n) == ("hi", "call_1", 3)
        case _:
            pytest.fail("a reply did not match its own shape")
    match TextPiece("a"):
        case TextDelta():
            pytest.fail("another class matched")
        case TextPiece(text):
            assert text == "a"


def test_defaults_and_derived_values() -> None:
    spend = Spend().plus(Usage(10, 5), 0.5).plus(None, 0.25)
    assert spend == Spend(Usage(10, 5), 0.75, complete=False)
    assert Spend().usage is Spend().usage  # one shared zero: safe, as it cannot change
    outcome = ToolOutcome("calculate", {"expression": "1+1"}, 2.0, None, 1.0)
    assert outcome.changes == () and outcome.bound_customer is None and outcome.ok
    assert dataclasses.replace(outcome, error="CONFLICT").ok is False
    assert dataclasses.asdict(Usage(1, 2)) == {
        "prompt_tokens": 1,
        "completion_tokens": 2,
        "cached_tokens": 0,
        "reasoning_tokens": 0,
    }
