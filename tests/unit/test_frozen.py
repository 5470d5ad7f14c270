"""`@frozen` (airline_agent/frozen.py): the dataclass's own behaviour, a faster `__init__`."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from airline_agent.agent import events, streaming, usage
from airline_agent.frozen import frozen


def _frozen_classes() -> list[type]:
    found = []
    for module in (events, streaming, usage):
        for value in vars(module).values():
            mine = isinstance(value, type) and value.__module__ == module.__name__
            if mine and "_dataclass_init" in vars(value):
                found.append(value)
    return found


def test_the_hot_path_values_are_made_with_it() -> None:
    names = {cls.__name__ for cls in _frozen_classes()}
    assert {"UsageReported", "RequestSent", "ToolCall", "ModelReply", "TextPiece", "Spend"} <= names
    assert len(names) >= 35


@pytest.mark.parametrize("cls", _frozen_classes(), ids=lambda cls: cls.__name__)
def test_each_class_is_built_as_the_dataclass_builds_it(cls: type) -> None:
    fields = dataclasses.fields(cls)
    assert inspect.signature(cls.__init__) == inspect.signature(cls._dataclass_init)
    values = {field.name: object() for field in fields}  # one distinct value per field
    fast = cls(*values.values())
    slow = object.__new__(cls)
    cls._dataclass_init(slow, *values.values())
    assert vars(fast) == vars(slow)
    assert fast == slow and repr(fast) == repr(slow)
    by_name = cls(**values)
    assert vars(by_name) == vars(slow)
    required = {f.name: values[f.name] for f in fields if f.default is dataclasses.MISSING}
    defaults = object.__new__(cls)
    cls._dataclass_init(defaults, **required)
    assert vars(cls(**required)) == vars(defaults)  # the defaults are the dataclass's
    if fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(fast, fields[0].name, 1)


def test_replace_hash_and_asdict_work_as_on_any_frozen_dataclass() -> None:
    @frozen
    class Point:
        x: int
        y: int = 0
        label: str = dataclasses.field(default="", compare=False)

    point = Point(1)
    assert (point.x, point.y, point.label) == (1, 0, "")
    assert dataclasses.replace(point, y=2) == Point(1, 2)
    assert hash(point) == hash(Point(1, 0, "other")) and point == Point(1, 0, "other")
    assert dataclasses.asdict(point) == {"x": 1, "y": 0, "label": ""}
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(TypeError):
        Point(1, 2, "a", "b")


def test_what_it_cannot_build_right_is_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="plain fields"):

        @frozen
        class Listed:
            items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="__post_init__"):

        @frozen
        class Checked:
            x: int

            def __post_init__(self) -> None:
                pass

    with pytest.raises(TypeError, match="plain fields"):

        @frozen
        class KeywordOnly:
            x: int = dataclasses.field(kw_only=True)
