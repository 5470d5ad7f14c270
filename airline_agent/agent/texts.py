"""What the loop says in words: to the model (in `role: tool` results), to the customer
(when a limit ends a turn) and to whoever watches (an id the framework gave a call). One
place, so that a trace, a test and a prompt agree."""

from __future__ import annotations

from typing import Any

from airline_agent.agent.model_reply import ToolCall
from airline_agent.tools.outcome import error_result
from airline_agent.tools.untrusted import ParsedJson, UnusableJson, parse_json

LIMIT_EXCEEDED_FOR_MODEL = (
    "Tool call limit for this turn reached ({limit}); this call was not run. "
    "Answer the customer now from the information you already have."
)
LIMIT_MESSAGE_FOR_CUSTOMER = (
    "I'm sorry, I could not finish this within the limit of {limit} tool calls for one "
    "turn. Please tell me how you would like to continue, or ask again step by step."
)
REQUEST_LIMIT_MESSAGE = (
    "I'm sorry, I could not finish this within the limit of {limit} model requests for one "
    "turn. Please tell me how you would like to continue."
)
BUDGET_MESSAGE = (
    "This conversation has used its {what} budget ({limit}); start a new conversation "
    "or raise the budget to continue."
)


def over_limit(limit: int) -> dict[str, Any]:
    return error_result("TOOL_CALL_LIMIT_EXCEEDED", LIMIT_EXCEEDED_FOR_MODEL.format(limit=limit))


def writes_switched_off() -> dict[str, Any]:
    return error_result(
        "PERMISSION_DENIED",
        "Changes are switched off in this session (approval mode 'deny'); nothing was "
        "written. Tell the customer this change cannot be made here.",
    )


def declined_by_customer() -> dict[str, Any]:
    return error_result(
        "PERMISSION_DENIED",
        "The customer declined this change; nothing was written. Ask the customer what "
        "they would like to do instead.",
    )


def interrupted() -> dict[str, Any]:
    return error_result(
        "INTERNAL_ERROR", "This call was not run: the turn was interrupted before it."
    )


def not_run() -> dict[str, Any]:
    return error_result("INTERNAL_ERROR", "The call was not run.")


def invalid_arguments(call: ToolCall) -> dict[str, Any]:
    shown = call.arguments if len(call.arguments) <= 200 else call.arguments[:200] + "…"
    parsed = parse_json(call.arguments)
    if isinstance(parsed, UnusableJson) and parsed.problem == "syntax":
        return error_result(
            "INVALID_ARGUMENTS",
            f"The arguments of {call.name} were not a complete JSON object ({shown!r}); the "
            "reply may have been cut off by max_tokens. Call the tool again with complete "
            "JSON arguments.",
        )
    if isinstance(parsed, UnusableJson) and parsed.problem == "number":
        why = parsed.message
    elif isinstance(parsed, ParsedJson) and parsed.lone_surrogate is not None:
        why = parsed.lone_surrogate.describe()
    else:  # JSON, but not an object of named arguments, or nested deeper than any tool takes
        why = "a tool takes one object of named values, nested only as its schema says"
    return error_result(
        "INVALID_ARGUMENTS",
        f"The arguments of {call.name} were not a usable JSON object ({shown!r}): {why}. "
        "Call the tool again with such an object.",
    )


def replaced_call_id(position: int, call: ToolCall) -> str:
    """Why call `position` (1-based) of a reply has an id the framework made."""
    sent = call.sent_id
    if sent is None or not sent.strip():
        why = "no id" if not sent else f"a blank id ({sent!r})"
    else:
        why = f"the id {sent!r} of an earlier call of the same reply"
    return (
        f"the model gave call {position} ({call.name or 'no name'}) {why}; the framework "
        f"calls it {call.call_id!r}, so that its answer and its approval are its own"
    )
