#!/usr/bin/env python
"""The modules one tool call crosses, from the model's reply to the trace (issue 21).

A scripted `cancel_reservation` (an allowed one: Harper Smith's business reservation
GWL0HE, on the default sample, guard on, approval auto) is run through the real loop and
tools, and its events are fed to the TUI's `TraceBuilder`. A profiler notes every module
of the package whose code runs from the moment the model's reply leaves the backend until
the trace has the call's result; it prints them by layer, with how many functions of each
ran. Modules that only forward show up as one or two functions of one line each.

    .venv/bin/python scripts/module_walk.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "airline_agent"
sys.path.insert(0, str(ROOT))


class Walk:
    """The package's functions called while `active`, by module."""

    def __init__(self) -> None:
        self.active = False
        self.calls: dict[str, Counter[str]] = {}

    def profile(self, frame: FrameType, event: str, _arg: Any) -> None:
        if not self.active or event != "call":
            return
        path = Path(frame.f_code.co_filename)
        if PACKAGE not in path.parents:
            return
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        self.calls.setdefault(module, Counter())[frame.f_code.co_qualname] += 1


async def main() -> int:
    from airline_agent.agent.backends import ScriptedBackend, ScriptedResponse, ScriptedToolCall
    from airline_agent.agent.events import ToolFinished
    from airline_agent.agent.loop import LoopOptions
    from airline_agent.stack import build_database, scripted_stack
    from airline_agent.tui.trace import TraceBuilder

    walk = Walk()
    script = [
        ScriptedResponse(
            tool_calls=(
                ScriptedToolCall(
                    "cancel_reservation", {"reservation_id": "GWL0HE", "reason": "change_of_plan"}
                ),
            )
        ),
        ScriptedResponse("Reservation GWL0HE is cancelled."),
    ]
    original_reply = ScriptedBackend.reply

    async def reply(self: ScriptedBackend, body: dict[str, Any], wire: bytes | None = None):
        async for piece in original_reply(self, body, wire):
            walk.active = len(self.requests) == 1  # from the tool-calling reply on
            yield piece

    ScriptedBackend.reply = reply  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as scratch:
        database = build_database(Path(scratch) / "walk.db")
        stack = scripted_stack(
            database,
            LoopOptions(approval="auto"),
            customer="harper_smith_5967",
            responses=script,
        )
        trace = TraceBuilder()
        sys.setprofile(walk.profile)
        threading.setprofile(walk.profile)
        finished: ToolFinished | None = None
        try:
            turn = stack.session.run_turn("Please cancel GWL0HE, my plans changed. Yes, go ahead.")
            async for event in turn:
                trace.feed(event)
                if isinstance(event, ToolFinished):
                    finished = event
                    walk.active = False
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
            stack.close()
    if finished is None or finished.error is not None:
        print(f"the call did not run: {finished}", file=sys.stderr)
        return 1
    print(f"{len(walk.calls)} modules from the model's reply to the trace entry of its result:")
    for module, functions in sorted(walk.calls.items()):
        names = ", ".join(sorted(functions)[:6]) + (" …" if len(functions) > 6 else "")
        print(f"  {module:48} {len(functions):3} functions  {names}")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
