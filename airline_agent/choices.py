"""The choices a user makes in settings (flags, environment, `.env`): what each may be and
what it is when no one chose. One definition each, read from here by `config.Settings`,
by `settings_peek` (the TUI's first screen, before pydantic is imported), by the loop's
`LoopOptions` and by the domain's clock.

Below every layer and importing nothing of the package, so that any of them may read it.
"""

from __future__ import annotations

from typing import Literal, get_args

# What the loop does with a write call (`--approve`, AIRLINE_AGENT_APPROVE): ask the front
# end, run it, or refuse it ("changes are switched off").
ApprovalMode = Literal["ask", "auto", "deny"]
APPROVAL_MODES: tuple[ApprovalMode, ...] = get_args(ApprovalMode)
# Asked, unless a user or a program says otherwise: a write is never made unseen by default.
DEFAULT_APPROVAL: ApprovalMode = "ask"

# Which system prompt the loop sends (`--prompt`, AIRLINE_AGENT_PROMPT; agent/prompt.py).
PromptStyle = Literal["lean", "full"]
PROMPT_STYLES: tuple[PromptStyle, ...] = get_args(PromptStyle)
DEFAULT_PROMPT: PromptStyle = "lean"

# The database (`--db`, AIRLINE_AGENT_DB): built from the sample on first use when no
# other is named.
DEFAULT_DB = "data/airline.db"

# The domain clock's "now" (`AIRLINE_AGENT_NOW`): the moment τ²-bench's airline tasks
# are set in.
DEFAULT_NOW = "2024-05-15T15:00:00"

# The loop's limits per turn, and the wait before it says a request has gone quiet.
DEFAULT_MAX_TOOL_CALLS = 8
DEFAULT_MAX_REQUESTS = 16
DEFAULT_STALL_NOTICE = 20.0  # seconds
