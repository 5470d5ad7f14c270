"""The usage rows: a line-API widget (each row rendered once, then only cropped per frame).

A `DataTable` re-renders every visible cell whenever a row is added, which made each
frame of a long conversation cost a tenth of a second; rows here are rendered once.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from airline_agent.tui.widgets.steady_scrollbar import SteadyScrollbar

COLUMNS = ("req", "prompt", "cached", "compl", "reas", "ms")
# 42 columns: the usage pane inside its border, with room for a scrollbar. Every count is
# "12,345" (formatting.tokens) and every time whole milliseconds or "scripted".
WIDTHS = (7, 7, 7, 6, 6, 9)


class UsageTable(SteadyScrollbar, ScrollView, can_focus=True):
    DEFAULT_CSS = """
    UsageTable {
        height: 1fr;
        overflow-x: hidden;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[Strip] = []
        self.row_count = 0

    @staticmethod
    def header() -> Text:
        text = Text(style="bold")
        for name, width in zip(COLUMNS, WIDTHS, strict=True):
            text.append(name.ljust(width) if name == "req" else name.rjust(width))
        return text

    @staticmethod
    def format_row(label: str, cells: list[str]) -> str:
        """A row's text in the table's columns (the totals under the table use it too)."""
        parts = [label.ljust(WIDTHS[0])[: WIDTHS[0]]]
        parts += [cell.rjust(width) for cell, width in zip(cells, WIDTHS[1:], strict=False)]
        return "".join(parts)

    def add_row(self, label: str, cells: list[str], *, bold: bool = False, note: str = "") -> None:
        """One row; `note` is a dim line under it (a streamed response's first-token time
        and speed, a turn's cost)."""
        self._lines.append(Strip([Segment(self.format_row(label, cells), Style(bold=bold))]))
        if note:
            self._lines.append(Strip([Segment("  " + note[: sum(WIDTHS) - 2], Style(dim=True))]))
        self.row_count += 1
        following = self.is_vertical_scroll_end
        self.virtual_size = Size(sum(WIDTHS), len(self._lines))
        if following:
            # At once once the scrollbar shows (it may scroll then): the end shows in the
            # frame of the new row; deferred, the pane was painted again a frame later.
            # Before the layout that shows the scrollbar, only a deferred scroll moves.
            self.scroll_end(animate=False, immediate=self.allow_vertical_scroll)
        self.refresh()

    def clear(self) -> None:
        self._lines.clear()
        self.row_count = 0
        self.virtual_size = Size(sum(WIDTHS), 0)
        self.scroll_to(0, 0, animate=False)
        self.refresh()

    def lines(self) -> list[str]:
        """The rows as text (tests read them)."""
        return [strip.text for strip in self._lines]

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.rich_style
        if index >= len(self._lines):
            return Strip.blank(width, base)
        return self._lines[index].crop_extend(scroll_x, scroll_x + width, None).apply_style(base)
