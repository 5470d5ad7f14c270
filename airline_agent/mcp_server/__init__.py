"""`airline-agent mcp`: the airline's tools as a Model Context Protocol server.

Any MCP client (Claude Desktop, an IDE, another framework's agent) calls the same 14 tools
the agent loop calls, through the same `Toolbox.call`: the same schemas, results, error
codes and guard. Each MCP session is one conversation (`session.McpSession`): its own
customer binding, its own copy of the database (unless `--shared`), its approvals asked
by elicitation, its record. Named `mcp_server`, never `mcp`: that is the SDK's package.
"""
