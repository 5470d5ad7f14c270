"""Output paths of a command, checked before the work starts.

`chat --record/--transcript` and `replay --transcript` write at the end; a path that
cannot be written must fail up front with one line, not as a traceback after the whole
conversation (which would then be lost).
"""

from __future__ import annotations

import os
from pathlib import Path

import typer


def folder_or_exit(folder: Path, flag: str, shown: Path | None = None) -> None:
    """Create `folder` (and its parents) now, or exit 2 naming the flag and the path
    given (`shown`, when the folder is that of a file)."""
    shown = shown or folder
    if folder.exists() and not folder.is_dir():
        _exit(flag, shown, "Not a directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _exit(flag, shown, exc.strerror or str(exc))
    if not os.access(folder, os.W_OK | os.X_OK):
        _exit(flag, shown, "not writable")


def file_or_exit(file: Path, flag: str) -> None:
    """`file` can be written later: its folder exists (created now) and it is no folder."""
    if file.is_dir():
        _exit(flag, file, "is a directory")
    folder_or_exit(file.parent, flag, shown=file)
    existed = file.exists()
    try:
        with file.open("a", encoding="utf-8"):
            pass  # a real open: permissions alone do not tell (read-only mounts, /proc)
    except OSError as exc:
        _exit(flag, file, exc.strerror or str(exc))
    if not existed:
        file.unlink(missing_ok=True)


def _exit(flag: str, path: Path, why: str) -> None:
    typer.echo(f"error: {flag} {path}: cannot be written ({why})", err=True)
    raise typer.Exit(2)
