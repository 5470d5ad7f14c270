"""What the tools know of the conversation they serve: who it acts for, and what changed.

One `ToolConversation` per conversation, handed to every tool call; the `Toolbox` keeps
only what outlives a conversation (database, clock, guard). The agent's `Conversation`
(agent/conversation.py) is one of these with its history and usage added, so a new
conversation starts with nobody bound and nothing changed, by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

BindingSource = Literal["preset", "stated"]

_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def _letters_and_digits(text: str) -> str:
    return _NOT_ALNUM.sub("", text.lower())


@dataclass
class ToolConversation:
    """The acting customer, how they came to be bound, and what the conversation wrote."""

    customer: str | None = None  # the user id this conversation acts for (I1, I2)
    bound_by: BindingSource | None = None
    # True where a customer talks (the agent's conversations): an unbound conversation then
    # looks up only a user id the customer gave. False for a one-off `call` by an operator.
    hears_customer: bool = False
    # Reservations changed or cancelled in this conversation (P4: compensation after).
    changed_reservations: set[str] = field(default_factory=set)
    # What the customer wrote, reduced to letters and digits: a user id they gave counts
    # however they spaced or cased it ("Emma_Kim 9957").
    _customer_words: list[str] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if self.customer is not None and self.bound_by is None:
            self.bound_by = "preset"

    def customer_said(self, text: str) -> None:
        self._customer_words.append(_letters_and_digits(text))

    def customer_gave(self, user_id: str) -> bool:
        """Whether the customer wrote this user id in this conversation."""
        wanted = _letters_and_digits(user_id)
        return bool(wanted) and any(wanted in words for words in self._customer_words)

    def bind(self, user_id: str) -> None:
        """Act for `user_id` from now on: the customer gave it and a tool confirmed it."""
        self.customer = user_id
        self.bound_by = "stated"
