"""Hostile scenario files: deep nesting, alias bombs, cycles, huge files, too many turns,
text that is not text, tags that make no JSON value. Each is refused with the file and
the line (one `ScenarioLoadError`, never a `RecursionError`, a hang or a crash), and one
bad file never stops the others: `replay DIR` and the TUI library go on to the next.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from airline_agent.scenarios import yaml_text
from airline_agent.scenarios.loader import ScenarioLoadError, load_all, load_scenario
from tests.support.profile import heavy
from tests.unit.scenarios.test_scenario_model import VALID, write

ONE_TURN = "turns:\n- customer: hi\n  responses: [{content: hello}]\n"


def bomb(levels: int) -> str:
    """The billion laughs: each level is a list of nine of the level below."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        below = ", ".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{below}]")
    return "name: bomb\n" + "\n".join(lines) + "\n" + ONE_TURN


def refused(path: Path) -> ScenarioLoadError:
    with pytest.raises(ScenarioLoadError) as caught:
        load_scenario(path)
    assert str(caught.value).startswith(str(path))
    return caught.value


def only_problem(error: ScenarioLoadError) -> tuple[int | None, str]:
    [problem] = error.problems
    return problem.line, problem.message


@pytest.mark.parametrize(
    "nesting",
    ["[" * 50_000, "[" * 50_000 + "]" * 50_000, "{a: " * 3_000 + "1" + "}" * 3_000],
    ids=["50000-open-brackets", "50000-closed-brackets", "3000-deep-flow-mapping"],
)
def test_deep_nesting_is_refused_on_its_line(tmp_path: Path, nesting: str) -> None:
    path = write(tmp_path, f"name: deep\ndescription: x\ndatabase: {nesting}\n" + ONE_TURN)
    line, message = only_problem(refused(path))
    assert line == 3
    assert "nested more than 64 levels" in message


def test_a_3000_deep_block_mapping_is_refused(tmp_path: Path) -> None:
    # Written with one space per level, it is 4.5 MB: over the size limit before its depth.
    deep = "".join(" " * level + f"k{level}:\n" for level in range(3_000))
    path = write(tmp_path, "name: deep\n" + ONE_TURN + "database:\n" + deep)
    assert refused(path).problems


def test_a_100_deep_block_mapping_is_refused_where_it_goes_too_deep(tmp_path: Path) -> None:
    deep = "".join(" " * (level + 1) + f"k{level}:\n" for level in range(100)) + " " * 101 + "v\n"
    path = write(tmp_path, "name: deep\n" + ONE_TURN + "database:\n" + deep)
    line, message = only_problem(refused(path))
    assert "nested more than 64 levels" in message
    assert line is not None and 60 <= line <= 70


def test_an_alias_bomb_is_refused_where_its_expansion_passes_the_limit(tmp_path: Path) -> None:
    path = write(tmp_path, bomb(5))  # 9**5 = 59,049 values from 300 bytes
    line, message = only_problem(refused(path))
    assert "expand to more than 10,000 values" in message
    assert line == 6  # a4, whose nine uses of a3 (820 values each) pass 10,000


def test_more_than_100_aliases_are_refused(tmp_path: Path) -> None:
    uses = ", ".join(["*greeting"] * 101)
    text = f"name: aliases\ndescription: &greeting hello\nextra: [{uses}]\n" + ONE_TURN
    line, message = only_problem(refused(write(tmp_path, text)))
    assert (line, message) == (3, "more than 100 aliases (the limit)")


def test_a_few_aliases_are_fine(tmp_path: Path) -> None:
    text = VALID.replace("customer: What", "customer: &question What").replace(
        "database: unchanged", "description: *question\ndatabase: unchanged"
    )
    text = text.replace("description: A customer asks about a reservation.\n", "")
    scenario = load_scenario(write(tmp_path, text))
    assert scenario.description == "What is in EHGLP3?"


def test_an_alias_inside_its_own_anchor_is_refused(tmp_path: Path) -> None:
    text = "name: cycle\nturns: &turns\n- customer: hi\n  responses: *turns\n"
    line, message = only_problem(refused(write(tmp_path, text)))
    assert (line, message) == (4, "an alias refers to the value that contains it")


def test_a_file_over_16_mib_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    path = write(tmp_path, VALID + "# " + "x" * (17 * 1024 * 1024) + "\n")
    line, message = only_problem(refused(path))
    assert line is None and "larger than 16 MiB" in message


@heavy("10,001 turns, the next test")
def test_100000_turns_are_refused(tmp_path: Path) -> None:
    turns = "- {customer: a, responses: [{content: b}]}\n" * 100_000
    assert refused(write(tmp_path, "name: many\nturns:\n" + turns)).problems


