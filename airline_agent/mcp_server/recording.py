"""`--record FILE`: what an MCP client did, as a scenario that `airline-agent replay` runs.

A session is recorded as one turn of a conversation: each tool call the client made is
one scripted model response holding that call (its arguments as sent), in order, with
its result as recorded; the answers to approval questions call by call (the recorder's
`approve`); the final database as the changes the session made (its database at the end
against a copy taken when the session began). Replayed, the same calls go through the
real loop, tools and guard on a fresh copy of the dataset, and must give the same results.

The turn's customer line says what the recording is and, when the session bound a
customer by looking one up, names that user id: the replayed conversation then binds at
the same call, as the MCP session did (the loop binds a lookup of an id the customer
gave; `session` explains the MCP rule). A session bound from the start (`--as`) is
recorded with that customer.

Files are written as every output of the project is (`output_files.OutputPermissions`):
whole or not at all, an existing file replaced only with `--force`, never through a
symbolic link, never onto the database or any SQLite file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from airline_agent.agent.events import (
    AgentEvent,
    AssistantMessage,
    CustomerBound,
    TurnFinished,
    TurnStarted,
    Usage,
)
from airline_agent.mcp_server.session import McpSession
from airline_agent.output_files import OutputPermissions
from airline_agent.redaction import Redactor
from airline_agent.scenarios.dbdiff import diff_databases
from airline_agent.scenarios.model import ScenarioSettings
from airline_agent.scenarios.provenance import match_dataset
from airline_agent.scenarios.recorder import record_scenario, scenario_to_yaml


@dataclass(frozen=True)
class RecordTarget:
    """Where a server's sessions are recorded: the first at `path`, the n-th (n ≥ 2) of an
    HTTP server beside it as `STEM-n.SUFFIX`; what may be written is `outputs`'s."""

    path: Path
    outputs: OutputPermissions

    def for_session(self, number: int) -> Path:
        if number == 1:
            return self.path
        return self.path.with_name(f"{self.path.stem}-{number}{self.path.suffix or '.yaml'}")


def customer_line(bound: str | None, preset: str | None) -> str:
    line = "(An MCP client's tool calls, recorded with `airline-agent mcp --record`."
    if bound is not None and preset is None:
        return f"{line} The client acted for the customer it looked up: {bound}.)"
    return line + ")"


def session_turn_events(
    events: list[AgentEvent], *, bound: str | None, preset: str | None
) -> list[AgentEvent]:
    """The session's events framed as one answered turn of a conversation."""
    last = max((e.request for e in events if isinstance(e, AssistantMessage)), default=0)
    closing = AssistantMessage(
        request=last + 1,
        content="",
        tool_calls=(),
        reasoning=None,
        finish_reason="stop",
        latency_ms=0.0,
    )
    return [
        TurnStarted(1, customer_line(bound, preset)),
        *events,
        closing,
        TurnFinished(1, "answered", Usage(), None),
    ]


def first_binding(events: list[AgentEvent]) -> str | None:
    return next((e.customer for e in events if isinstance(e, CustomerBound)), None)


def save_session(
    session: McpSession,
    path: Path,
    *,
    start: Path | None,
    others_wrote: bool,
    redactor: Redactor,
    outputs: OutputPermissions,
) -> list[str]:
    """Write the session's scenario to `path`; returns warnings for the user (a start
    that was no pristine dataset, a final database that cannot be checked)."""
    warnings: list[str] = []
    current = session.database.path
    changes = None
    if others_wrote:
        warnings.append(
            "other sessions wrote to the shared database meanwhile: the recording does not "
            "check the final database"
        )
    elif start is not None and current is not None:
        changes = diff_databases(start, current)
    origin = session.origin.result() if session.origin is not None else match_dataset(start)
    if origin.warning:
        warnings.append(origin.warning)
    rules = session.rules
    preset = rules.customer
    settings = ScenarioSettings(
        guard=rules.settings.guard,
        approval=rules.fallback,
        max_tool_calls=max(8, session.calls),
        now=rules.settings.now,
    )
    events = session_turn_events(session.events, bound=first_binding(session.events), preset=preset)
    name = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-") or "mcp-session"
    scenario = record_scenario(
        events,
        name=name,
        description=origin.describe(
            f"Recorded with `airline-agent mcp --record`: MCP session {session.number}, "
            f"{session.calls} tool call(s)."
        ),
        dataset=origin.dataset,
        customer=preset,
        settings=settings,
        changes=changes,
    )
    outputs.write_text(path, scenario_to_yaml(scenario, redactor))
    return warnings
