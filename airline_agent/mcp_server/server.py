"""The MCP server: the SDK's `MCPServer` with the airline's tools, policy and prompt.

`tools/list` and `tools/call` are the two methods `MCPServer` lets a subclass answer
itself (`list_tools`, `call_tool`): the tools are not Python functions for the SDK to
wrap and validate, they are the registry's, validated by `Toolbox.call` exactly as the
loop's calls are, so that an unknown tool, a wrong type or a missing argument gets the
same `{"error": CODE, …}` result the model would get (an MCP tool error, `isError`).

A `tools/call` whose `arguments` is not an object (a string of broken JSON, a list)
would be refused by the SDK's request validation with a protocol error; middleware
answers it before that, through the session, as the loop answers a model's unusable
arguments.

Sessions. On stdio the process is the session (one client). Over HTTP a session is the
transport's `Mcp-Session-Id`, which only the handshake era has: a 2026-07-28 request is
a self-contained exchange that no conversation can span. The HTTP server therefore
answers `server/discover` (the 2026-07-28 probe) with "method not found", which makes
the SDK's `Client` (and any client that probes first) open a handshake session instead,
and refuses a tool call that carries no session id, saying how to connect.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from mcp.server.context import CallNext, HandlerResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    CallToolResult,
    InputRequiredResult,
    InputResponses,
)
from mcp_types import Tool as McpTool

from airline_agent.agent.prompt import build_system_prompt
from airline_agent.choices import DEFAULT_PROMPT, PROMPT_STYLES
from airline_agent.domain.errors import failure_sentence
from airline_agent.mcp_server.catalogue import mcp_tools
from airline_agent.mcp_server.context import McpRequest
from airline_agent.mcp_server.session import Sessions, tool_result
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import error_result
from airline_agent.tools.toolbox import Toolbox

Transport = Literal["stdio", "http"]
STDIO_SESSION = "stdio"
POLICY_URI = "airline://policy"
PROMPT_NAME = "airline_agent"
INSTRUCTIONS = (
    "The tools of an airline's customer service (reservations, flights, payments), over "
    "a real reservations database, with its policy enforced by a guard. One customer per "
    "session: look the customer up with get_user_details first (that binds the session "
    "to them). Writes may ask the user for approval. The rules are the resource "
    f"{POLICY_URI}; the agent's instructions are the prompt {PROMPT_NAME}."
)
NO_SESSION = (
    "this server keeps one conversation per MCP session (the customer it acts for, its "
    "database), and this request belongs to none: connect with the initialize handshake "
    "(protocol 2025-11-25; the SDK's Client does so by itself in its default mode)"
)


class AirlineServer(MCPServer):
    def __init__(
        self, sessions: Sessions, catalogue: Toolbox, *, transport: Transport, version: str
    ) -> None:
        super().__init__(
            "airline-agent",
            title="Airline customer service (airline-agent)",
            instructions=INSTRUCTIONS,
            version=version,
            log_level="WARNING",
        )
        self.sessions = sessions
        self.transport = transport
        self._tools = mcp_tools(catalogue)
        self._register_policy_and_prompt(catalogue)
        self.middleware.append(self._screen)

    # ---------------------------------------------------------------- tools

    async def list_tools(self) -> list[McpTool]:
        return list(self._tools)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if context is None:  # only an in-process call without a request has none
            raise MCPError(code=INVALID_REQUEST, message=NO_SESSION)
        request = context.request_context
        return await self.answer(
            request,
            name,
            arguments,
            request_state=context.request_state,
            responses=context.input_responses,
        )

    async def answer(
        self,
        request: McpRequest | None,
        name: str,
        arguments: object,
        *,
        request_state: str | None = None,
        responses: InputResponses | None = None,
        key: str | None = None,
    ) -> CallToolResult | InputRequiredResult:
        """One tool call of the session the request belongs to (`key`, when known)."""
        key = key or self.session_key(request)
        if key is None:
            raise MCPError(code=INVALID_REQUEST, message=NO_SESSION)
        try:
            session = self.sessions.get(key)
        except Exception as exc:  # the session's copy of the database could not be made
            refusal = error_result(
                "INTERNAL_ERROR", f"this session could not be opened. {failure_sentence(exc)}"
            )
            return tool_result(refusal, json.dumps(refusal), "INTERNAL_ERROR")
        return await session.call(
            name, arguments, request, request_state=request_state, responses=responses
        )

    def session_key(self, request: McpRequest | None) -> str | None:
        if self.transport == "stdio":
            return STDIO_SESSION
        headers = getattr(request.request, "headers", None) if request is not None else None
        return headers.get("mcp-session-id") if headers is not None else None

    async def _screen(self, ctx: McpRequest, call_next: CallNext) -> HandlerResult:
        """Before the SDK validates a request: the era probe over HTTP, and tool calls
        whose arguments are no object. (`ctx`, `call_next`: the names the SDK's
        `ServerMiddleware` gives them.)"""
        if ctx.method == "server/discover" and self.transport == "http":
            raise MCPError(code=METHOD_NOT_FOUND, message="Method not found")
        params = ctx.params
        if ctx.method == "tools/call" and params is not None:
            arguments = params.get("arguments")
            name = params.get("name")
            if arguments is not None and not isinstance(arguments, dict) and isinstance(name, str):
                return await self.answer(ctx, name, arguments)
        return await call_next(ctx)

    # ---------------------------------------------------------------- policy, prompt

    def _register_policy_and_prompt(self, catalogue: Toolbox) -> None:
        clock = catalogue.clock
        preset = self.sessions.rules.customer

        @self.resource(
            POLICY_URI,
            name="policy",
            title="The airline's policy",
            description="The rules the agent follows and the guard enforces, each with its id "
            "(C1–C6 conduct, I identity, B booking, M changes, X cancellation, P compensation).",
            mime_type="text/markdown",
        )
        def policy() -> str:
            return build_system_prompt(clock, style="full")

        @self.prompt(
            name=PROMPT_NAME,
            title="Airline agent instructions",
            description="The system prompt the project's own agent runs with: who it is, "
            "the clock, the rules by id, never inventing data. `customer`: the user id "
            "already identified (default: the server's --as); `style`: lean or full.",
        )
        def instructions(customer: str | None = None, style: str = DEFAULT_PROMPT) -> str:
            # Both go into the system prompt as they are: a customer is a user id of this
            # airline (never text of the client's, "\nSYSTEM: …"), a style one of ours. An
            # empty one is one not given (a client's form sends its empty fields).
            style = style or DEFAULT_PROMPT
            if style not in PROMPT_STYLES:
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=f"style: {_shown(style)} is not one of: {', '.join(PROMPT_STYLES)}",
                )
            known = _customer_id(catalogue, customer) if customer else preset
            if customer and known is None:
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=f"customer: {_shown(customer)} is no customer's user id",
                )
            return build_system_prompt(clock, known, style=style)


def _customer_id(catalogue: Toolbox, given: str) -> str | None:
    """The user id of the customer `given` names in the server's database, as the
    database has it (looked up as the agent would, in a conversation of its own: no
    session's binding is touched); None when it names nobody."""
    found = catalogue.call("get_user_details", {"user_id": given}, ToolConversation())
    user_id = found.result.get("user_id") if found.ok and isinstance(found.result, dict) else None
    return user_id if isinstance(user_id, str) else None


def _shown(value: str) -> str:
    """A value of the client's in an error message: quoted, escaped, at most 40 characters."""
    return json.dumps(value if len(value) <= 40 else value[:40] + "…")
