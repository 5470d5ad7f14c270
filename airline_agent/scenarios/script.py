"""The scripted side of a scenario as it plays: the model's responses, one turn at a time,
and the customer's answer to each approval question.

Replaying (`runner`) and playing in the TUI go through `ScenarioScript`, so both answer
the same way: each pending write with its scripted call's own `approve` when it has one,
else with the scenario's `settings.approval`.

A pending write is known by the call id the model gave it. The scripted backend makes
up ids for calls that have none, so the ids are read from the response as it arrived
(the `AssistantMessage` just before the question) and matched to the scripted calls by
position: the backend serves a response's calls in the order of the file.

A turn the customer cancelled (`cancelled: true`) plays up to where its recording ends
and is cancelled there: `cancels(event)` says when that is — a request it has no response
for, an approval question that was never answered (no call of the turn is recorded
after it), or a call beyond the calls recorded. The caller then closes the turn, as
esc or Ctrl-C did, and reports it with `agent.cancelled.cancelled_turn`.
"""

from __future__ import annotations

from airline_agent.agent.backends import (
    ScriptedBackend,
    ScriptedFailure,
    ScriptedResponse,
    ScriptedToolCall,
)
from airline_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessage,
    RequestSent,
    ToolFinished,
    ToolStarted,
    Usage,
)
from airline_agent.scenarios.model import DEFAULT_ANSWER, Scenario, Turn


def scripted_responses(turn: Turn) -> list[ScriptedResponse]:
    """The turn's responses as the scripted backend takes them."""
    return [
        ScriptedResponse(
            content=response.content,
            tool_calls=tuple(
                ScriptedToolCall(call.name, call.arguments, call.id) for call in response.tool_calls
            ),
            reasoning=response.reasoning,
            usage=Usage(**response.usage.model_dump()) if response.usage else None,
            finish_reason=response.finish_reason,
            failure=ScriptedFailure(**response.error.model_dump()) if response.error else None,
        )
        for response in turn.responses
    ]


class ScenarioScript:
    """Feeds a scenario's turns to a `ScriptedBackend` and answers its approval questions."""

    def __init__(self, scenario: Scenario, backend: ScriptedBackend) -> None:
        self.backend = backend
        # None under auto/deny: the loop asks nothing (the model forbids `approve` there).
        self.default: bool | None = DEFAULT_ANSWER.get(scenario.settings.approval)
        self._turn: Turn | None = None
        self._answers: dict[str, bool | None] = {}  # call id -> its `approve`, last response

    def load(self, turn: Turn, *, served: int = 0) -> None:
        """The model's responses for this turn, in order; `served`: that many were given
        already (a turn a fork cut in the middle goes on with the rest)."""
        self.backend.load(scripted_responses(turn)[served:])
        self._turn = turn
        self._answers = {}
        self._calls_begun = 0  # calls of this turn that ran or were answered unrun
        self._running: set[str] = set()  # call ids started and not finished yet

    def answer(self, event: AgentEvent) -> None:
        """Watch every event of the turn; an approval question is answered on the spot."""
        if isinstance(event, AssistantMessage) and self._turn is not None:
            responses = self._turn.responses
            served = len(responses) - self.backend.remaining - 1  # the response just given
            scripted = responses[served].tool_calls if 0 <= served < len(responses) else []
            self._answers = {
                call.call_id: script.approve
                for call, script in zip(event.tool_calls, scripted, strict=False)
            }
        elif isinstance(event, ApprovalRequested) and self.default is not None:
            default = self.default
            given = {call.call_id: self._answers.get(call.call_id) for call in event.calls}
            event.decide({key: default if a is None else a for key, a in given.items()})

    def cancels(self, event: AgentEvent) -> bool:
        """Whether a cancelled turn's recording ends at `event`: the turn is to be
        cancelled now (the event itself did not happen live when it is a tool's)."""
        turn = self._turn
        if turn is None or not turn.cancelled:
            return False
        recorded = len(turn.expect.calls or [])
        match event:
            case RequestSent():
                return self.backend.remaining == 0
            case ApprovalRequested():
                return self._calls_begun >= recorded
            case ToolStarted():
                self._running.add(event.call_id)
                self._calls_begun += 1
                return self._calls_begun > recorded
            case ToolFinished() if event.call_id in self._running:
                self._running.discard(event.call_id)
            case ToolFinished():  # answered without running (declined, over the limit, …)
                self._calls_begun += 1
                return self._calls_begun > recorded
        return False
