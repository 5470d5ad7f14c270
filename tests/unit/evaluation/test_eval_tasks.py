"""A τ² task folder is read once and typed; a missing or malformed one is one sentence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from airline_agent.evaluation.tasks import TaskSetError, file_stem, load_task_set
from airline_agent.scenarios.model import NAME_PATTERN
from tests.conftest import tau2_files


def _folder(tmp_path: Path, tasks: object, db: bool = True) -> Path:
    (tmp_path / "tasks.json").write_text(tasks if isinstance(tasks, str) else json.dumps(tasks))
    if db:
        (tmp_path / "db.json").write_text("{}")
    return tmp_path


@pytest.mark.parametrize(
    ("tasks", "db", "says"),
    [
        ("[{", True, "cannot be read as JSON"),
        ([], True, "non-empty list"),
        ([{"no": "id"}], True, "no id"),
        ([{"id": "1"}], True, "no user_scenario.instructions"),
        (
            [
                {"id": "1", "user_scenario": {"instructions": "x"}},
                {"id": "1", "user_scenario": {"instructions": "y"}},
            ],
            True,
            "repeat",
        ),
        (
            [
                {
                    "id": "1",
                    "user_scenario": {"instructions": "x"},
                    "evaluation_criteria": {"reward_basis": ["ACTION"]},
                }
            ],
            True,
            "not scored here",
        ),
        ([{"id": "1", "user_scenario": {"instructions": "x"}}], False, "db.json: not found"),
    ],
)
def test_a_bad_folder_says_what_is_wrong(tmp_path, tasks, db, says) -> None:
    with pytest.raises(TaskSetError, match=says):
        load_task_set(_folder(tmp_path, tasks, db))


def test_a_missing_folder_and_an_unknown_task_are_named(tmp_path) -> None:
    with pytest.raises(TaskSetError, match="not a directory"):
        load_task_set(tmp_path / "nowhere")
    folder = _folder(tmp_path, [{"id": "1", "user_scenario": {"instructions": "x"}}])
    with pytest.raises(TaskSetError, match="no task 7"):
        load_task_set(folder).select(["7"])


def test_the_reference_tasks_are_read_whole() -> None:
    db, _ = tau2_files()
    task_set = load_task_set(db.parent)
    assert len(task_set.tasks) == 50
    assert sum(len(task.actions) for task in task_set.tasks) == 142
    task = task_set.select(["7"])[0]
    assert task.communicate_info == ("1628",)
    assert "emma" not in task.instructions.known_info.lower() or task.id != "7"
    assert task.reward_basis == ("DB", "COMMUNICATE")


def test_a_tasks_json_nested_beyond_what_json_can_read_is_said_not_raised(tmp_path) -> None:
    with pytest.raises(TaskSetError, match="cannot be read as JSON"):
        load_task_set(_folder(tmp_path, "[" * 100_000 + "]" * 100_000))


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text())
def test_two_task_ids_never_name_one_file(first: str, second: str) -> None:
    """Any two distinct ids give distinct names, each safe as a file name and a scenario
    name (lower-case letters, digits, dashes: one file even where case is ignored)."""
    names = file_stem(first), file_stem(second)
    for name in names:
        assert NAME_PATTERN.match(name) and name == name.lower()
    assert (names[0] == names[1]) == (first == second)


def test_a_plain_id_names_its_files_as_it_is() -> None:
    assert [file_stem(i) for i in ("0", "49", "abc1")] == ["0", "49", "abc1"]
    assert file_stem("a/b") == "x-612f62" and file_stem("A") == "x-41"
