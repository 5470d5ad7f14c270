"""The run folder: never over an existing run unasked, never through a link, never into
the task data; its files are written through the project's OutputPermissions."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from airline_agent.evaluation.run_folder import RunFolder, RunFolderError
from airline_agent.redaction import Redactor

PACKAGE = Path(__file__).resolve().parents[3] / "airline_agent"
EVAL_MODULES = [
    *(p for p in (PACKAGE / "evaluation").glob("*.py") if p.name != "run_folder.py"),
    PACKAGE / "commands" / "eval.py",
]


def test_an_existing_run_needs_resume_or_force(tmp_path) -> None:
    folder = RunFolder.open(tmp_path / "run", resume=False, force=False)
    folder.write_json("run.json", {"run_id": "run-1", "settings": {}})
    folder.write_json("results.json", {"a": 1})
    folder.write_json("trials/task-1-trial-0.json", {"record": {}})
    (tmp_path / "run" / "notes.txt").write_text("mine")
    with pytest.raises(RunFolderError, match="--resume goes on with it"):
        RunFolder.open(tmp_path / "run", resume=False, force=False)
    resumed = RunFolder.open(tmp_path / "run", resume=True, force=False)
    assert resumed.read_json("results.json") == {"a": 1}
    RunFolder.open(tmp_path / "run", resume=False, force=True)
    assert not (tmp_path / "run" / "results.json").exists()
    assert not list((tmp_path / "run" / "trials").iterdir())
    assert (tmp_path / "run" / "notes.txt").read_text() == "mine"  # not ours: kept


def test_links_and_the_task_data_are_refused(tmp_path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(RunFolderError, match="is a link"):
        RunFolder.open(tmp_path / "link", resume=False, force=False)
    data = tmp_path / "tau2"
    data.mkdir()
    with pytest.raises(RunFolderError, match="task data"):
        RunFolder.open(data / "runs", resume=False, force=False, inputs=(data,))
    folder = RunFolder.open(tmp_path / "run", resume=False, force=False)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("{}")
    (tmp_path / "run" / "summary.md").symlink_to(elsewhere)
    with pytest.raises(RunFolderError, match="symbolic link"):
        folder.write_text("summary.md", "# run")
    assert elsewhere.read_text() == "{}"


def test_a_file_is_replaced_whole(tmp_path) -> None:
    folder = RunFolder.open(tmp_path / "run", resume=False, force=False)
    folder.write_text("summary.md", "first")
    folder.write_text("summary.md", "second")
    assert (tmp_path / "run" / "summary.md").read_text() == "second"
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "scenarios",
        "summary.md",
        "trials",
    ]


def test_a_torn_garbled_or_hostile_json_file_reads_as_none(tmp_path) -> None:
    folder = RunFolder.open(tmp_path / "run", resume=False, force=False)
    for name, data in {
        "torn.json": b'{"settings": {"tasks_dir": "/x',
        "binary.json": b"\xff\xfe{}",
        "deep.json": b"[" * 100_000 + b"]" * 100_000,  # RecursionError in json.loads
    }.items():
        (folder.path / name).write_bytes(data)
        assert folder.read_json(name) is None, name


KEY = "sk-run-folder-secret-0123456789"


def test_every_file_written_is_redacted(tmp_path) -> None:
    """The folder is the one place a run's files pass through: whatever a caller forgot
    to redact (a server's error echoing the key, a database password) is blanked there."""
    folder = RunFolder.open(tmp_path / "run", resume=False, force=False, redactor=Redactor.of(KEY))
    folder.write_text("summary.md", f"boom {KEY}")
    folder.write_json(
        "trials/task-1-trial-0.json",
        {"error": f"boom {KEY}", KEY: [f"{KEY}"], "db": "postgresql://a@h/d?password=S3cret"},
    )
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert KEY not in text and "S3cret" not in text, path
    trial = folder.read_json("trials/task-1-trial-0.json")
    assert trial == {
        "error": "boom [redacted]",
        "[redacted]": ["[redacted]"],
        "db": "postgresql://a@h/d?password=***",
    }


def test_nothing_in_eval_writes_a_file_but_the_run_folder() -> None:
    """No module of eval writes a file by another way than the run folder's `write_text`
    and `write_json`, so that no file can miss its redaction."""
    offenders = []
    for path in sorted(EVAL_MODULES):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _writes(node.func):
                offenders.append(f"{path.name}:{node.lineno}: {ast.unparse(node)[:70]}")
    assert offenders == []


def _writes(function: ast.expr) -> bool:
    """A call that writes a file other than through the run folder."""
    if isinstance(function, ast.Name):
        return function.id in ("open", "OutputPermissions")
    if not isinstance(function, ast.Attribute):
        return False
    owner = function.value.id if isinstance(function.value, ast.Name) else None
    if function.attr in ("write_text", "write_bytes", "write_texts", "write_json"):
        return owner not in ("folder", "self")
    if function.attr == "open":
        return owner != "RunFolder"
    return owner in ("os", "shutil", "OutputPermissions") and function.attr not in (
        "access",
        "path",
    )
