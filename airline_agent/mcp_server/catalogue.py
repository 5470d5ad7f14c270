"""What the server offers: the 14 tools with their MCP annotations, the policy as a
resource, the system prompt as a prompt.

The tools' names, descriptions and input schemas are the registry's, as the loop sends
them (`Toolbox.schemas`); their annotations are what each tool declares (`@tool(mcp=...)`,
tools/airline.py): read-only exactly when it does not write, and a read changes
nothing, so it is idempotent too. They are hints for a client (which calls to confirm,
which to retry), never a check: the guard and the approvals are the checks.
"""

from __future__ import annotations

from mcp_types import Tool as McpTool
from mcp_types import ToolAnnotations

from airline_agent.tools.registry import REGISTRY
from airline_agent.tools.toolbox import Toolbox


def mcp_tools(toolbox: Toolbox) -> list[McpTool]:
    """The tools as `tools/list` gives them: the registry's schemas, annotated."""
    tools = []
    for schema in toolbox.schemas():
        function = schema["function"]
        spec = REGISTRY[function["name"]]
        hints = spec.mcp
        tools.append(
            McpTool(
                name=spec.name,
                title=hints.title,
                description=function["description"],
                input_schema=function["parameters"],
                annotations=ToolAnnotations(
                    title=hints.title,
                    read_only_hint=not spec.write,
                    destructive_hint=hints.destructive if spec.write else None,
                    idempotent_hint=hints.idempotent or not spec.write,
                    open_world_hint=False,  # the airline's own database, nothing beyond it
                ),
            )
        )
    return tools
