"""The customer's input line, with the history of what was sent (up / down)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input


class ChatInput(Input):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "history(-1)", "Previous", show=False),
        Binding("down", "history(1)", "Next", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.history: list[str] = []
        self._position = 0  # == len(history): the line being written
        self._draft = ""

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._position = len(self.history)
        self._draft = ""

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        if self._position == len(self.history):
            self._draft = self.value
        self._position = max(0, min(len(self.history), self._position + step))
        self.value = (
            self._draft if self._position == len(self.history) else self.history[self._position]
        )
        self.cursor_position = len(self.value)
