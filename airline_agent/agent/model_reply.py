"""What a model's reply is made of, before any event carries it: its tool calls, the
tokens it used, and the assistant message exactly as it was sent, in the wire's shape.

Its own module so that the events (agent/events.py), the history (agent/history.py) and
the raw responses (agent/raw_response.py) can all speak of a reply without importing one
another. The dictionaries here are the Chat Completions wire's own shapes, as
`TypedDict`s: what `openai.types.chat` calls `ChatCompletionMessageFunctionToolCallParam`
and `CompletionUsage`, written out so that a front end reading a reply never imports the
`openai` package (about a second at start-up), plus `reasoning_content`, which local
servers add beside the message's content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NotRequired, TypeAlias, TypedDict

if TYPE_CHECKING:
    from openai.types.responses import ResponseReasoningItemParam


class FunctionWire(TypedDict):
    """A tool call's function: its name, and its arguments as the JSON text the model wrote."""

    name: str
    arguments: str


class ToolCallWire(TypedDict):
    """One tool call as the wire carries it (`tool_calls[i]`)."""

    id: str
    type: Literal["function"]
    function: FunctionWire


class ReceivedMessage(TypedDict):
    """`choices[0].message` of a completion: the assistant message as the model sent it."""

    role: Literal["assistant"]
    content: str | None
    tool_calls: NotRequired[list[ToolCallWire]]
    reasoning_content: NotRequired[str]


class SystemEntry(TypedDict):
    role: Literal["system"]
    content: str


class UserEntry(TypedDict):
    role: Literal["user"]
    content: str


class AssistantEntry(TypedDict):
    """A model reply as the history keeps it: unusable arguments repaired (`{}`),
    `reasoning_content` only when it is sent back, and on the Responses wire the reply's
    reasoning items (`reasoning_items`), which go back with it."""

    role: Literal["assistant"]
    content: str | None
    tool_calls: NotRequired[list[ToolCallWire]]
    reasoning_content: NotRequired[str]
    reasoning_items: NotRequired[list[ResponseReasoningItemParam]]


class ToolEntry(TypedDict):
    role: Literal["tool"]
    tool_call_id: str
    content: str


# One message of the loop's history, in Chat Completions' form (agent/history.py).
HistoryEntry: TypeAlias = "SystemEntry | UserEntry | AssistantEntry | ToolEntry"


class PromptTokensDetails(TypedDict):
    cached_tokens: int


class CompletionTokensDetails(TypedDict):
    reasoning_tokens: int


class ReportedUsage(TypedDict):
    """`usage` as a Chat Completions response reports it."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: PromptTokensDetails
    completion_tokens_details: CompletionTokensDetails


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one request, or summed over a turn or a conversation."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_reported(self) -> ReportedUsage:
        """As a Chat Completions response reports it."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "prompt_tokens_details": {"cached_tokens": self.cached_tokens},
            "completion_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
        }

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call as the model asked for it; `arguments` is the raw JSON text.

    `call_id` is unique within its reply: where the model gave a call no id (or a blank
    one), or the id of an earlier call of the same reply, the loop gave it one of its own
    before anything was asked or run, and `sent_id` keeps what the model sent ("" for no
    id). An approval, a result and a history entry then each belong to exactly one call.
    """

    call_id: str
    name: str
    arguments: str
    sent_id: str | None = None  # None: `call_id` is the model's own

    @property
    def id_as_sent(self) -> str:
        return self.call_id if self.sent_id is None else self.sent_id

    def as_sent(self) -> ToolCallWire:
        """The call as the model sent it (its own id, its arguments untouched)."""
        return {
            "id": self.id_as_sent,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


def received_message(
    content: str | None, tool_calls: tuple[ToolCall, ...], reasoning: str | None
) -> ReceivedMessage:
    """The assistant message exactly as the model sent it (reasoning included, arguments
    untouched); the history keeps a repaired copy of it (see agent/history.py)."""
    message: ReceivedMessage = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [call.as_sent() for call in tool_calls]
    if reasoning:
        message["reasoning_content"] = reasoning
    return message
