"""Toasts that fit their own text: what failed and where, in words that wrap at spaces.

A toast is at most half the screen wide: at 80 columns, 37 characters a line. Textual
wraps its text at spaces but folds a longer word ("cancel-ehglp3.jso" / "nl"), and an
OSError's text ends with the whole path in quotes. So where a toast names a file it
saved or could not save, the path is shortened to its last parts, and an error is said as
its reason ("read-only file system"), not its repr. (A path the user must type again, in
a command a toast proposes, stays whole.)
"""

from __future__ import annotations

from pathlib import Path, PurePath

TOAST_LINE = 36  # characters a toast's line holds on an 80-column terminal, less one


def short_path(path: str | PurePath, limit: int = TOAST_LINE) -> str:
    """The path as written if it fits, else its last parts after '…/' (the file's name
    whole when it fits; a longer name keeps its start and its suffix)."""
    text = str(path)
    if len(text) <= limit:
        return text
    parts = PurePath(text).parts
    for keep in range(len(parts) - 1, 0, -1):
        shortened = "…/" + "/".join(parts[-keep:])
        if len(shortened) <= limit:
            return shortened
    name = PurePath(text).name
    suffix = PurePath(name).suffix
    return name[: max(limit - len(suffix) - 1, 1)] + "…" + suffix


def reason(error: BaseException) -> str:
    """Why it failed, in words: an OSError's reason without its number and path."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror[0].lower() + error.strerror[1:]
    return str(error)


def save_failed(path: Path, error: BaseException) -> str:
    where = getattr(error, "filename", None) or path
    return f"Could not save to {short_path(where)}: {reason(error)}."


def saved(paths: list[Path]) -> str:
    """'Saved recordings/a.yaml', or the folder once and each file's name."""
    if len(paths) == 1:
        return f"Saved {short_path(paths[0])}"
    folders = {path.parent for path in paths}
    names = ", ".join(path.name for path in paths)
    if len(folders) == 1:
        return f"Saved in {short_path(next(iter(folders)))}: {names}"
    return "Saved " + ", ".join(short_path(path) for path in paths)
