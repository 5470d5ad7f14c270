"""A line-API pane's scrollbar, painted again only when what it shows changed.

Textual lays a scroll view (the trace, the usage rows) out with its viewport as its
virtual size, which is never the pane's own (all its lines): at each layout of the screen
the view takes that for a change and repaints its scrollbar, a frame later. While a
scenario plays fast the screen lays out at every pane update, so each frame painted the
two scrollbars of the trace and the usage rows again, the whole height of the screen, and
with them the rows of every pane between them. Here the bar is updated only when the
pane's size, its own virtual size or its container's size did change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.geometry import Size

if TYPE_CHECKING:
    from textual.scroll_view import ScrollView

    _Base = ScrollView
else:
    # A plain class at run time: Textual takes a widget's CSS and component classes from
    # its first widget base (the trace's are OptionList's), so the mixin is not one.
    _Base = object


class SteadyScrollbar(_Base):
    """Mixed in before a `ScrollView`: its scrollbar is updated only when a size changed."""

    _sized_for: tuple[Size, Size, Size] | None = None  # (size, virtual, container) last laid out

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        # Textual's own hook (ScrollView._size_updated), called at every layout.
        sized_for = (size, self.virtual_size, container_size)
        if sized_for == self._sized_for:
            virtual_size = self.virtual_size  # nothing changed: no update, no repaint
        self._sized_for = sized_for
        return super()._size_updated(size, virtual_size, container_size, layout)
