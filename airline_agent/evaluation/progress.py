"""The run's progress line: done/total, passed so far, errors, tokens, cost, ETA."""

from __future__ import annotations

from airline_agent.evaluation.runner import RunState


def progress_line(state: RunState, elapsed_s: float) -> str:
    ran = state.done - state.resumed  # trials this invocation finished: they set the pace
    left = state.total - state.done
    if ran and left:
        eta_s = elapsed_s / ran * left
        eta = f"ETA {int(eta_s // 60)}:{int(eta_s % 60):02d}"
    else:
        eta = "ETA –" if left else "done"
    cost = "cost unknown" if state.cost is None else f"${state.cost:.4f}"
    width = len(str(state.total))
    bar_width = 20
    filled = round(bar_width * state.done / state.total) if state.total else bar_width
    parts = [
        f"[{'#' * filled}{'.' * (bar_width - filled)}] {state.done:>{width}}/{state.total}",
        f"{state.passed} passed",
    ]
    if state.infra_errors:
        parts.append(f"{state.infra_errors} infra errors")
    if state.customer_errors:
        parts.append(f"{state.customer_errors} customer errors")
    parts += [f"{state.tokens:,} tokens", cost, eta]
    if state.running:
        parts.append(f"{state.running} running")
    return "eval " + " · ".join(parts)
