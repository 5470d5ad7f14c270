"""A disk that fills up half-way through a write: every file opened for writing (through
`open`/`Path.open`/`Path.write_text` or `os.fdopen`) writes the first half of what it is
given, then fails with ENOSPC, as `write(2)` does on a full file system."""

from __future__ import annotations

import errno
import io
import os
from typing import Any

import pytest


class HalfWritten:
    """A file whose every write stops half-way with ENOSPC."""

    def __init__(self, file: Any) -> None:
        self._file = file

    def write(self, data: Any) -> int:
        self._file.write(data[: len(data) // 2])
        self._file.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)

    def __enter__(self) -> HalfWritten:
        return self

    def __exit__(self, *_: object) -> None:
        self._file.close()


def _writing(mode: str) -> bool:
    return any(flag in mode for flag in "wax+")


def fill_the_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    real_open, real_fdopen = io.open, os.fdopen

    def full_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        opened = real_open(file, mode, *args, **kwargs)
        return HalfWritten(opened) if _writing(mode) else opened

    def full_fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        opened = real_fdopen(fd, mode, *args, **kwargs)
        return HalfWritten(opened) if _writing(mode) else opened

    monkeypatch.setattr(io, "open", full_open)
    monkeypatch.setattr(os, "fdopen", full_fdopen)
