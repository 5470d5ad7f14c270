"""`eval` given what it must not trust (issue 30): a folder of the user's own as `--out`
with `--resume` or `--force`, and a tasks.json whose ids are hostile. One line, exit 2 and
nothing written for what is refused; an id that is text is data, and names its files so
that no two ids share one and none reaches outside the run folder. The real command,
loopback servers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from airline_agent.evaluation.results import FORMAT
from tests.conftest import tau2_files
from tests.support.chat_server import ChatServer
from tests.support.cli import invoke_cli
from tests.support.eval_roles import OracleAgent, ScriptedCustomer
from tests.support.eval_run import run_eval

# τ² tasks without reference actions (quick trials), each given one of these ids.
NO_ACTION_TASKS = ("0", "10", "26", "28", "31", "34", "46")
KEPT_IDS = ("../../x", "a/b", "a%2Fb", ".", "A", "a", "ünï")


@pytest.fixture
def tasks_dir() -> Path:
    db, _ = tau2_files()
    return db.parent


@pytest.fixture
def agent(tasks_dir: Path) -> Iterator[ChatServer]:
    server = ChatServer(OracleAgent(tasks_dir / "tasks.json"))
    yield server
    server.close()


@pytest.fixture
def customer(tasks_dir: Path) -> Iterator[ChatServer]:
    server = ChatServer(ScriptedCustomer(tasks_dir / "tasks.json"))
    yield server
    server.close()


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else b"<folder>"
        for path in sorted(folder.rglob("*"))
    }


@pytest.mark.parametrize("flag", ["--resume", "--force"])
def test_a_folder_that_is_not_a_run_is_refused_and_kept(
    flag, agent, customer, tasks_dir, tmp_path
) -> None:
    """A results.json and summary.md of the user's own, no run.json: not a run."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "results.json").write_text('{"my": "own results"}\n')
    (mine / "summary.md").write_text("# my own notes\n")
    before = _tree(mine)
    run = run_eval(agent, customer, mine, "--task-ids", "1", flag, tasks=tasks_dir)
    assert run.exit_code == 2
    assert len(run.stderr.strip().splitlines()) == 1 and "not a run" in run.stderr
    assert _tree(mine) == before  # nothing replaced, nothing added
    assert agent.requests == [] and customer.requests == []


def test_a_run_stopped_before_its_first_file_is_resumed(
    agent, customer, tasks_dir, tmp_path
) -> None:
    """The empty folders a run makes first hold nothing of anyone: --resume starts it."""
    out = tmp_path / "run"
    (out / "trials").mkdir(parents=True)
    (out / "scenarios").mkdir()
    run = run_eval(agent, customer, out, "--task-ids", "0", "--resume", tasks=tasks_dir)
    assert run.exit_code == 0, run.stderr
    assert run.results["trials_run"] == 1


def _tasks_with_ids(tasks_dir: Path, folder: Path, ids: list[object]) -> Path:
    """A task folder: τ²'s db.json, and tasks of tasks.json with these ids."""
    tasks = {task["id"]: task for task in json.loads((tasks_dir / "tasks.json").read_text())}
    pairs = zip(NO_ACTION_TASKS, ids, strict=False)
    chosen = [dict(tasks[source], id=given) for source, given in pairs]
    folder.mkdir()
    (folder / "tasks.json").write_text(json.dumps(chosen))
    (folder / "db.json").symlink_to(tasks_dir / "db.json")
    return folder


@pytest.mark.parametrize(
    ("hostile", "says"),
    [
        (["x"], "is a list, not text"),
        (7, "is a number, not text"),
        (None, "is null, not text"),
        ("", "is empty"),
        ("x" * 300_000, "is too long"),
        ("\x1b]0;owned\x07\x1b[2J", "control characters"),
        ("a\x00b", "control characters"),
        ("\u202eexe.txt", "control characters"),
        ("\ud800", "not valid Unicode"),
    ],
    ids=["list", "number", "null", "empty", "300000", "escapes", "nul", "bidi", "surrogate"],
)
def test_a_hostile_task_id_is_one_line_and_nothing_is_written(
    hostile, says, agent, customer, tasks_dir, tmp_path
) -> None:
    folder = _tasks_with_ids(tasks_dir, tmp_path / "tasks", ["1", hostile])
    out = tmp_path / "run"
    run = run_eval(agent, customer, out, tasks=folder)
    assert run.exit_code == 2, run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "task 2: its id" in run.stderr and says in run.stderr
    assert len(run.stderr) < 1000  # the 300,000 characters are not all shown
    assert not any(c in run.stderr for c in "\x1b\x07\x00\u202e")  # escaped, never raw
    assert not out.exists()
    assert agent.requests == [] and customer.requests == []


def test_ids_that_are_text_name_one_file_each_inside_the_run(
    agent, customer, tasks_dir, tmp_path
) -> None:
    """`../../x`, `a/b` and `a%2Fb`, `.`, `A` and `a` (one file on a file system that
    ignores case, if written as they are), non-ASCII: each trial has its own files, in
    the run folder, and --resume finds every one of them again."""
    folder = _tasks_with_ids(tasks_dir, tmp_path / "tasks", list(KEPT_IDS))
    out = tmp_path / "deep" / "run"
    run = run_eval(agent, customer, out, tasks=folder)
    assert run.exit_code == 0, run.stderr
    assert [t["task_id"] for t in run.results["trials"]] == list(KEPT_IDS)
    assert all(t["reward"] == 1.0 for t in run.results["trials"])
    trials = sorted(path.name for path in (out / "trials").iterdir())
    scenarios = sorted(path.name for path in (out / "scenarios").iterdir())
    assert len({name.lower() for name in trials}) == len(KEPT_IDS)
    assert len({name.lower() for name in scenarios}) == len(KEPT_IDS)
    assert sorted(p.name for p in (tmp_path / "deep").iterdir()) == ["run"]  # nothing outside
    assert not (tmp_path / "x").exists()
    for name in trials:
        record = json.loads((out / "trials" / name).read_text())["record"]
        assert record["scenario"] == f"scenarios/{name.removesuffix('.json')}.yaml"
        assert (out / record["scenario"]).is_file()
    asked = len(agent.requests), len(customer.requests)
    again = run_eval(agent, customer, out, "--resume", tasks=folder)
    assert again.exit_code == 0, again.stderr
    assert again.results["trials_run"] == len(KEPT_IDS)
    assert (len(agent.requests), len(customer.requests)) == asked  # none run again


def test_compare_shows_a_hostile_task_id_escaped(tmp_path) -> None:
    """Two results.json files from elsewhere, whose task id holds escape sequences:
    `eval --compare` names the task without letting the terminal obey them."""
    hostile = "\x1b]0;owned\x07\x1b[2J7"
    for name, reward in (("a", 1.0), ("b", 0.0)):
        trial = {"task_id": hostile, "reward": reward, "infra_error": False}
        results = {"format": FORMAT, "trials": [trial | {"customer_error": False}]}
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps(results))
    result = invoke_cli("eval", "--compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert result.returncode == 0, result.stderr
    assert "\\u001b]0;owned\\u0007\\u001b[2J7" in result.stdout
    assert not any(c in result.stdout for c in "\x1b\x07")
