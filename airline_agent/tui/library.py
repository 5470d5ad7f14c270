"""The scenario library as the TUI lists it: each file's name, description and turns,
quickly from its YAML (the first screen), then validated (a file's problem named)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from airline_agent.late_imports import importing
from airline_agent.scenarios.library import SHOWCASE, library_dir
from airline_agent.scenarios.yaml_text import scenario_paths_in, summary


@dataclass(frozen=True)
class ScenarioChoice:
    """One entry of the library: a scenario's name, description and turns, or the
    problem that keeps its file from loading."""

    name: str
    description: str
    turns: int
    problem: str | None = None  # the file could not be loaded: why


def scenario_choices(library: Path | None, paths: dict[str, Path]) -> list[ScenarioChoice]:
    """Every file of the library (None: the shipped one) validated; `paths` learns where
    each scenario's file is."""
    # pydantic's models: loaded in the library's worker thread, after the first frame.
    with importing("airline_agent.scenarios.loader"):
        # Alone: another thread's door may be importing (late_imports.py).
        from airline_agent.scenarios.loader import (
            ScenarioLoadError,
            load_scenario,
            scenario_paths,
        )

    choices = []
    for path in scenario_paths([library or library_dir()]):
        try:
            scenario = load_scenario(path)
        except ScenarioLoadError as error:
            choices.append(ScenarioChoice(path.stem, str(error), 0, problem=str(error)))
            continue
        paths[scenario.name] = path
        choices.append(ScenarioChoice(scenario.name, scenario.description, len(scenario.turns)))
    choices.sort(key=lambda c: (c.problem is not None, c.name != SHOWCASE, c.name))
    return choices


def quick_choices(library: Path | None, paths: dict[str, Path]) -> list[ScenarioChoice] | None:
    """The first screen: each file's name, description and turns from its YAML alone
    (libyaml, no pydantic); `scenario_choices` validates right after. None: a file the
    quick reader cannot list (the loader says why, in its words)."""
    choices = []
    for path in scenario_paths_in(library or library_dir()):
        found = summary(path)
        if found is None:
            return None
        name, description, turns = found
        paths.setdefault(name, path)
        choices.append(ScenarioChoice(name, description, turns))
    choices.sort(key=lambda c: (c.name != SHOWCASE, c.name))
    return choices


def scenario_path(
    name: str,
    library: Path | None,
    paths: dict[str, Path],
    list_library: Callable[[], object],
) -> Path:
    """The file of scenario `name` (or `name` itself when it is a YAML file's path)."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml"):
        return path
    if name not in paths:
        list_library()
    return paths.get(name) or (library or library_dir()) / f"{name}.yaml"
