"""The run folder: never over an existing run unasked, never through a link, never into
the task data; its files are written through the project's OutputPolicy."""

from __future__ import annotations

import pytest

from airline_agent.evaluation.run_folder import RunFolder, RunFolderError


def test_an_existing_run_needs_resume_or_force(tmp_path) -> None:
    folder = RunFolder.open(tmp_path / "run", resume=False, force=False)
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
