"""The fast (libyaml) scenario reader gives exactly what the pure-Python reader gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from airline_agent.scenarios import loader, yaml_text
from airline_agent.scenarios.library import library_dir

BROKEN = [
    "name: x\nturns: [\n  - a\n",  # unclosed flow sequence
    "name: x\n  description: y\n",  # bad indentation
    "name: 'unterminated\n",
    "- a\nb: c\n",
    "name: x\n\tdescription: tab\n",
]

needs_libyaml = pytest.mark.skipif(
    yaml_text.FastScenarioYamlLoader is None, reason="PyYAML built without libyaml"
)


def _tree(node: yaml.Node) -> tuple[Any, ...]:
    """Everything the loader reads from a node: tag, marks (for line numbers), value.

    Representation details nothing reads differ in spelling only (libyaml says '' and
    False where the pure reader says None for plain scalars and block collections).
    """
    marks = (node.tag, node.start_mark.line, node.start_mark.column, node.end_mark.line)
    if isinstance(node, yaml.MappingNode):
        return (*marks, [(_tree(key), _tree(value)) for key, value in node.value])
    if isinstance(node, yaml.SequenceNode):
        return (*marks, [_tree(item) for item in node.value])
    return (*marks, node.value, node.style or None)


def _texts() -> list[str]:
    from tests.unit.scenarios.test_scenario_model import VALID

    shipped = sorted(library_dir().glob("*.yaml"))
    assert len(shipped) >= 12
    return [VALID, *(path.read_text(encoding="utf-8") for path in shipped)]


@needs_libyaml
def test_both_readers_give_the_same_data_and_the_same_lines() -> None:
    for text in _texts():
        fast = yaml_text._parse_with(yaml_text.FastScenarioYamlLoader, text)
        pure = yaml_text._parse_with(yaml_text.ScenarioYamlLoader, text)
        assert fast[0] == pure[0]
        assert _tree(fast[1]) == _tree(pure[1])


@needs_libyaml
def test_the_fast_reader_keeps_the_scenario_resolvers() -> None:
    data, _ = yaml_text._parse_with(
        yaml_text.FastScenarioYamlLoader, "a: no\nb: 2024-05-17\nc: true\nd: False\ne: 3\n"
    )
    assert data == {"a": "no", "b": "2024-05-17", "c": True, "d": False, "e": 3}


@pytest.mark.parametrize("text", BROKEN)
def test_a_syntax_error_is_reported_as_the_pure_reader_reports_it(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(yaml.MarkedYAMLError) as pure:
        yaml_text._parse_with(yaml_text.ScenarioYamlLoader, text)
    with pytest.raises(loader.ScenarioLoadError) as caught:
        loader.load_scenario(path)
    [problem] = caught.value.problems
    mark = pure.value.problem_mark or pure.value.context_mark
    assert mark is not None and problem.line == mark.line + 1
    assert pure.value.problem in problem.message


def test_without_libyaml_the_pure_reader_loads_the_library(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with_fast = [yaml_text.parse_yaml(text)[0] for text in _texts()]
    monkeypatch.setattr(yaml_text, "FastScenarioYamlLoader", None)
    assert [yaml_text.parse_yaml(text)[0] for text in _texts()] == with_fast
