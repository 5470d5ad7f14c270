"""Reading scenario files, with errors that say the file, the line and what is wrong.

The YAML is composed into nodes first (they carry line numbers), then validated with
pydantic; each pydantic error location is walked down the node tree to find its line.
A malformed file becomes a `ScenarioLoadError` value in `load_library`, so the other
scenarios still run. Files over the limits of `yaml_text` (size, depth, aliases, turns)
are refused the same way, before any data is built from them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import ValidationError

from airline_agent.domain.sqlite_files import file_kind
from airline_agent.scenarios.model import Scenario
from airline_agent.scenarios.yaml_text import (  # noqa: F401 (the reader's names, kept here)
    MAX_FILE_BYTES,
    FastScenarioYamlLoader,
    ScenarioYamlLoader,
    YamlLimitError,
    parse_yaml,
    size_text,
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
    """Read and validate one file, or raise `ScenarioLoadError` naming the lines at fault.

    Nothing else is raised, whatever the file holds (tests/unit/scenarios/test_scenario_fuzz.py).
    """
    path = Path(path)
    text = _read_text(path)
    try:
        data, node = parse_yaml(text)
    except YamlLimitError as exc:
        problem = exc.problem or str(exc)
        raise ScenarioLoadError(path, [Problem(_line(exc.problem_mark), problem)]) from None
    except yaml.MarkedYAMLError as exc:
        line = _line(exc.problem_mark or exc.context_mark)
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        raise ScenarioLoadError(path, [Problem(line, f"not valid YAML: {what}")]) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise ScenarioLoadError(path, [Problem(line, f"not valid YAML: {exc.reason}")]) from None
    except yaml.YAMLError as exc:
        raise ScenarioLoadError(path, [Problem(None, f"not valid YAML: {exc}")]) from None
    if node is None:
        raise ScenarioLoadError(path, [Problem(1, "the file is empty")])
    duplicates = sorted(set(_duplicate_keys(node)), key=lambda p: (p.line or 0, p.message))
    if duplicates:
        raise ScenarioLoadError(path, duplicates)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioLoadError(path, _problems(exc, node)) from None
    scenario._source = path
    return scenario


def _read_text(path: Path) -> str:
    """The file as text, read no further than the size limit (a huge file never fills
    memory); undecodable bytes are reported on their line. Only a regular file is read:
    it is opened without waiting (a FIFO's reader would wait for a writer forever) and
    anything else is refused before a byte is read."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise ScenarioLoadError(path, [Problem(None, f"cannot be read ({exc})")]) from None
    try:
        with os.fdopen(descriptor, "rb") as file:
            mode = os.fstat(file.fileno()).st_mode
            if not stat.S_ISREG(mode):
                problem = f"is {file_kind(mode)}, not a regular file"
                raise ScenarioLoadError(path, [Problem(None, problem)])
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ScenarioLoadError(path, [Problem(None, f"cannot be read ({exc})")]) from None
    if len(data) > MAX_FILE_BYTES:
        message = f"is larger than {size_text(MAX_FILE_BYTES)}, the limit for a scenario file"
        raise ScenarioLoadError(path, [Problem(None, message)])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = data[exc.start : exc.start + 1].hex()
        message = f"not UTF-8 text (byte 0x{bad} at column {column})"
        raise ScenarioLoadError(path, [Problem(line, message)]) from None


def _line(mark: yaml.Mark | None) -> int | None:
    return mark.line + 1 if mark else None


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


def _locate(root: yaml.Node, loc: tuple[int | str, ...]) -> tuple[int, str]:
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


def _duplicate_keys(root: yaml.Node) -> Iterable[Problem]:
    """Keys that appear twice in one mapping. Each node is visited once (a node reached
    again is an alias, already checked), iteratively: `check_limits` bounded the tree."""
    visited: set[int] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        yield Problem(key.start_mark.line + 1, f"key {key.value!r} appears twice")
                    seen.add(key.value)
                pending.append(value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
