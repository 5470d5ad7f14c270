"""Reading scenario files, with errors that say the file, the line and what is wrong.

The YAML is composed into nodes first (they carry line numbers), then validated with
pydantic; each pydantic error location is walked down the node tree to find its line.
A malformed file becomes a `ScenarioLoadError` value in `load_library`, so the other
scenarios still run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.yaml_text import (  # noqa: F401 (the reader's names, kept here)
    FastScenarioYamlLoader,
    ScenarioYamlLoader,
    parse_yaml,
)


@dataclass(frozen=True)
class Problem:
    line: int | None  # 1-based; None when the file could not be read at all
    message: str


@dataclass
class ScenarioLoadError(Exception):
    """A scenario file that cannot be used, with every problem found in it."""

    path: Path
    problems: list[Problem] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(
            f"{self.path}:{p.line}: {p.message}" if p.line else f"{self.path}: {p.message}"
            for p in self.problems
        )

    @property
    def name(self) -> str:
        return self.path.stem


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate one file, or raise `ScenarioLoadError` naming the lines at fault."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioLoadError(path, [Problem(None, f"cannot be read ({exc})")]) from None
    try:
        data, node = parse_yaml(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        raise ScenarioLoadError(path, [Problem(line, f"not valid YAML: {what}")]) from None
    except yaml.YAMLError as exc:
        raise ScenarioLoadError(path, [Problem(None, f"not valid YAML: {exc}")]) from None
    if node is None:
        raise ScenarioLoadError(path, [Problem(1, "the file is empty")])
    duplicates = list(_duplicate_keys(node))
    if duplicates:
        raise ScenarioLoadError(path, duplicates)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioLoadError(path, _problems(exc, node)) from None
    scenario._source = path
    return scenario


def scenario_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given; directories give their `*.yaml` / `*.yml` files, sorted by name."""
    found: list[Path] = []
    for entry in map(Path, paths):
        if entry.is_dir():
            found.extend(sorted(p for p in entry.iterdir() if p.suffix in (".yaml", ".yml")))
        else:
            found.append(entry)
    return found


def load_library(directory: str | Path) -> list[Scenario | ScenarioLoadError]:
    """Every scenario of a directory (or the given files), errors in place of bad files."""
    return load_all([directory])


def load_all(paths: Iterable[str | Path]) -> list[Scenario | ScenarioLoadError]:
    loaded: list[Scenario | ScenarioLoadError] = []
    seen: dict[str, Path] = {}
    for path in scenario_paths(paths):
        try:
            scenario = load_scenario(path)
        except ScenarioLoadError as error:
            loaded.append(error)
            continue
        if scenario.name in seen:
            clash = f"name {scenario.name!r} is already used by {seen[scenario.name]}"
            loaded.append(ScenarioLoadError(path, [Problem(1, clash)]))
            continue
        seen[scenario.name] = path
        loaded.append(scenario)
    return loaded


def _problems(error: ValidationError, root: yaml.Node) -> list[Problem]:
    details = error.errors(include_url=False)
    places = [_locate(root, detail["loc"]) for detail in details]
    problems: list[Problem] = []
    for detail, (line, where) in zip(details, places, strict=True):
        # A union reports every member; when one member got further into the value,
        # the members that failed at its top only add noise ("should be 'unchanged'").
        if any(_inside(other, where) for _, other in places):
            continue
        message = detail["msg"].removeprefix("Value error, ")
        if detail["type"] == "extra_forbidden":
            message = "unknown key (not part of the scenario format)"
        problems.append(Problem(line, f"{where}: {message}" if where else message))
    return sorted(set(problems), key=lambda p: (p.line or 0, p.message))


def _locate(root: yaml.Node, loc: tuple[Any, ...]) -> tuple[int, str]:
    """The line of the deepest node the location reaches, and the location as text.

    Parts of the location that are not in the file (pydantic names union members, e.g.
    `dict[str,any]`) are skipped; a missing key points at the mapping that lacks it.
    """
    node = root
    line = root.start_mark.line + 1
    where = ""
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value == part:
                    child, line = value, key.start_mark.line + 1
                    break
            if child is None and _is_union_tag(part):
                continue
            where += f".{part}" if where else part
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if 0 <= part < len(node.value):
                child = node.value[part]
                line = child.start_mark.line + 1
            where += f"[{part}]"
        elif isinstance(part, str) and _is_union_tag(part):
            continue
        else:
            where += f".{part}" if where and isinstance(part, str) else f"[{part}]"
        if child is None:
            break
        node = child
    return line, where


def _inside(path: str, parent: str) -> bool:
    return path.startswith((f"{parent}.", f"{parent}[")) if parent else bool(path)


def _is_union_tag(part: str) -> bool:
    """pydantic's names for union members and validators, e.g. `literal['unchanged']`."""
    return any(ch in part for ch in "[]()") or part in ("str", "int", "bool", "float")


def _duplicate_keys(node: yaml.Node) -> Iterable[Problem]:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    yield Problem(key.start_mark.line + 1, f"key {key.value!r} appears twice")
                seen.add(key.value)
            yield from _duplicate_keys(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from _duplicate_keys(item)
