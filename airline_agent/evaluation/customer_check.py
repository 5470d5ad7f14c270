"""The simulated customer is checked too: what it states must come from its instructions
or from what the agent said before.

τ² has an LLM review trials for a user simulator that invented facts; here the
project's own grounding engine (agent/grounding.py) is pointed the other way: a
reservation id, flight number, user id, payment id, amount or date that a customer
message states, and that neither the task's instructions nor an earlier message of the
call (the agent's, or the customer's own) gave, is a finding "the customer invented …";
so are an email address and a person's name ("my name is …", "passenger …") that none
of them has. A trial with such a finding is a customer error: reported apart and left
out of pass^k, since the agent was tested on facts the task does not have.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from airline_agent.agent.grounding import Evidence, ground_reply

# The grounding engine's kinds that are facts a customer can state (not claims of actions,
# not times of day: "in the morning" is no invented fact).
_FACT_KINDS = frozenset(
    {"reservation_id", "flight_number", "user_id", "payment_id", "amount", "date"}
)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_NAME_CUE = re.compile(
    r"\b(?i:name is|name's|i am|i'm|this is|passenger(?: is)?|travell?er(?: is)?)\s+"
    r"((?:[A-Z][a-z'-]+)(?:\s+[A-Z][a-z'-]+)+)"
)
_WHAT = {
    "reservation_id": "reservation id",
    "flight_number": "flight number",
    "user_id": "user id",
    "payment_id": "payment method",
    "amount": "amount",
    "date": "date",
    "email": "email address",
    "name": "name",
}


@dataclass(frozen=True)
class InventedFact:
    value: str  # as the customer wrote it
    kind: str  # one of _WHAT's keys
    turn: int  # the customer's message, 1-based

    def describe(self) -> str:
        return (
            f"the customer invented {_WHAT.get(self.kind, self.kind)} {self.value} (message "
            f"{self.turn}): neither its instructions nor the call so far gave it"
        )


class CustomerCheck:
    """What the customer may state: its instructions, then every message of the call."""

    def __init__(self, instructions: tuple[str, ...]) -> None:
        self._evidence = Evidence(instructions)
        self._texts = [text.lower() for text in instructions]
        self.turns = 0

    def heard(self, text: str) -> None:
        """What the agent said: the customer may repeat it."""
        self._evidence.add(text)
        self._texts.append(text.lower())

    def said(self, text: str) -> tuple[InventedFact, ...]:
        """The facts of the customer's message that nothing before gave; then it counts
        as given (a fact is flagged once, where it was first invented)."""
        self.turns += 1
        found = [
            InventedFact(finding.value, finding.kind, self.turns)
            for finding in ground_reply(text, self._evidence)
            if finding.kind in _FACT_KINDS
        ]
        for m in _EMAIL.finditer(text):
            if not any(m.group(0).lower() in known for known in self._texts):
                found.append(InventedFact(m.group(0), "email", self.turns))
        for m in _NAME_CUE.finditer(text):
            name = m.group(1)
            if not all(self._known_word(word) for word in name.split()):
                found.append(InventedFact(name, "name", self.turns))
        self.heard(text)
        return tuple(found)

    def _known_word(self, word: str) -> bool:
        pattern = re.compile(rf"\b{re.escape(word.lower())}\b")
        return any(pattern.search(text) for text in self._texts)
