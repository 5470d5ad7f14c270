"""What one tool call gives back to whoever called it (the loop, `call`, replays)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from airline_agent.tools.untrusted import JsonValue

# The error codes of docs/database.md ("The tools"); a tool failure is always
# `{"error": CODE, "message": …}`.
ERROR_CODES = (
    "INVALID_ARGUMENTS",
    "NOT_FOUND",
    "UNKNOWN_TOOL",
    "CONFLICT",
    "POLICY_VIOLATION",
    "PERMISSION_DENIED",
    "TOOL_CALL_LIMIT_EXCEEDED",
    "INTERNAL_ERROR",
)


# A database row's values by column, as a write's change shows them.
ColumnValue = str | int | float | bool | None
RowValues = dict[str, ColumnValue]
# A call's arguments, as the model sent them (a JSON object).
ToolArguments = dict[str, JsonValue]
# What a tool answers: a record in τ²'s shape (tau2_shape's TypedDicts), a list of them,
# a number or a text; a failure is `error_result`'s object. JSON-safe.
ToolResult = Mapping[str, object] | Sequence[object] | str | float | None


@dataclass(frozen=True, slots=True)
class RowChange:
    """One database row a write changed: `before` is None for an insert, `after` for a delete."""

    table: str
    key: str  # primary key rendered as text, e.g. "EHGLP3" or "emma_kim_9957/gift_card_9562694"
    before: RowValues | None
    after: RowValues | None


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """A tool call's result as the model sees it, its error code, what it changed, and
    the customer it bound the conversation to."""

    name: str
    arguments: ToolArguments | None  # None when the arguments were not valid JSON
    result: ToolResult  # what the model sees (serialised with `content()`)
    error: str | None  # one of ERROR_CODES, or None on success
    elapsed_ms: float
    changes: tuple[RowChange, ...] = ()
    bound_customer: str | None = None  # the customer this call bound the conversation to
    tau2_text: bool = False  # `content()` as τ²'s environment writes it (`eval --like tau2`)

    @property
    def ok(self) -> bool:
        return self.error is None

    def content(self) -> str:
        """The `role: tool` message content."""
        return result_text(self.result, tau2=self.tau2_text)


def result_text(result: ToolResult, *, tau2: bool = False) -> str:
    """A tool result as a tool message holds it: text as it is, anything else as JSON.
    `tau2`: byte for byte as τ²'s environment writes it (`json.dumps` with its defaults,
    so a name like "José" reads `Jos\\u00e9`); else non-ASCII letters stay as they are."""
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=tau2)


def error_result(code: str, message: str, **extra: str) -> dict[str, str]:
    assert code in ERROR_CODES, code
    return {"error": code, "message": message, **extra}
