"""The SDK's context of one request, as every part of this server takes it."""

from __future__ import annotations

from typing import Any, TypeAlias

from mcp.server.context import ServerRequestContext

# Any server's requests: the lifespan state and the transport's request object are the
# SDK's and this server reads neither (the SDK types its reusable middleware so too).
McpRequest: TypeAlias = ServerRequestContext[Any, Any]
