"""`ToolOutcome` is the dataclass its fields declare, frozen, with one parameter per field
and no other state."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from airline_agent.tools.outcome import RowChange, ToolOutcome


def test_the_constructor_takes_exactly_the_fields_in_order_with_their_defaults() -> None:
    parameters = list(inspect.signature(ToolOutcome).parameters.values())
    fields = dataclasses.fields(ToolOutcome)
    assert [p.name for p in parameters] == [f.name for f in fields]
    for parameter, field in zip(parameters, fields, strict=True):
        required = field.default is dataclasses.MISSING
        assert (parameter.default is inspect.Parameter.empty) == required, field.name
        if not required:
            assert parameter.default == field.default, field.name


def test_an_outcome_is_frozen_and_compares_by_its_fields() -> None:
    change = RowChange("reservation", "EHGLP3", None, {"status": None})
    arguments = {"reservation_id": "EHGLP3"}
    outcome = ToolOutcome("cancel_reservation", arguments, {}, None, 1.5, (change,))
    assert outcome == ToolOutcome(
        name="cancel_reservation",
        arguments=arguments,
        result={},
        error=None,
        elapsed_ms=1.5,
        changes=(change,),
    )
    assert outcome.bound_customer is None and outcome.ok
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.error = "CONFLICT"  # type: ignore[misc]
    assert dataclasses.replace(outcome, error="CONFLICT").error == "CONFLICT"
    assert outcome.error is None
    assert ToolOutcome.__slots__ == tuple(f.name for f in dataclasses.fields(outcome))
