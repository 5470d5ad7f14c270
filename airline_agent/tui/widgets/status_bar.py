"""The line at the top: what is running, for whom, on which data, under which rules.

It renders the session's state (session_state.py) and keeps none of it: it subscribes
to the state and repaints when told of a change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Static

if TYPE_CHECKING:
    from airline_agent.tui.session_state import SessionState


class StatusBar(Static):
    def __init__(self, state: SessionState | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._state = state

    def on_mount(self) -> None:
        if self._state is not None:
            self._state.subscribe(self._state_changed)

    def on_unmount(self) -> None:
        if self._state is not None:
            self._state.unsubscribe(self._state_changed)

    def _state_changed(self) -> None:
        # One line, same height: no layout of the screen for a new value.
        self.refresh(layout=False)

    def render(self) -> str:
        if self._state is None:
            return "starting…"
        return " │ ".join(self._state.status_parts())
