"""Files the project writes — recordings, transcripts, exports — never lost, never the
wrong one.

Every such file is written to a temporary file beside its target and renamed into place
(`os.replace`), so a crash or a full disk leaves the old file whole and no partial one
(the temporary file is removed). Before anything is written the target is checked
(`OutputPermissions.check`), and refused, whatever was asked:

- the run's database and its files (its -wal, -shm and -journal, the `.NAME.checked`
  record of its last check, a build of it in progress) and every input of the run,
  compared after resolving links, and by inode (a hard link);
- any SQLite database, and any file named as one's companion, even of a database the run
  did not open (the TUI saves where the user types);
- a symbolic link (writing through it would change a file elsewhere; replacing it would
  lose the link), and anything that is not a regular file (a folder, a FIFO, a device).

An existing regular file is replaced only when the permissions allow it: `--force` on the
commands, a "yes" at the prompt in a terminal. Without that, even a file that appears
while the run goes on is kept (the rename into place refuses to replace it). An output
that is itself a database (`replay --stop-at N --db OUT`: `databases_replaceable`) may
replace another SQLite database the same way, when it is none of the protected ones
and no -wal, -shm or -journal beside it says it may be open (a stale log beside the new
file would be read into it).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from airline_agent.domain.sqlite_files import (
    SQLITE_HEADER,
    database_files,
    file_kind,
    is_build_of,
)


class OutputRefused(OSError):
    """A target this run will not write; `strerror` says why, `filename` which path."""

    def __init__(self, path: Path, why: str, *, exists: bool = False) -> None:
        super().__init__(errno.EEXIST if exists else errno.EPERM, why, str(path))
        self.exists = exists  # refused only because it exists: `--force` would replace it

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


@dataclass(frozen=True)
class OutputPermissions:
    """What a run may write: never a protected file (`protected`: resolved path → what it
    is, e.g. "the database data/airline.db"; `databases`: the resolved databases among
    them, whose builds are protected too); an existing file only when `overwrite`, or
    when it is one of the files the user said yes to (`approved`, resolved)."""

    overwrite: bool = False
    protected: dict[Path, str] = field(default_factory=dict)
    databases: tuple[Path, ...] = ()
    approved: frozenset[Path] = frozenset()
    databases_replaceable: bool = False  # the output is a database (see the docstring)

    @classmethod
    def for_run(
        cls,
        *,
        database: str | Path | None = None,
        inputs: Iterable[Path] = (),
        overwrite: bool = False,
    ) -> OutputPermissions:
        """The permissions of a run on `database` (a path or URL; None: none) reading `inputs`."""
        protected = {_resolved(Path(path)): f"an input of this run ({path})" for path in inputs}
        files = database_files(database) if database is not None else []
        protected |= {_resolved(path): what for path, what in files}
        databases = tuple(_resolved(path) for path, _ in files[:1])
        return cls(overwrite=overwrite, protected=protected, databases=databases)

    def approving(self, path: Path) -> OutputPermissions:
        """The same permissions, with `path` (an existing file) allowed to be replaced."""
        return replace(self, approved=self.approved | {_resolved(path)})

    def may_replace(self, path: Path) -> bool:
        return self.overwrite or _resolved(path) in self.approved

    # ------------------------------------------------------------------ checking

    def check(self, path: Path) -> None:
        """Raise OutputRefused when `path` must not be written (see the module docstring)."""
        try:
            found = path.lstat()
        except FileNotFoundError:
            found = None
        except OSError as exc:
            raise OutputRefused(path, f"cannot be checked ({exc.strerror or exc})") from None
        resolved = _resolved(path)
        what = self.protected.get(resolved) or self._protected_build(resolved)
        if what is None and found is not None and stat.S_ISREG(found.st_mode):
            what = self._same_file(found)
        what = what or _sqlite_companion(path)
        if what is not None:
            raise OutputRefused(path, f"is {what}; nothing is written over it")
        if found is None:
            return
        if stat.S_ISLNK(found.st_mode):
            raise OutputRefused(
                path, f"is a symbolic link (to {os.readlink(path)}); give the file itself"
            )
        if not stat.S_ISREG(found.st_mode):
            raise OutputRefused(path, f"is {file_kind(found.st_mode)}, not a regular file")
        if _holds_sqlite(path):
            if not self.databases_replaceable:
                raise OutputRefused(path, "holds an SQLite database; nothing is written over it")
            in_use = [p.name for p in _companions(path) if p.exists()]
            if in_use:
                raise OutputRefused(
                    path, f"is a database that may be open ({', '.join(in_use)} beside it)"
                )
        if not self.may_replace(path):
            raise OutputRefused(path, "already exists", exists=True)

    def _protected_build(self, resolved: Path) -> str | None:
        """A build of the run's database in progress (`.NAME.building-PID`, companions)."""
        database = next((db for db in self.databases if is_build_of(resolved, db)), None)
        return None if database is None else f"a build of the database {database}"

    def _same_file(self, found: os.stat_result) -> str | None:
        """A protected file reached under another name (a hard link)."""
        for path, what in self.protected.items():
            try:
                other = path.stat()
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (found.st_dev, found.st_ino):
                return what
        return None

    # ------------------------------------------------------------------ writing

    def write_text(self, path: Path, text: str) -> Path:
        """Write `text` (UTF-8) to `path` as the permissions allow; returns `path`."""
        return self.write_texts([(path, text)])[0]

    def write_texts(self, files: Sequence[tuple[Path, str]]) -> list[Path]:
        """Write several files; every target is checked before the first is written."""
        for path, _ in files:
            self.check(path)
        for path, text in files:
            self._write(path, text.encode("utf-8"))
        return [path for path, _ in files]

    def write_bytes(self, path: Path, data: bytes) -> Path:
        """Write `data` to `path` as the permissions allow; returns `path`."""
        self.check(path)
        self._write(path, data)
        return path

    def _write(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        replacing = self.may_replace(path) and path.exists()
        temporary, descriptor = create_beside(path)
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            if replacing:
                os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))
                os.replace(temporary, path)
            else:
                _link_new(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)


