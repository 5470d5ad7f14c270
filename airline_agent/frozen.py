"""Frozen dataclasses that are cheap to build, for the values made on every request.

`@dataclass(frozen=True)` sets each field in its `__init__` through `object.__setattr__`
(it must: its own `__setattr__` refuses), which costs several times a plain assignment: a
turn builds some twenty events, and building them was a sixth of the loop's own cost per
request (scripts/benchmarks/loop.py). `@frozen` is that dataclass, with an `__init__` of
the same signature that fills the instance's `__dict__` directly. Everything else (equality,
hashing, repr, the refusal to assign, `fields`, `replace`, `asdict`) is the dataclass's own,
and a test holds each class's instances equal to what the dataclass's `__init__` makes.

For classes whose fields have plain defaults only: a `default_factory`, an `InitVar`, a
keyword-only field, a field left out of `__init__` or a `__post_init__` is refused at class
creation rather than built wrong.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

Class = TypeVar("Class", bound=type)


def frozen(cls: Class) -> Class:
    """`@dataclass(frozen=True)`, with a faster `__init__` (see the module's docstring)."""
    made = dataclasses.dataclass(frozen=True)(cls)
    if hasattr(made, "__post_init__"):
        raise TypeError(f"{made.__name__}: @frozen does not run __post_init__")
    namespace: dict[str, Any] = {}
    parameters: list[str] = []
    assignments: list[str] = []
    for position, field in enumerate(dataclasses.fields(made)):
        plain = field.init and not field.kw_only
        if not plain or field.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{made.__name__}.{field.name}: @frozen takes plain fields only")
        if field.default is dataclasses.MISSING:
            parameters.append(field.name)
        else:
            namespace[f"_default_{position}"] = field.default
            parameters.append(f"{field.name}=_default_{position}")
        assignments.append(f"    values[{field.name!r}] = {field.name}")
    header = f"def __init__(self, {', '.join(parameters)}):"
    source = "\n".join([header, "    values = self.__dict__", *assignments])
    exec(source, namespace)  # the way `dataclasses` itself makes an __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{made.__qualname__}.__init__"
    init.__module__ = made.__module__
    init.__doc__ = made.__init__.__doc__
    init.__annotations__ = made.__init__.__annotations__
    made._dataclass_init = made.__init__  # the dataclass's own, for the test
    made.__init__ = init
    return made
