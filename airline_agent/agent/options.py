"""How the loop behaves: request parameters, limits, budgets, approvals, retries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from airline_agent.agent.prompt import PromptStyle

if TYPE_CHECKING:
    from airline_agent.config import Settings

# The one definition of what the loop does with a write call (`--approve`,
# AIRLINE_AGENT_APPROVE: config.py reads it): ask the front end, run it, or refuse it.
ApprovalPolicy = Literal["ask", "auto", "deny"]


@dataclass
class LoopOptions:
    model: str | None = None  # None: the backend's model
    tool_choice: str | dict[str, Any] = "auto"  # auto | none | required | a tool's name
    parallel_tool_calls: bool | None = None  # None: not sent (the server's default)
    temperature: float | None = None
    seed: int | None = None  # sent as is: a server that honours it samples reproducibly
    max_tokens: int | None = None
    stop: str | list[str] | None = None
    stream: bool = True
    max_tool_calls: int = 8  # per turn
    max_requests: int = 16  # per turn
    token_budget: int | None = None  # per conversation, prompt + completion tokens
    cost_budget: float | None = None  # per conversation, US dollars
    approval: ApprovalPolicy = "auto"
    send_reasoning: bool = False  # send reasoning back in later requests
    retries: int = 3  # per request, for retryable failures (429, 5xx, timeout, cut stream)
    retry_base_delay: float = 0.5  # seconds; doubled each attempt unless the server says
    retry_max_delay: float = 30.0
    # Seconds without data during a request before a ResponseStalled event (and again each
    # as many seconds while it lasts); None: not watched. The attempt itself ends at the
    # backend's timeout (AIRLINE_AGENT_TIMEOUT), and is retried.
    stall_notice: float | None = 20.0
    grounding: bool = True
    # A tool call the model wrote as text is made for it, and said so (ToolCallsRecovered).
    recover_text_tool_calls: bool = False
    one_call_at_a_time: bool = True  # policy C4 in the system prompt
    prompt: PromptStyle = "lean"  # the system prompt's text (agent/prompt.py)
    extra_body: dict[str, Any] = field(default_factory=dict)  # sent as is (server-specific)

    @classmethod
    def from_settings(cls, settings: Settings) -> LoopOptions:
        return cls(
            model=settings.model,
            stream=settings.stream,
            max_tool_calls=settings.max_tool_calls,
            max_requests=settings.max_requests,
            approval=settings.approve,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            tool_choice=settings.tool_choice,
            parallel_tool_calls=settings.parallel_tool_calls,
            token_budget=settings.token_budget,
            cost_budget=settings.cost_budget,
            prompt=settings.prompt,
            recover_text_tool_calls=settings.recover_text_tool_calls,
            stall_notice=settings.stall_notice,
            extra_body={"return_progress": True} if settings.prompt_progress else {},
        )
