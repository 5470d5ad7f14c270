"""SQLite database files: which file a location names, its companions, and how this
process can open it.

A database in WAL mode has two companions, `NAME-wal` and `NAME-shm`, which SQLite
creates beside it even to read. So the folder matters as much as the file:

- file and folder writable (or the companions exist and are writable): read-write;
- the file cannot be written, or the folder cannot but the companions exist:
  read-only (`mode=ro`), which still sees what a write-ahead log holds;
- neither file nor folder writable and no companions: `immutable=1`, which reads the
  file alone (safe: with no -wal there is nothing else to see).

A non-empty -wal without its -shm in a read-only folder cannot be read safely (the log
holds committed changes that `immutable` would skip): that is refused.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

Access = Literal["read-write", "read-only", "immutable"]


def companions(path: Path) -> tuple[Path, Path, Path]:
    """The write-ahead log, its shared-memory index and a rollback journal."""
    return Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")


def check_record(path: Path) -> Path:
    """Where the last good check of the database at `path` is remembered (integrity.py)."""
    return path.with_name(f".{path.name}.checked")


def build_path(path: Path, pid: int) -> Path:
    """Where process `pid` builds the database that will be renamed to `path`."""
    return path.with_name(f".{path.name}.building-{pid}")


def is_build_of(candidate: Path, path: Path) -> bool:
    """`candidate` is a build of `path` in progress, or one of its companions."""
    return candidate.parent == path.parent and candidate.name.startswith(f".{path.name}.building-")


def database_files(location: str | Path) -> list[tuple[Path, str]]:
    """Every file SQLite and this project keep for the database at `location` (a path or
    a URL; none for a database that is no SQLite file), each with what it is."""
    path = sqlite_path(location)
    if path is None:
        return []
    wal, shm, journal = companions(path)
    return [
        (path, f"the database {path}"),
        (wal, f"the write-ahead log of the database {path}"),
        (shm, f"the shared-memory index of the database {path}"),
        (journal, f"the rollback journal of the database {path}"),
        (check_record(path), f"the record of the last check of the database {path}"),
    ]


def remove_database_files(path: Path) -> None:
    """The database file and SQLite's companions (a stale -wal must not outlive its db)."""
    for file in (path, *companions(path)):
        file.unlink(missing_ok=True)


def sqlite_file(url: URL) -> Path | None:
    """The file behind a database's SQLAlchemy URL, if it is a SQLite file."""
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def copy_sqlite(source: Path, target: Path) -> None:
    """A whole copy of a SQLite database, WAL included, taken while it may be open
    (SQLite's backup API). The source is named by its `file:` URI, so a folder holding `#`
    or `?` (a "C#" project) is the folder, not the start of a query: the copy was empty."""
    origin = sqlite3.connect(source.absolute().as_uri() + "?mode=ro", uri=True)
    copy = sqlite3.connect(target)
    try:
        origin.backup(copy)
    finally:
        copy.close()
        origin.close()


def sqlite_path(location: str | Path) -> Path | None:
    """The file a location names when it is a plain SQLite file (a path, or a
    `sqlite:///` URL without options); None for anything else."""
    text = str(location)
    if "://" not in text:
        return Path(text).expanduser()
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        return None
    if url.get_backend_name() != "sqlite" or url.query:
        return None
    if url.database in (None, "", ":memory:") or url.database.startswith("file:"):
        return None
    return Path(url.database).expanduser()


SQLITE_HEADER = b"SQLite format 3\x00"  # the first bytes of every SQLite database file


def not_a_database_file(path: Path) -> str | None:
    """Why the file at `path` (which exists) cannot be an SQLite database, said from its
    type and first bytes alone, or None when it may be one. Nothing is written, and
    nothing that is not a regular file is opened (a FIFO would block the reader)."""
    found = path.stat()
    if not stat.S_ISREG(found.st_mode):
        return f"is {file_kind(found.st_mode)}, not a database file"
    if found.st_size == 0:
        return "is empty (0 bytes), not a database"
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None  # unreadable: SQLite's own error says why
    try:
        start = os.read(descriptor, len(SQLITE_HEADER))
    finally:
        os.close(descriptor)
    if start != SQLITE_HEADER:
        return "is not an SQLite database file (it does not begin as one)"
    if found.st_size < 512:
        return f"is cut short ({found.st_size} bytes): not a whole SQLite database"
    return None


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    )
    return next((what for test, what in kinds if test(mode)), "not a regular file")


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


@dataclass(frozen=True)
class SqliteFile:
    """One SQLite database file and the access this process has to it."""

    path: Path
    access: Access

    @classmethod
    def of(cls, path: Path) -> SqliteFile:
        """Decide the access from what the file system allows (see the module docstring).
        Raises OSError (with a sentence) for a log that cannot be read safely."""
        wal, shm, _ = companions(path)
        folder = path.parent if str(path.parent) else Path(".")
        folder_writable = _writable(folder)
        companions_writable = all(p.exists() and _writable(p) for p in (wal, shm))
        if _writable(path) and (folder_writable or companions_writable):
            return cls(path, "read-write")
        if folder_writable or (wal.exists() and shm.exists()):
            return cls(path, "read-only")
        if wal.exists() and wal.stat().st_size > 0:
            raise OSError(
                f"its folder is read-only and it has an unfinished write-ahead log ({wal.name}) "
                "without its index; open it once where its folder can be written"
            )
        return cls(path, "immutable")

    @property
    def read_only(self) -> bool:
        return self.access != "read-write"

    def uri(self) -> str:
        address = f"file:{urllib.parse.quote(str(self.path.absolute()))}"
        return {
            "read-write": address,
            "read-only": f"{address}?mode=ro",
            "immutable": f"{address}?immutable=1",
        }[self.access]

    def connect(self) -> sqlite3.Connection:
        """A new driver connection with this access (usable from any thread): the engine's
        connections to a file that is opened read-only."""
        return sqlite3.connect(self.uri(), uri=True, check_same_thread=False)
