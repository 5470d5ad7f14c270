"""Frozen dataclasses that are cheap to make and to build, for the values of every request.

`@dataclass(frozen=True)` compiles six methods for each class (`__init__`, `__repr__`,
`__eq__`, `__hash__`, `__setattr__`, `__delattr__`), some 3.8 M instructions a class on
Python 3.11: the 37 event, piece and spend classes cost the TUI's first screen more than
a tenth of what it does before it shows. And its `__init__` sets each field through
`object.__setattr__` (it must: its own `__setattr__` refuses), several times a plain
assignment: a turn builds some twenty events, and that was a sixth of the loop's own cost
per request (scripts/benchmarks/loop.py).

`@frozen` is `dataclasses.dataclass` for the fields (`fields`, `replace`, `asdict` and
`match` work as on any dataclass) with the methods of a frozen dataclass given as
closures over the class's fields, made without compiling anything, and an `__init__` of
the dataclass's signature that fills the instance's `__dict__` directly, compiled when the
class's first instance is made. A test holds every class's equality, hash, repr, refusal
to assign and `__init__` to those `@dataclass(frozen=True)` makes for the same fields.

`__dataclass_params__` says what `dataclasses` was asked for (no methods of its own, not
frozen): the methods are these. Nothing in the package reads it.

For classes whose fields have plain defaults only: a `default_factory`, an `InitVar`, a
keyword-only field, a field left out of `__init__` or a `__post_init__` is refused when
the class is made rather than built wrong.
"""

from __future__ import annotations

import dataclasses
import inspect  # imported by dataclasses already
import reprlib
from typing import Any, TypeVar

Class = TypeVar("Class", bound=type)


def frozen(cls: Class) -> Class:
    """A frozen dataclass, made and built faster (see the module's docstring)."""
    if not cls.__dict__.get("__doc__"):
        raise TypeError(f"{cls.__name__}: @frozen needs a docstring")  # else inspect makes one
    made = dataclasses.dataclass(init=False, repr=False, eq=False)(cls)
    if hasattr(made, "__post_init__"):
        raise TypeError(f"{made.__name__}: @frozen does not run __post_init__")
    fields = dataclasses.fields(made)
    for field in fields:
        plain = field.init and not field.kw_only
        if not plain or field.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{made.__name__}.{field.name}: @frozen takes plain fields only")
    names = frozenset(field.name for field in fields)
    compared = tuple(field.name for field in fields if field.compare)
    hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
    shown = tuple(field.name for field in fields if field.repr)

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple(getattr(self, n) for n in compared) == tuple(
            getattr(other, n) for n in compared
        )

    def __hash__(self: Any) -> int:
        return hash(tuple(getattr(self, name) for name in hashed))

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({values})"

    def __setattr__(self: Any, name: str, value: object) -> None:
        if type(self) is made or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(made, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is made or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(made, self).__delattr__(name)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # The fast __init__ is compiled when the first instance is made, not at import:
        # the TUI's first screen builds no event.
        init = _compiled_init(made)
        made.__init__ = init
        init(self, *args, **kwargs)

    __init__.__signature__ = _signature(made)  # type: ignore[attr-defined]
    for method in (__eq__, __hash__, __repr__, __setattr__, __delattr__, __init__):
        method.__qualname__ = f"{made.__qualname__}.{method.__name__}"
        setattr(made, method.__name__, method)
    return made


def _signature(made: type) -> inspect.Signature:
    """The dataclass's `__init__` signature, for whoever inspects the class before its
    first instance is made (a `Signature` is made without compiling)."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [inspect.Parameter("self", kind)]
    for field in dataclasses.fields(made):
        default = inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default
        parameters.append(
            inspect.Parameter(field.name, kind, default=default, annotation=field.type)
        )
    return inspect.Signature(parameters, return_annotation=None)


def _compiled_init(made: type) -> Any:
    """The dataclass's `__init__` signature, filling `__dict__` at once."""
    namespace: dict[str, Any] = {}
    parameters: list[str] = []
    assignments: list[str] = []
    annotations: dict[str, Any] = {"return": None}
    for position, field in enumerate(dataclasses.fields(made)):
        if field.default is dataclasses.MISSING:
            parameters.append(field.name)
        else:
            namespace[f"_default_{position}"] = field.default
            parameters.append(f"{field.name}=_default_{position}")
        assignments.append(f"    values[{field.name!r}] = {field.name}")
        annotations[field.name] = field.type
    header = f"def __init__(self, {', '.join(parameters)}):"
    exec("\n".join([header, "    values = self.__dict__", *assignments]), namespace)
    init = namespace["__init__"]  # made the way `dataclasses` makes its own
    init.__qualname__ = f"{made.__qualname__}.__init__"
    init.__module__ = made.__module__
    init.__annotations__ = annotations
    return init