def test_more_turns_than_the_limit_are_refused_before_they_are_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = "- {customer: a, responses: [{content: b}]}\n" * 10_001
    line, message = only_problem(refused(write(tmp_path, "name: many\nturns:\n" + turns)))
    assert (line, message) == (2, "10,001 turns; a scenario may have at most 10,000 (the limit)")
    monkeypatch.setattr(yaml_text, "MAX_TURNS", 3)
    three = "name: three\nturns:\n" + "- {customer: a, responses: [{content: b}]}\n" * 3
    assert len(load_scenario(write(tmp_path, three, "three.yaml")).turns) == 3


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ('customer: "hi \\ud83d"', 3, "surrogate"),  # half an emoji, escaped
        ('customer: "hi \\UFFFFFFFF"', 3, "escape"),
        ("customer: !!binary aGVsbG8=", 3, "!!binary is not allowed"),
        ("customer: !!timestamp 2024-05-17", 3, "!!timestamp is not allowed"),
        ("customer: !!python/object:os.system ls", 3, "python/object"),
        ("customer: !!set {a, b}", 3, "!!set is not allowed"),
        ("customer: hi\n  expect: {tools: !custom x}", 4, "!custom is not allowed"),
        ("customer: hi\n  expect: {end: !!int x}", 4, "cannot be read"),
        ("customer: hi\n  expect: {end: " + "9" * 5_000 + "}", 4, "cannot be read"),
        ('customer: "hi\x00"', 3, "not allowed"),
        ('customer: "hi\x1b[31m"', 3, "not allowed"),
    ],
    ids=[
        "surrogate",
        "escape-past-unicode",
        "binary",
        "timestamp",
        "python-object",
        "set",
        "custom-tag",
        "explicit-int",
        "5000-digits",
        "nul",
        "escape-character",
    ],
)
def test_text_and_values_no_scenario_holds_are_refused_on_their_line(
    tmp_path: Path, text: str, line: int, words: str
) -> None:
    body = f"name: odd\nturns:\n- {text}\n  responses: [{{content: ok}}]\n"
    found_line, message = only_problem(refused(write(tmp_path, body)))
    assert found_line == line, message
    assert words in message


def test_bytes_that_are_not_utf8_are_reported_on_their_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: latin\nturns:\n- customer: caf\xe9\n  responses: [{content: ok}]\n")
    assert only_problem(refused(path)) == (3, "not UTF-8 text (byte 0xe9 at column 16)")


def hostile_library(folder: Path) -> None:
    folder.mkdir()
    write(folder, VALID, "a-good.yaml")
    write(folder, bomb(9), "b-bomb.yaml")  # 9**9 = 387 million values from 500 bytes
    write(folder, "name: brackets\ndatabase: " + "[" * 50_000 + "\n" + ONE_TURN, "c-deep.yaml")
    mapping = "".join(" " * level + f"k{level}:\n" for level in range(3_000))
    write(folder, "name: deep-map\n" + ONE_TURN + "database:\n" + mapping, "d-deep-map.yaml")
    write(folder, 'name: half\nturns:\n- customer: "\\ud83d"\n', "e-surrogate.yaml")
    write(folder, VALID.replace("small-one", "small-two"), "f-good.yaml")


def test_replay_of_a_folder_goes_on_past_every_hostile_file(tmp_path: Path) -> None:
    folder = tmp_path / "library"
    hostile_library(folder)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AIRLINE_AGENT_"))}
    result = subprocess.run(
        [sys.executable, "-m", "airline_agent", "replay", str(folder), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,  # a generous deadline: the bomb used to run for many minutes
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1  # the invalid files fail the run
    rows = {row["path"]: row for row in json.loads(result.stdout)["scenarios"]}
    statuses = {Path(path).name: row["status"] for path, row in rows.items()}
    assert statuses == {
        "a-good.yaml": "passed",
        "b-bomb.yaml": "invalid",
        "c-deep.yaml": "invalid",
        "d-deep-map.yaml": "invalid",
        "e-surrogate.yaml": "invalid",
        "f-good.yaml": "passed",
    }
    for path, row in rows.items():
        if row["status"] == "invalid":
            assert row["reason"].startswith(path), row["reason"]
            assert len(row["reason"].splitlines()) == 1, row["reason"]


def test_the_library_lists_every_hostile_file_with_its_problem(tmp_path: Path) -> None:
    from airline_agent.config import Settings
    from airline_agent.tui.controller import AgentController

    folder = tmp_path / "library"
    hostile_library(folder)
    controller = AgentController(Settings(), library=folder)
    choices = {choice.name: choice.problem for choice in controller.scenario_choices()}
    assert [name for name, problem in choices.items() if problem is None] == [
        "small-one",
        "small-two",
    ]
    assert sorted(name for name, problem in choices.items() if problem) == [
        "b-bomb",
        "c-deep",
        "d-deep-map",
        "e-surrogate",
    ]
    assert controller.quick_choices() is None  # unreadable at a glance: validated instead


def test_load_all_reports_every_hostile_file_and_loads_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "library"
    hostile_library(folder)
    loaded = load_all([folder])
    assert [type(item).__name__ for item in loaded] == [
        "Scenario",
        "ScenarioLoadError",
        "ScenarioLoadError",
        "ScenarioLoadError",
        "ScenarioLoadError",
        "Scenario",
    ]
