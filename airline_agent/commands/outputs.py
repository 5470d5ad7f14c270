"""Output paths of a command, checked before the work starts.

`chat --record/--transcript`, `replay --transcript` and `export -o` write at the end; a
path that cannot or must not be written fails up front with one line (exit 2), not as a
traceback after the whole conversation (which would then be lost). What must not be
written is `output_files.OutputPermissions`'s: an existing file is replaced only with
`--force`, or after a "yes" when the command runs in a terminal.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from airline_agent.output_files import OutputPermissions, OutputRefused, create_beside


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


def file_or_exit(file: Path, flag: str, outputs: OutputPermissions) -> OutputPermissions:
    """`file` can be written later: its folder exists (created now) and takes a new
    file, and `outputs` lets it be written. Returns the permissions, approving `file` when the
    user said yes to replacing it."""
    if file.is_dir() and not file.is_symlink():
        _exit(flag, file, "is a directory")
    folder_or_exit(file.parent, flag, shown=file)
    try:  # a real file: permissions alone do not tell (read-only mounts, /proc)
        temporary, descriptor = create_beside(file)
    except OSError as exc:
        _exit(flag, file, exc.strerror or str(exc))
    os.close(descriptor)
    temporary.unlink(missing_ok=True)
    return allowed_or_exit(file, flag, outputs)


def allowed_or_exit(file: Path, flag: str, outputs: OutputPermissions) -> OutputPermissions:
    """`outputs`, when it lets `file` be written; approving `file` when it exists and the
    user says yes in a terminal; else exit 2 with one line."""
    try:
        outputs.check(file)
    except OutputRefused as refused:
        if not refused.exists:
            _refuse(flag, refused)
        if not sys.stdin.isatty() or not _replace_confirmed(file):
            _refuse(flag, refused, hint="--force replaces it")
        return outputs.approving(file)
    return outputs


def _replace_confirmed(file: Path) -> bool:
    try:
        return typer.confirm(f"{file} already exists. Replace it?", default=False, err=True)
    except (typer.Abort, EOFError):
        return False


def _refuse(flag: str, refused: OutputRefused, hint: str | None = None) -> None:
    more = f" ({hint})" if hint else ""
    typer.echo(f"error: {flag} {refused}{more}", err=True)
    raise typer.Exit(2)


def _exit(flag: str, path: Path, why: str) -> None:
    typer.echo(f"error: {flag} {path}: cannot be written ({why})", err=True)
    raise typer.Exit(2)
