"""The trace: every request and tool call in order, labelled by producer.

An `OptionList` renders through the line API, so a trace of thousands of entries stays
fast; selecting an entry (enter or a click) posts `TracePane.EntryChosen`.
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from airline_agent.tui.trace import TraceEntry

BADGES = {
    "developer": ("developer", "bold black on #b48ead"),
    "customer": ("customer ", "bold black on #88c0d0"),
    "model": ("model    ", "bold black on #a3be8c"),
    "framework": ("framework", "bold black on #d8dee9"),
    "api": ("api      ", "bold black on #5e81ac"),
}


def render_entry(entry: TraceEntry) -> Text:
    label, badge_style = BADGES.get(entry.producer, (entry.producer, "bold"))
    if entry.error:
        badge_style = "bold white on #bf616a"
    elif entry.warning:
        badge_style = "bold black on #ebcb8b"
    text = Text()
    text.append(f" {label} ", style=badge_style)
    text.append(" ")
    text.append(entry.title, style="bold red" if entry.error else "bold")
    if entry.meta:
        text.append(f"  {entry.meta}", style="bold red" if entry.error else "dim")
    if entry.body:
        text.append("\n")
        text.append(entry.body, style="#ebcb8b" if entry.warning and not entry.error else "")
    return text


class TracePane(OptionList):
    """The ordered trace of one conversation (kept across turns, cleared on a new one)."""

    class EntryChosen(Message):
        def __init__(self, entry: TraceEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[TraceEntry] = []
        self.border_title = "Trace"

    def add_entries(self, entries: list[TraceEntry]) -> None:
        if not entries:
            return
        follow = self.highlighted is None or self.highlighted >= len(self.entries) - 1
        options: list[Option | None] = []
        for entry in entries:
            options.append(Option(render_entry(entry)))
            options.append(None)  # a rule between entries
        self.entries.extend(entries)
        self.add_options(options)
        if follow:
            # At once, not after the next refresh: `add_options` has already grown the
            # virtual size, so the new end shows in the same frame as the new entries
            # (a deferred scroll paints the whole pane a second time, one frame later).
            self.scroll_end(animate=False, immediate=True)

    def clear(self) -> None:
        self.entries.clear()
        self.clear_options()

    def titles(self) -> list[str]:
        """What the trace shows, in order (tests and the benchmark read this)."""
        return [f"{entry.producer}: {entry.title}" for entry in self.entries]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.EntryChosen(self.entries[event.option_index]))
