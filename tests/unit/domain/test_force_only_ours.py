"""`seed --force` replaces only a file that is recognisably this project's database (an
SQLite file whose `meta` says it is ours: a complete one, an older schema, a build that
never finished), and only such a file is ever answered with the advice to run it. A text
file, a `/etc/passwd` look-alike, an empty or truncated file, another program's SQLite
database, a FIFO, a device or a link: the message says what it is, advises nothing that
would replace it, and `--force` refuses it, leaving it exactly as it was."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from airline_agent.cli import app
from airline_agent.domain.db import Database
from airline_agent.domain.errors import DatabaseUnavailable
from airline_agent.domain.provisioning import build_database

runner = CliRunner()
PASSWD = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"


def _text(path: Path) -> None:
    path.write_text("my notes, not a database\n")


def _passwd(path: Path) -> None:
    path.write_text(PASSWD)


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _truncated(path: Path) -> None:
    """The first 60 bytes of a real SQLite file (the header cut short)."""
    other = path.with_name("whole.sqlite")
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    path.write_bytes(other.read_bytes()[:60])
    other.unlink()


def _foreign_sqlite(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    connection.execute("INSERT INTO contacts VALUES ('Ada', '555-0100')")
    connection.commit()
    connection.close()


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _device(path: Path) -> None:
    """A character device like /dev/null (needs root: skipped otherwise)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")


NOT_OURS: dict[str, Callable[[Path], None]] = {
    "text": _text,
    "passwd": _passwd,
    "empty": _empty,
    "truncated": _truncated,
    "foreign-sqlite": _foreign_sqlite,
    "fifo": _fifo,
    "device": _device,
}


def _fingerprint(path: Path) -> tuple[int, bytes | None]:
    found = path.lstat()
    content = path.read_bytes() if stat.S_ISREG(found.st_mode) else None
    return stat.S_IFMT(found.st_mode), content


@pytest.mark.parametrize("kind", NOT_OURS)
def test_opening_what_is_not_ours_never_advises_force(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "notes.txt"
    NOT_OURS[kind](path)
    before = _fingerprint(path)
    with pytest.raises(DatabaseUnavailable) as refused:
        Database.open(path)
    message = str(refused.value)
    assert "--force" not in message, message
    assert "no such database" not in message, message  # it is there: say what it is
    assert str(path) in message and "\n" not in message
    assert _fingerprint(path) == before  # opened to look, never written


@pytest.mark.parametrize("kind", NOT_OURS)
def test_force_refuses_what_is_not_ours(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "notes.txt"
    NOT_OURS[kind](path)
    before = _fingerprint(path)
    result = runner.invoke(app, ["seed", "--db", str(path), "--force"])
    assert result.exit_code == 1, result.output
    [line] = result.output.strip().splitlines()
    assert "replaces only an airline-agent database" in line, line
    assert _fingerprint(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_force_refuses_a_link_even_to_our_database(tmp_path: Path) -> None:
    ours = tmp_path / "airline.db"
    build_database(ours, scale=1).close()
    link = tmp_path / "link.db"
    link.symlink_to(ours)
    result = runner.invoke(app, ["seed", "--db", str(link), "--force"])
    assert result.exit_code == 1
    assert "is a symbolic link" in result.output
    assert link.is_symlink()


def test_force_rebuilds_a_build_that_never_finished(tmp_path: Path) -> None:
    path = tmp_path / "half.db"
    Database.create(path).close()  # ours, incomplete
    with pytest.raises(DatabaseUnavailable, match=r"seed --db .* --force"):
        Database.open(path)
    result = runner.invoke(app, ["seed", "--db", str(path), "--force"])
    assert result.exit_code == 0, result.output
    Database.open(path).close()


def test_force_rebuilds_our_database_of_another_schema(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    build_database(path).close()
    connection = sqlite3.connect(path)
    connection.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    connection.commit()
    connection.close()
    with pytest.raises(DatabaseUnavailable, match=r"seed --db .* --force"):
        Database.open(path)
    assert runner.invoke(app, ["seed", "--db", str(path), "--force"]).exit_code == 0
    Database.open(path).close()