def create_beside(path: Path) -> tuple[Path, int]:
    """A new hidden file in `path`'s folder (created here: never a link, never shared)."""
    while True:
        temporary = path.with_name(f".{path.name}.writing-{secrets.token_hex(4)}")
        try:
            return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue


def _link_new(temporary: Path, path: Path) -> None:
    """Put `temporary` in place as `path`, which must not exist: a hard link fails when
    it does (no window between looking and writing); where the file system has no hard
    links, a rename after one more look."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise OutputRefused(path, "already exists", exists=True) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        if os.path.lexists(path):
            raise OutputRefused(path, "already exists", exists=True) from None
        os.replace(temporary, path)


def _companions(path: Path) -> list[Path]:
    return [path.with_name(path.name + suffix) for suffix in _COMPANIONS]


def _resolved(path: Path) -> Path:
    return Path(os.path.realpath(path.expanduser()))


def _holds_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


_COMPANIONS = {
    "-wal": "write-ahead log",
    "-shm": "shared-memory index",
    "-journal": "rollback journal",
}


def _sqlite_companion(path: Path) -> str | None:
    """What `path` is, when its name makes it a companion of an SQLite database beside it
    (`NAME-wal`, `NAME-shm`, `NAME-journal`, `.NAME.checked`, `.NAME.building-…`)."""
    name = path.name
    for suffix, what in _COMPANIONS.items():
        if name.endswith(suffix) and _holds_sqlite(path.with_name(name.removesuffix(suffix))):
            return f"the {what} of the SQLite database {name.removesuffix(suffix)}"
    if name.startswith(".") and name.endswith(".checked"):
        base = name[1:].removesuffix(".checked")
        if _holds_sqlite(path.with_name(base)):
            return f"the record of the last check of the database {base}"
    if name.startswith(".") and ".building-" in name:
        base = name[1:].split(".building-")[0]
        if (path.parent / base).exists():
            return f"a build of the database {base}"
    return None
