"""Asking the client's user before a write, by MCP elicitation.

Two protocol eras ask in two ways. On a handshake-era connection (2025-11-25 and before:
every client shipping today) the server sends `elicitation/create` while the call waits.
At 2026-07-28 a server never sends requests: the call returns an `InputRequiredResult`
holding the question, and the client calls the tool again with the answer; the SDK seals
`request_state` and binds it to this tool and these arguments, and each question's state
is good for one answer, so an answer cannot be replayed onto another call.

Only a form accepted with `confirm: true` is a yes. A decline, a cancel, an accept
without the box ticked, an error or a malformed answer are each a no: nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_types import (
    ElicitRequest,
    ElicitRequestedSchema,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    InputResponses,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from airline_agent.agent.events import ToolCall
from airline_agent.mcp_server.context import McpRequest

CONFIRM = "confirm"
QUESTION_SCHEMA: ElicitRequestedSchema = {
    "type": "object",
    "properties": {
        CONFIRM: {
            "type": "boolean",
            "title": "Make this change",
            "description": "Tick to let the agent make the change described above.",
            "default": False,
        }
    },
    "required": [CONFIRM],
}
ANSWER_KEY = "approval"  # the key of the question in `input_requests` / `input_responses`


def question(tool: str, customer: str | None, preview: str) -> str:
    acting = f" for {customer}" if customer else ""
    return f"The agent asks to run {tool}{acting}.\n\n{preview}\n\nMake this change?"


def can_ask(request: McpRequest) -> bool:
    """Whether this client declared it can be asked (the `elicitation` capability)."""
    capabilities = request.session.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


def is_yes(answer: ElicitResult | object) -> bool:
    return (
        isinstance(answer, ElicitResult)
        and answer.action == "accept"
        and isinstance(answer.content, dict)
        and answer.content.get(CONFIRM) is True
    )


def is_modern(request: McpRequest) -> bool:
    return request.protocol_version in MODERN_PROTOCOL_VERSIONS


async def ask_now(request: McpRequest, message: str) -> bool:
    """Handshake era: send the question and wait for the answer."""
    try:
        answer = await request.session.elicit_form(
            message, QUESTION_SCHEMA, related_request_id=request.request_id
        )
    except Exception:  # the client failed to answer, or answered nonsense: a no
        return False
    return is_yes(answer)


@dataclass(frozen=True)
class AskedCall:
    """A write a question was asked about: the call as logged when it came (its number
    among the session's calls), and the preview the question showed."""

    request: int
    call: ToolCall
    preview: str


@dataclass
class PendingQuestions:
    """2026-07-28: the questions a session returned and has not had answered yet, each
    with the call it is about (the answer comes with a second `tools/call`)."""

    _asked: dict[str, AskedCall] = field(default_factory=dict)
    _count: int = 0

    def ask(self, message: str, asked: AskedCall) -> InputRequiredResult:
        self._count += 1
        state = f"approval-{self._count}"
        self._asked[state] = asked
        params = ElicitRequestFormParams(message=message, requested_schema=QUESTION_SCHEMA)
        return InputRequiredResult(
            input_requests={ANSWER_KEY: ElicitRequest(params=params)}, request_state=state
        )

    def answer(
        self, state: str | None, responses: InputResponses | None
    ) -> tuple[bool, AskedCall] | None:
        """The answer to a question this session asked (used up) and the call it is
        about; None when the call answers no question of ours (a first round, or state
        not ours or used)."""
        if state is None:
            return None
        asked = self._asked.pop(state, None)
        if asked is None:
            return None
        return is_yes((responses or {}).get(ANSWER_KEY)), asked

    def unanswered(self) -> list[AskedCall]:
        """The calls whose questions were never answered (the session ends), used up."""
        left = list(self._asked.values())
        self._asked.clear()
        return left
