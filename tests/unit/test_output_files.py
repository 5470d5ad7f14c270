"""Files the project writes (a scenario saved by `chat --record` or the TUI's `s`, a
transcript by `--transcript` or `t`) are never lost: an existing file is kept unless
replacing it was asked for, a link is never followed out, nothing but a regular file is
written, and a full disk leaves the old file whole and no partial file behind."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from airline_agent.scenarios.library import library_dir
from airline_agent.scenarios.loader import load_scenario
from airline_agent.scenarios.recorder import save_scenario
from airline_agent.scenarios.transcript import write_transcript
from tests.support.full_disk import fill_the_disk

OLD = "name: my-old-recording\n# an hour of a real chat\n"


@pytest.fixture
def scenario():
    return load_scenario(library_dir() / "cancel-ehglp3.yaml")


def _files(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def test_an_existing_recording_is_kept(tmp_path: Path, scenario) -> None:
    target = tmp_path / "mine.yaml"
    target.write_text(OLD)
    with pytest.raises(OSError, match="already exists"):
        save_scenario(scenario, target)
    assert target.read_text() == OLD
    assert _files(tmp_path) == ["mine.yaml"]


def test_an_existing_transcript_is_kept(tmp_path: Path) -> None:
    (tmp_path / "chat.md").write_text(OLD)
    with pytest.raises(OSError, match="already exists"):
        write_transcript([], tmp_path, "chat")
    assert (tmp_path / "chat.md").read_text() == OLD
    assert _files(tmp_path) == ["chat.md"]  # neither file written: both are checked first


def test_a_link_is_never_followed_out(tmp_path: Path, scenario) -> None:
    outside = tmp_path / "elsewhere" / "notes.txt"
    outside.parent.mkdir()
    outside.write_text(OLD)
    (tmp_path / "recordings").mkdir()
    link = tmp_path / "recordings" / "mine.yaml"
    link.symlink_to(outside)
    from airline_agent.output_files import OutputPermissions

    for permissions in (
        OutputPermissions(),
        OutputPermissions(overwrite=True),
    ):  # not even when asked
        with pytest.raises(OSError, match="symbolic link"):
            save_scenario(scenario, link, outputs=permissions)
    assert outside.read_text() == OLD
    assert link.is_symlink()


def test_a_dangling_link_is_not_followed_either(tmp_path: Path, scenario) -> None:
    link = tmp_path / "mine.yaml"
    link.symlink_to(tmp_path / "would-be-created.yaml")
    with pytest.raises(OSError, match="symbolic link"):
        save_scenario(scenario, link)
    assert not (tmp_path / "would-be-created.yaml").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_opening_it(tmp_path: Path, scenario) -> None:
    fifo = tmp_path / "mine.yaml"
    os.mkfifo(fifo)
    from airline_agent.output_files import OutputPermissions

    with pytest.raises(OSError, match="FIFO"):  # opening it to write would wait forever
        save_scenario(scenario, fifo, outputs=OutputPermissions(overwrite=True))


def test_replacing_is_done_only_when_asked(tmp_path: Path, scenario) -> None:
    from airline_agent.output_files import OutputPermissions

    target = tmp_path / "mine.yaml"
    target.write_text(OLD)
    target.chmod(0o640)
    save_scenario(scenario, target, outputs=OutputPermissions(overwrite=True))
    assert load_scenario(target).name == scenario.name
    assert target.stat().st_mode & 0o777 == 0o640  # the file's permissions are kept
    assert _files(tmp_path) == ["mine.yaml"]


def test_replacing_one_approved_file_replaces_no_other(tmp_path: Path) -> None:
    from airline_agent.output_files import OutputPermissions

    (tmp_path / "chat.jsonl").write_text(OLD)
    (tmp_path / "chat.md").write_text(OLD)
    permissions = OutputPermissions().approving(tmp_path / "chat.jsonl")
    with pytest.raises(OSError, match=r"chat\.md: already exists"):
        write_transcript([], tmp_path, "chat", outputs=permissions)
    assert (tmp_path / "chat.jsonl").read_text() == OLD  # nothing written: checked first


def test_a_full_disk_leaves_no_partial_new_file(
    tmp_path: Path, scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "mine.yaml"
    fill_the_disk(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        save_scenario(scenario, target)
    assert _files(tmp_path) == []


def test_a_full_disk_keeps_the_old_recording_whole(
    tmp_path: Path, scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    from airline_agent.output_files import OutputPermissions

    target = tmp_path / "mine.yaml"
    target.write_text(OLD)
    fill_the_disk(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        save_scenario(scenario, target, outputs=OutputPermissions(overwrite=True))
    assert target.read_text() == OLD
    assert _files(tmp_path) == ["mine.yaml"]


def test_a_full_disk_keeps_an_old_transcript_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from airline_agent.output_files import OutputPermissions

    (tmp_path / "chat.jsonl").write_text(OLD)
    fill_the_disk(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        write_transcript([], tmp_path, "chat", outputs=OutputPermissions(overwrite=True))
    assert (tmp_path / "chat.jsonl").read_text() == OLD
    assert _files(tmp_path) == ["chat.jsonl"]


@pytest.fixture
def small_disk(tmp_path: Path):
    """A real 64 KiB file system (tmpfs), where mounting one is allowed (root here)."""
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {made.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_really_full_disk_keeps_the_old_file_whole(small_disk: Path) -> None:
    from airline_agent.output_files import OutputPermissions

    target = small_disk / "mine.yaml"
    target.write_text(OLD)
    filler = small_disk / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # take all the space left
        while True:
            os.write(descriptor, b"x" * 4096)
    except OSError:
        pass
    finally:
        os.close(descriptor)
    with pytest.raises(OSError) as raised:
        OutputPermissions(overwrite=True).write_text(target, "y" * 200_000)
    assert raised.value.errno == 28  # ENOSPC, from the real file system
    assert target.read_text() == OLD
    assert _files(small_disk) == ["filler", "mine.yaml"]


def test_no_sqlite_database_or_companion_is_written_even_unasked_for(tmp_path: Path) -> None:
    """Where the run does not know the database (the TUI saves where the user types), any
    SQLite file, and any name of a companion of one, is refused all the same."""
    import sqlite3

    from airline_agent.output_files import OutputPermissions

    database = tmp_path / "someone.db"
    sqlite3.connect(database).execute("CREATE TABLE t (x)").connection.close()
    before = database.read_bytes()
    permissions = OutputPermissions(overwrite=True)
    refused = {
        database: "holds an SQLite database",
        tmp_path / "someone.db-wal": "is the write-ahead log of the SQLite database someone.db",
        tmp_path / "someone.db-journal": "is the rollback journal of the SQLite database",
        tmp_path / ".someone.db.checked": "is the record of the last check of the database",
        tmp_path / ".someone.db.building-77": "is a build of the database someone.db",
    }
    for target, why in refused.items():
        with pytest.raises(OSError, match=why):
            permissions.write_text(target, "name: not-a-database\n")
    assert database.read_bytes() == before
    assert _files(tmp_path) == ["someone.db"]
