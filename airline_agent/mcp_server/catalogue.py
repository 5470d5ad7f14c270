"""What the server offers: the 14 tools with their MCP annotations, the policy as a
resource, the system prompt as a prompt.

The tools' names, descriptions and input schemas are the registry's, as the loop sends
them (`Toolbox.schemas`); only the annotations are added here, from what each tool does
to the database. They are hints for a client (which calls to confirm, which to retry),
never a check: the guard and the approvals are the checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp_types import Tool as McpTool

    from airline_agent.tools.toolbox import Toolbox


@dataclass(frozen=True)
class Effect:
    """What calling a tool does to the airline's data, as MCP's annotations say it."""

    title: str
    read_only: bool
    # A write that takes away or replaces what was there (a reservation's status, its
    # flights or passengers, a balance spent), as against one that only adds.
    destructive: bool = False
    # The same call again, with the same arguments, changes nothing more.
    idempotent: bool = False


# Reads change nothing, so they are idempotent too. `transfer_to_human_agents` changes
# nothing in the database either (it ends the agent's part of a conversation).
EFFECTS: dict[str, Effect] = {
    "get_user_details": Effect("Get a customer's profile", read_only=True, idempotent=True),
    "get_reservation_details": Effect("Get a reservation", read_only=True, idempotent=True),
    "list_all_airports": Effect("List the airports", read_only=True, idempotent=True),
    "search_direct_flight": Effect("Search direct flights", read_only=True, idempotent=True),
    "search_onestop_flight": Effect("Search one-stop flights", read_only=True, idempotent=True),
    "get_flight_status": Effect("Get a flight's status", read_only=True, idempotent=True),
    "calculate": Effect("Calculate", read_only=True, idempotent=True),
    "transfer_to_human_agents": Effect(
        "Transfer to a human agent", read_only=True, idempotent=True
    ),
    # Books again on every call, and spends the payment methods' balances.
    "book_reservation": Effect("Book a reservation", read_only=False, destructive=True),
    # A cancelled reservation stays cancelled: a second call is refused, refunds nothing.
    "cancel_reservation": Effect(
        "Cancel a reservation", read_only=False, destructive=True, idempotent=True
    ),
    # Replaces the flights; the same flights again differ in nothing, cost nothing.
    "update_reservation_flights": Effect(
        "Change a reservation's flights or cabin",
        read_only=False,
        destructive=True,
        idempotent=True,
    ),
    # Sets the total (M5: only ever more); the same total again adds and charges nothing.
    "update_reservation_baggages": Effect(
        "Set a reservation's checked bags", read_only=False, destructive=True, idempotent=True
    ),
    # Overwrites the passengers' details with the ones given.
    "update_reservation_passengers": Effect(
        "Change a reservation's passengers", read_only=False, destructive=True, idempotent=True
    ),
    # Adds a certificate to the profile, another one on every call.
    "send_certificate": Effect("Send a travel certificate", read_only=False),
}


def mcp_tools(toolbox: Toolbox) -> list[McpTool]:
    """The tools as `tools/list` gives them: the registry's schemas, annotated."""
    from mcp_types import Tool as McpTool
    from mcp_types import ToolAnnotations

    tools = []
    for schema in toolbox.schemas():
        function: dict[str, Any] = schema["function"]
        effect = EFFECTS[function["name"]]
        tools.append(
            McpTool(
                name=function["name"],
                title=effect.title,
                description=function["description"],
                input_schema=function["parameters"],
                annotations=ToolAnnotations(
                    title=effect.title,
                    read_only_hint=effect.read_only,
                    destructive_hint=None if effect.read_only else effect.destructive,
                    idempotent_hint=effect.idempotent,
                    open_world_hint=False,  # the airline's own database, nothing beyond it
                ),
            )
        )
    return tools
