"""One conversation's state, in one object: who it acts for, what it changed (the tools'
part, `ToolConversation`), its history, its usage and what grounding accepts as given.

`AgentSession.new_conversation()` makes a new one; nothing of the previous conversation
survives it (the binding, P4's changed reservations, the history, the usage).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from airline_agent.agent.events import Usage
from airline_agent.agent.grounding import Evidence
from airline_agent.agent.usage import add_cost
from airline_agent.tools.conversation import ToolConversation


@dataclass
class Conversation(ToolConversation):
    system_prompt: str = ""
    history: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)  # summed over requests that reported usage
    usage_complete: bool = True  # False once a server reported no usage
    cost: float | None = 0.0  # None once any request's cost is unknown
    turns: int = 0
    requests: int = 0
    # What the grounding check accepts as given: the rules, the customer, tool results.
    evidence: Evidence = field(default_factory=Evidence)

    @classmethod
    def start(cls, system_prompt: str, customer: str | None = None) -> Conversation:
        return cls(
            customer=customer,
            hears_customer=True,
            system_prompt=system_prompt,
            history=[{"role": "system", "content": system_prompt}],
            evidence=Evidence(rules=[system_prompt]),
        )

    def add_customer_message(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})
        self.evidence.add(text)
        self.customer_said(text)

    def take_back_customer_message(self) -> None:
        """The customer's last message, never answered: sending it again gives exactly
        the same request. (What it named stays named: the customer did say it.)"""
        self.history.pop()
        self.evidence.pop()

    def count_usage(self, usage: Usage | None, cost: float | None) -> None:
        if usage is None:
            self.usage_complete = False
        else:
            self.usage = self.usage + usage
        self.cost = add_cost(self.cost, cost, first=False)
