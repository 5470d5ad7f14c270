"""How the loop behaves: request parameters, limits, budgets, approvals, retries.

A user sets these through `Settings` (flags > environment > `.env`); `from_settings` is
the one translation. What the two share has one default, in airline_agent/choices.py; the
fields only a program sets (retries, `stop`, the debugger's needs…) have theirs here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from airline_agent.choices import (
    DEFAULT_APPROVAL,
    DEFAULT_MAX_REQUESTS,
    DEFAULT_MAX_TOOL_CALLS,
    DEFAULT_PROMPT,
    DEFAULT_STALL_NOTICE,
    ApprovalMode,
    PromptStyle,
)
from airline_agent.config import Settings


@dataclass
class LoopOptions:
    model: str | None = None  # None: the backend's model
    tool_choice: str | dict[str, Any] = "auto"  # auto | none | required | a tool's name
    parallel_tool_calls: bool | None = None  # None: not sent (the server's default)
    temperature: float | None = None
    max_tokens: int | None = None
    stop: str | list[str] | None = None
    stream: bool = True
    max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS  # per turn
    max_requests: int = DEFAULT_MAX_REQUESTS  # per turn
    token_budget: int | None = None  # per conversation, prompt + completion tokens
    cost_budget: float | None = None  # per conversation, US dollars
    approval: ApprovalMode = DEFAULT_APPROVAL
    send_reasoning: bool = False  # send reasoning back in later requests
    retries: int = 3  # per request, for retryable failures (429, 5xx, timeout, cut stream)
    retry_base_delay: float = 0.5  # seconds; doubled each attempt unless the server says
    retry_max_delay: float = 30.0
    # Seconds without data during a request before a ResponseStalled event (and again each
    # as many seconds while it lasts); None: not watched. The attempt itself ends at the
    # backend's timeout (AIRLINE_AGENT_TIMEOUT), and is retried.
    stall_notice: float | None = DEFAULT_STALL_NOTICE
    grounding: bool = True
    # A tool call the model wrote as text is made for it, and said so (ToolCallsRecovered).
    recover_text_tool_calls: bool = False
    one_call_at_a_time: bool = True  # policy C4 in the system prompt
    prompt: PromptStyle = DEFAULT_PROMPT  # the system prompt's text (agent/prompt.py)
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
