"""The debugger's two refusals, in a module of their own so that a screen can catch them
without importing the debugger (which brings in the conversation, grounding and the
database's models: seconds before the TUI's first screen)."""

from __future__ import annotations


class ForkFailed(RuntimeError):
    """A fork that cannot be made; says why in one sentence. Nothing was forked."""


class BranchBusy(RuntimeError):
    """A branch switch while a turn runs (cancel it, or let it end, first)."""
