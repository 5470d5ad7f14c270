"""The trace: every request and tool call in order, labelled by producer.

An `OptionList` renders through the line API, so a trace of thousands of entries stays
fast; each row wraps to the pane's width without splitting a token (token_wrap.py);
selecting an entry (enter or a click) posts `TracePane.EntryChosen`. Highlighting
an entry that carries a `tool_call_id` (a model's call, its `role: tool` result, an
approval, a binding) marks every other entry with that id and posts
`TracePane.CallLinked`: the call and its result are seen together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.strip import Strip
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from airline_agent.redaction import Redactor
from airline_agent.terminal_text import escape_controls
from airline_agent.tui.formatting import clip_lines
from airline_agent.tui.widgets.steady_scrollbar import SteadyScrollbar
from airline_agent.tui.widgets.token_wrap import WholeTokens

if TYPE_CHECKING:
    from airline_agent.tui.trace import TraceEntry

BADGES = {
    "developer": ("developer", "bold black on #b48ead"),
    "customer": ("customer ", "bold black on #88c0d0"),
    "model": ("model    ", "bold black on #a3be8c"),
    "framework": ("framework", "bold black on #d8dee9"),
    "api": ("api      ", "bold black on #5e81ac"),
    "you": ("you      ", "bold black on #d08770"),  # your edits at the debugger
}
LINKED_STYLE = Style(bgcolor="#3b4252")  # under the rows linked to the highlighted one
# A longer line of an entry (a tool result of megabytes on one line, a call's arguments) is
# shown as its start and how much more it holds: a row is a few lines of the pane whatever
# a tool, a model or a watched log puts in it, and enter shows the whole in the details.
ROW_LINE_CHARS = 500


def render_entry(entry: TraceEntry, redactor: Redactor | None = None) -> Text:
    """One entry as the trace shows it: badge, title, facts, a few lines; redacted, and
    with what a terminal would obey (the model's, a tool's) shown as escapes; each line
    cut at `ROW_LINE_CHARS` (after redaction: a secret is never shown in part)."""
    redact = redactor.redact if redactor is not None else str

    def shown(text: str) -> str:
        return clip_lines(escape_controls(redact(text)), ROW_LINE_CHARS)

    label, badge_style = BADGES.get(entry.producer, (entry.producer, "bold"))
    if entry.error:
        badge_style = "bold white on #bf616a"
    elif entry.warning:
        badge_style = "bold black on #ebcb8b"
    text = Text()
    # Non-breaking spaces: the badge is one token for the wrapping (token_wrap.py).
    text.append(f" {label} ".replace(" ", "\u00a0"), style=badge_style)
    text.append(" ")
    text.append(shown(entry.title), style="bold red" if entry.error else "bold")
    if entry.meta:
        text.append(f"  {shown(entry.meta)}", style="bold red" if entry.error else "dim")
    if entry.body:
        text.append("\n")
        warned = entry.warning and not entry.error
        text.append(shown(entry.body), style="#ebcb8b" if warned else "")
    return text


class TracePane(SteadyScrollbar, OptionList):
    """The ordered trace of one conversation (kept across turns, cleared on a new one)."""

    class EntryChosen(Message):
        def __init__(self, entry: TraceEntry) -> None:
            super().__init__()
            self.entry = entry

    class CallLinked(Message):
        """The highlighted entry shares `call_ids` with the entries at `linked`."""

        def __init__(self, call_ids: tuple[str, ...], linked: tuple[int, ...]) -> None:
            super().__init__()
            self.call_ids = call_ids
            self.linked = linked

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[TraceEntry] = []
        self.redactor = Redactor()  # the app's, set by the screen once settings are read
        self.linked: frozenset[int] = frozenset()  # entries linked to the highlighted one
        self._by_call: dict[str, list[int]] = {}  # tool_call_id -> the entries carrying it
        self.border_title = "Trace"
        self._followed = True  # following the newest entry before the last resize

    def add_entries(self, entries: list[TraceEntry]) -> None:
        if not entries:
            return
        follow = self.following
        options: list[Option | None] = []
        for entry in entries:
            options.append(Option(WholeTokens(render_entry(entry, self.redactor))))
            options.append(None)  # a rule between entries
            for call_id in entry.call_ids:
                self._by_call.setdefault(call_id, []).append(len(self.entries))
            self.entries.append(entry)
        self.add_options(options)
        if follow:
            # At once, not after the next refresh: `add_options` has already grown the
            # virtual size, so the new end shows in the same frame as the new entries
            # (a deferred scroll paints the whole pane a second time, one frame later).
            self.scroll_end(animate=False, immediate=True)

    @property
    def following(self) -> bool:
        """The newest entry is in view and no earlier one is chosen: new entries scroll
        into view (the user who scrolled or moved up is left where they are)."""
        at_end = self.scroll_y >= self.max_scroll_y - 1
        return at_end and (self.highlighted is None or self.highlighted >= len(self.entries) - 1)

    def on_resize(self) -> None:
        # The rows wrap anew at the new width: the end moves, follow it if we did.
        if self._followed:
            self.call_after_refresh(self.scroll_end, animate=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.size.height:
            self._followed = self.following

    def clear(self) -> None:
        self.entries.clear()
        self._by_call.clear()
        self.linked = frozenset()
        self.clear_options()
        self._followed = True

    def linked_to(self, index: int) -> frozenset[int]:
        """The other entries sharing a tool_call_id with entry `index`."""
        ids = self.entries[index].call_ids if 0 <= index < len(self.entries) else ()
        return frozenset(i for call in ids for i in self._by_call.get(call, ())) - {index}

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        linked = self.linked_to(event.option_index)
        if linked != self.linked:
            self.linked = linked
            self.refresh()  # only the rows on screen are painted again; none re-rendered
        if linked:
            ids = self.entries[event.option_index].call_ids
            self.post_message(self.CallLinked(ids, tuple(sorted(linked))))

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if not self.linked:
            return strip
        try:  # OptionList's own map of screen lines to options (its line cache)
            option_index, _ = self._lines[self.scroll_offset.y + y]
        except IndexError:
            return strip
        if option_index not in self.linked:
            return strip
        # The row's own background becomes the link's; the producer badge keeps its colour.
        plain = self.get_visual_style("option-list--option").rich_style.bgcolor
        segments = [
            Segment(text, style + LINKED_STYLE, control)
            if style is not None and style.bgcolor in (plain, None)
            else Segment(text, style, control)
            for text, style, control in strip
        ]
        return Strip(segments, strip.cell_length)

    @property
    def highlighted_entry(self) -> TraceEntry | None:
        index = self.highlighted
        return self.entries[index] if index is not None and index < len(self.entries) else None

    def titles(self) -> list[str]:
        """What the trace shows, in order (tests and the benchmark read this)."""
        return [f"{entry.producer}: {entry.title}" for entry in self.entries]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.EntryChosen(self.entries[event.option_index]))
