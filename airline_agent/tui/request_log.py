"""Every request of a conversation, exactly as sent, with its response: the inspector's
source."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from airline_agent.agent.events import AgentEvent, AssistantMessage, RequestSent, UsageReported


@dataclass
class Exchange:
    sent: RequestSent
    response: AssistantMessage | None = None
    usage: UsageReported | None = None

    def request_body(self) -> dict[str, object]:
        """The body as it went out, on its wire (the key travels in a header, never here)."""
        if self.sent.body is not None:  # the Responses API's, exactly as sent
            return self.sent.body
        return {
            "model": self.sent.model,
            "messages": self.sent.messages,
            "tools": self.sent.tools,
            **self.sent.params,
        }

    def response_body(self) -> dict[str, object] | None:
        response = self.response
        if response is None:
            return None
        if response.raw is not None:
            return response.raw.as_json()
        message = response.as_received()
        body: dict[str, object] = {
            "choices": [{"index": 0, "message": message, "finish_reason": response.finish_reason}]
        }
        if self.usage is not None and self.usage.usage is not None:
            body["usage"] = self.usage.usage.as_reported()
        return body


class RequestLog:
    """The requests of a conversation, read from its events (the feed keeps them: the log
    is made when the inspector opens, and kept by no one else)."""

    def __init__(self, events: Iterable[AgentEvent] = ()) -> None:
        self.exchanges: dict[int, Exchange] = {}
        for event in events:
            self.record(event)

    def record(self, event: AgentEvent) -> None:
        match event:
            case RequestSent(request=number):
                self.exchanges[number] = Exchange(event)
            case AssistantMessage(request=number) if number in self.exchanges:
                self.exchanges[number].response = event
            case UsageReported(request=number) if number in self.exchanges:
                self.exchanges[number].usage = event

    def numbers(self) -> list[int]:
        return sorted(self.exchanges)
