"""The folder an eval run writes (`--out`), and the one way its files are written.

Every file passes through `RunFolder.write_text` (JSON through `write_json`, which ends
there), and that is where it is redacted (`airline_agent.redaction`: the run's API key and
server passwords, the password of `--db`, credentials by their place): no file of a run
can hold a secret a server echoed, whoever forgot to redact it before.

Every file is written through the project's one way of writing files
(`output_files.OutputPermissions`): a temporary file beside its target, renamed into place, so a
crash, a full disk or Ctrl-C leaves the old file whole or none; never a link, an SQLite
database or an input of the run (the task files). An existing run is never written over
unless asked: `--resume` goes on with it (the finished trials stay), `--force` starts it
again (its trials and scenarios are removed first). A folder that holds files but is not
a run (no `run.json` of ours) is taken for one by neither: its files are the user's, and
nothing is written there. A link, or anything that is not a regular file or folder where a
file of ours goes, is refused; so is a folder that is (or holds) the task data.

Layout: `results.json`, `tau2_results.json`, `summary.md`, `run.json` (what the run was
started with, for --resume), `trials/task-<id>-trial-<n>.json` (each finished trial, its
record and τ² simulation: written as it finishes, read back by --resume) and
`scenarios/task-<id>-trial-<n>.yaml` (the id as `tasks.file_stem` writes it).
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from pathlib import Path
from typing import Any

from airline_agent.output_files import OutputPermissions, OutputRefused
from airline_agent.redaction import Redactor, as_redactor

RUN_FILE = "run.json"
TRIALS = "trials"
SCENARIOS = "scenarios"
OUR_FILES = ("results.json", "tau2_results.json", "summary.md", RUN_FILE)


class RunFolderError(Exception):
    """The run folder cannot be used as asked; one sentence says why and what to do."""


class RunFolder:
    def __init__(
        self, path: Path, inputs: tuple[Path, ...] = (), *, redactor: Redactor | None = None
    ) -> None:
        self.path = path
        # Our own files in our own folder are replaced as the run goes on (--resume).
        files = [
            item for given in inputs for item in (given.glob("*") if given.is_dir() else [given])
        ]
        self._permissions = OutputPermissions.for_run(inputs=files, overwrite=True)
        self._given_redactor = redactor

    @cached_property
    def redactor(self) -> Redactor:
        """The run's redactor; given none, the environment's (a reader never needs one)."""
        return as_redactor(self._given_redactor)

    # -- opening ------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        resume: bool,
        force: bool,
        inputs: tuple[Path, ...] = (),
        redactor: Redactor | None = None,
    ) -> RunFolder:
        """The run folder at `path`, made if absent. Raises RunFolderError."""
        path = Path(path)
        if path.is_symlink():
            raise RunFolderError(f"{path}: is a link; give the folder itself")
        for given in inputs:
            resolved, data = path.resolve(), given.resolve()
            if resolved == data or data.is_relative_to(resolved) or resolved.is_relative_to(data):
                raise RunFolderError(f"{path}: is the task data's folder ({given}); choose another")
        if path.exists() and not path.is_dir():
            raise RunFolderError(f"{path}: exists and is not a folder")
        folder = cls(path, inputs, redactor=redactor)
        if path.is_dir() and not _holds_nothing(path):
            if not (resume or force):
                raise RunFolderError(
                    f"{path}: holds a run already (or other files); --resume goes on with it, "
                    "--force starts it again"
                )
            if not folder.is_run():
                raise RunFolderError(
                    f"{path}: not a run (no {RUN_FILE} of airline-agent eval; its files are "
                    "kept): give an empty or new folder to --out"
                )
            if force and not resume:
                folder._clear()
        for sub in (path, path / TRIALS, path / SCENARIOS):
            try:
                sub.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise RunFolderError(f"{sub}: cannot be made ({exc.strerror or exc})") from None
            if sub.is_symlink() or not sub.is_dir():
                raise RunFolderError(f"{sub}: is not a folder of its own")
        if not os.access(path, os.W_OK | os.X_OK):
            raise RunFolderError(f"{path}: cannot be written")
        return folder

    def is_run(self) -> bool:
        """Whether the folder holds a run of ours: its `run.json`, naming the run."""
        info = self.read_json(RUN_FILE)
        return isinstance(info, dict) and isinstance(info.get("run_id"), str)

    def _clear(self) -> None:
        """--force: the files of the previous run go; anything else stays."""
        for name in OUR_FILES:
            self._remove(self.path / name)
        for sub, suffix in ((TRIALS, ".json"), (SCENARIOS, ".yaml")):
            folder = self.path / sub
            if folder.is_dir() and not folder.is_symlink():
                for item in folder.iterdir():
                    if item.suffix == suffix:
                        self._remove(item)

    def _remove(self, item: Path) -> None:
        if item.is_symlink() or item.is_file():
            item.unlink()

    # -- writing ------------------------------------------------------------------------

    def write_text(self, relative: str, text: str) -> Path:
        """Write `text`, redacted, to `relative` (in the folder): beside it first, then
        renamed. The one way a file of the run is written."""
        try:
            return self._permissions.write_text(self.path / relative, self.redactor.redact(text))
        except OutputRefused as exc:
            raise RunFolderError(f"{exc}; not written") from None

    def write_json(self, relative: str, value: object, *, indent: int | None = 2) -> Path:
        """`value` as JSON: each string redacted (the shape kept), then the text again (a
        credential by its place, `"api_key": "…"`, is seen only in the text). `indent=None`:
        on one line, for a file read back by the run only (a trial's): the C encoder writes
        it, where an indented one is written by the pure-Python one."""
        redacted = self.redactor.redact_json(value)
        return self.write_text(
            relative, json.dumps(redacted, indent=indent, ensure_ascii=False) + "\n"
        )

    # -- reading ------------------------------------------------------------------------

    def read_json(self, relative: str) -> Any | None:
        """A JSON file of the run, or None when absent or unreadable (a torn file)."""
        target = self.path / relative
        if target.is_symlink() or not target.is_file():
            return None
        try:
            return json.loads(target.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):  # a hostile file too
            return None

    def trial_files(self) -> list[str]:
        folder = self.path / TRIALS
        return sorted(f"{TRIALS}/{item.name}" for item in folder.glob("*.json") if item.is_file())


def _holds_nothing(path: Path) -> bool:
    """An empty folder, or one holding only the empty subfolders a run makes first (a run
    that stopped before writing anything): nothing in it to keep."""
    for item in path.iterdir():
        if item.name not in (TRIALS, SCENARIOS) or item.is_symlink() or not item.is_dir():
            return False
        if any(item.iterdir()):
            return False
    return True
