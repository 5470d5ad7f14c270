"""Scenario YAML as data plus its node tree (for line numbers), without pydantic.

The TUI lists the library from this alone (name, description, turns) before the models
are imported; `loader.load_scenario` validates.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml


def _scenario_resolvers(loader: type[yaml.SafeLoader] | type[Any]) -> None:
    """Only `true`/`false` (any case style) are booleans, and there are no timestamps.

    YAML 1.1 reads `insurance: no` as False and `date: 2024-05-17` as a date object; in
    this domain both are strings, as in the τ² data.
    """
    loader.yaml_implicit_resolvers = {
        first: [
            (tag, regexp)
            for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")
        ]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"),
    )


class ScenarioYamlLoader(yaml.SafeLoader):
    """The pure-Python reader: the reference, and what reports syntax errors."""


_scenario_resolvers(ScenarioYamlLoader)

# libyaml parses about 6× faster (the TUI reads the whole library before its first full
# screen). Its nodes carry the same line marks and go through the same Python resolvers
# and constructors, so the data is identical; only its error wording differs, so a file
# it rejects is read again by the pure reader for the message.
FastScenarioYamlLoader: type[Any] | None = None
if getattr(yaml, "__with_libyaml__", False):

    class FastScenarioYamlLoader(yaml.CSafeLoader):  # type: ignore[no-redef]
        """libyaml's parser with the scenario resolvers."""

    _scenario_resolvers(FastScenarioYamlLoader)


def parse_yaml(text: str) -> tuple[Any, yaml.Node | None]:
    """The data and its node tree (for line numbers)."""
    if FastScenarioYamlLoader is not None:
        try:
            return _parse_with(FastScenarioYamlLoader, text)
        except yaml.YAMLError:
            pass  # the pure reader below raises the error with its usual wording
    return _parse_with(ScenarioYamlLoader, text)


def _parse_with(loader_class: type[Any], text: str) -> tuple[Any, yaml.Node | None]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return data, node


def scenario_paths_in(directory: Path) -> list[Path]:
    """A directory's `*.yaml` / `*.yml` files, sorted by name (as `loader.scenario_paths`)."""
    return sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml"))


def summary(path: Path) -> tuple[str, str, int] | None:
    """Name, description and number of turns as the file states them; None if unreadable.

    Only the node tree is built, and only `name` and `description` become data: the turns
    are counted, not constructed (half the time, for a library listed at start-up).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    loader = (FastScenarioYamlLoader or ScenarioYamlLoader)(text)
    try:
        node = loader.get_single_node()
        if not isinstance(node, yaml.MappingNode):
            return None
        fields: dict[str, Any] = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                continue
            if key.value in ("name", "description"):
                fields[key.value] = loader.construct_object(value, deep=True)
            elif key.value == "turns" and isinstance(value, yaml.SequenceNode):
                fields["turns"] = len(value.value)
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    name, description = fields.get("name"), fields.get("description")
    if not isinstance(name, str) or not isinstance(description, str | None):
        return None
    return name, description or "", fields.get("turns", 0)
