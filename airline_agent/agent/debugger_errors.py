"""The debugger's refusals, in a module of their own so that a screen can catch them
without importing what makes them: the debugger (the conversation, grounding and the
database's models: seconds before the TUI's first screen), or the check of an edit
(agent/edits.py, which loads pydantic and the openai package's types when it checks one)."""

from __future__ import annotations

from collections.abc import Sequence


class ForkFailed(RuntimeError):
    """A fork that cannot be made; says why in one sentence. Nothing was forked."""


class BranchBusy(RuntimeError):
    """A branch switch while a turn runs (cancel it, or let it end, first)."""


class EditRefused(ValueError):
    """An edit that cannot go on the wire; `problems` says why, one sentence each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems))
