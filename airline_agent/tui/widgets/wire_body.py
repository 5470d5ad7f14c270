"""One wire's request or response in the side-by-side view: its JSON, titled with the wire
and what it is, and where it came from beneath (as sent, as it came, or generated here)."""

from __future__ import annotations

from textual.widgets import TextArea


class WireBody(TextArea):
    """A read-only JSON body of one wire (screens/both_wires.py sets what it shows)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(read_only=True, soft_wrap=True, id=id)

    def show(self, wire: str, what: str, source: str, text: str) -> None:
        """`wire`'s `what` ("request", "response") as `text`; `source`: where it came from."""
        self.text = text
        self.border_title = f"{wire} · {what}"
        self.border_subtitle = source
