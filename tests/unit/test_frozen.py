"""`@frozen` (airline_agent/frozen.py): what `@dataclass(frozen=True)` makes of the same
fields, made without compiling per class and built faster."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle

import pytest

from airline_agent.agent import events, streaming, usage
from airline_agent.frozen import frozen


def _frozen_classes() -> list[type]:
    found = []
    for module in (events, streaming, usage):
        for value in vars(module).values():
            mine = isinstance(value, type) and value.__module__ == module.__name__
            if (
                mine
                and dataclasses.is_dataclass(value)
                and value.__eq__.__module__ == frozen.__module__
            ):
                found.append(value)
    return found


def _reference(cls: type) -> type:
    """The same fields, made by `@dataclass(frozen=True)` itself."""
    fields = [
        (
            f.name,
            f.type,
            dataclasses.field(default=f.default, repr=f.repr, compare=f.compare, hash=f.hash),
        )
        for f in dataclasses.fields(cls)
    ]
    return dataclasses.make_dataclass(cls.__qualname__, fields, frozen=True)


def test_the_hot_path_values_are_made_with_it() -> None:
    names = {cls.__name__ for cls in _frozen_classes()}
    assert {"UsageReported", "RequestSent", "ToolCall", "ModelReply", "TextPiece", "Spend"} <= names
    assert len(names) >= 35


@pytest.mark.parametrize("cls", _frozen_classes(), ids=lambda cls: cls.__name__)
def test_each_class_behaves_as_the_dataclass_of_its_fields(cls: type) -> None:
    reference = _reference(cls)
    assert inspect.signature(cls) == inspect.signature(reference)  # as declared, at once
    fields = dataclasses.fields(cls)
    values = [object() for _ in fields]  # one distinct value per field: order shows
    ours, theirs = cls(*values), reference(*values)
    assert vars(ours) == vars(theirs)
    assert inspect.signature(cls.__init__) == inspect.signature(reference.__init__)
    assert repr(ours) == repr(theirs)
    assert hash(ours) == hash(theirs)
    assert cls.__match_args__ == reference.__match_args__
    assert ours == cls(*values)
    assert (ours != cls(*values)) is False
    assert ours != theirs  # another class: never equal, as between two dataclasses
    named = {f.name: v for f, v in zip(fields, values, strict=True)}
    assert cls(**named) == ours
    required = {f.name: named[f.name] for f in fields if f.default is dataclasses.MISSING}
    assert vars(cls(**required)) == vars(reference(**required))  # the same defaults
    for position, field in enumerate(fields):
        other = list(values)
        other[position] = object()
        changed_ours, changed_theirs = cls(*other), reference(*other)
        assert (changed_ours == ours) == (changed_theirs == theirs), field.name
        assert (hash(changed_ours) == hash(ours)) == (hash(changed_theirs) == hash(theirs))
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(ours, field.name, 1)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(ours, field.name)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ours.not_a_field = 1  # type: ignore[attr-defined]


def test_replace_asdict_copy_pickle_and_match_work_as_on_any_frozen_dataclass() -> None:
    point = Point(1)
    assert (point.x, point.y, point.label) == (1, 0, "")
    assert dataclasses.replace(point, y=2) == Point(1, 2)
    assert point == Point(1, 0, "other") and hash(point) == hash(Point(1, 0, "other"))
    assert repr(point) == "Point(x=1, y=0)"  # label has repr=False
    assert dataclasses.asdict(point) == {"x": 1, "y": 0, "label": ""}
    assert copy.deepcopy(point) == point and pickle.loads(pickle.dumps(point)) == point
    match Point(3, 4):
        case Point(x, y):
            assert (x, y) == (3, 4)
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(TypeError):
        Point(1, 2, "a", "b")
    with pytest.raises(TypeError):
        Point(1, z=2)


def test_a_class_holding_itself_is_shown_without_recursing() -> None:
    box = Box([])
    box.items.append(box)
    assert repr(box) == "Box(items=[...])"


def test_what_it_cannot_make_right_is_refused_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="plain fields"):

        @frozen
        class Listed:
            """Items."""

            items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="__post_init__"):

        @frozen
        class Checked:
            """Checked."""

            x: int

            def __post_init__(self) -> None:
                pass

    with pytest.raises(TypeError, match="plain fields"):

        @frozen
        class KeywordOnly:
            """Keyword only."""

            x: int = dataclasses.field(kw_only=True)

    with pytest.raises(TypeError, match="docstring"):

        @frozen
        class Undocumented:
            x: int


@frozen
class Point:
    """A point (module level: pickle finds it by name)."""

    x: int
    y: int = 0
    label: str = dataclasses.field(default="", compare=False, repr=False)


@frozen
class Box:
    """Holds a list."""

    items: list[object]
