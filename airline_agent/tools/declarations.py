"""What a tool declares besides its name, parameters and whether it writes (`@tool` in
registry.py), read by those who act on it: the MCP server's annotations
(mcp_server/catalogue.py) and the claims of a reply its successful call backs (the
grounding check, agent/claims.py). The guard's check is a function of tools/guard.py,
named on the declaration too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# What a reply may say the agent did that a successful call of a tool backs ("I've
# cancelled your reservation": `cancellation`). agent/claims.py finds these in replies,
# beside the claims no tool backs at all.
ClaimedAction = Literal[
    "calculation",
    "booking",
    "cancellation",
    "flight change",
    "cabin change",
    "bag change",
    "passenger change",
    "certificate",
    "transfer",
    "refund",
    "charge",
    "payment",
    "insurance addition",
    "passenger addition",
]


@dataclass(frozen=True, slots=True)
class McpHints:
    """How MCP's tool annotations describe calling the tool, beside its `write` (read-only
    is not writing; a read changes nothing, so it is idempotent too). Hints for a
    client (which calls to confirm, which to retry), never a check: the guard and the
    approvals are the checks."""

    title: str
    # A write that takes away or replaces what was there (a reservation's status, its
    # flights or passengers, a balance spent), as against one that only adds.
    destructive: bool = False
    # The same write again, with the same arguments, changes nothing more.
    idempotent: bool = False
