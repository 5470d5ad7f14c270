"""How the main screen lays its three panes out for the terminal it has, and the keys
that move between them.

- **side by side** from 120 columns: chat | trace | usage;
- **stacked** below 120 columns with 30 rows or more: chat over trace over usage;
- **one at a time** below 120 columns and 30 rows (80×24 included), or below 60 columns:
  a tab bar names the panes, `f2` (or a click on a tab) shows the next one. Stacked at
  80×24, the chat had 0–1 lines and the trace one: a live reply was invisible.

`f3` zooms the focused pane (or the one shown) to the whole screen at any size, and back
(`esc` too): Textual's own `Screen.maximize`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from textual import on
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Tabs

if TYPE_CHECKING:
    from textual.widget import Widget

PaneLayout = Literal["side", "stacked", "single"]
PANES = ("chat", "trace", "usage")
PANE_TITLES = {"chat": "Chat", "trace": "Trace", "usage": "Usage"}

SIDE_BY_SIDE_COLUMNS = 120
STACKED_ROWS = 30
STACKED_COLUMNS = 60


def pane_layout_for(columns: int, rows: int) -> PaneLayout:
    """Which layout a terminal of this size gets (see the module)."""
    if columns >= SIDE_BY_SIDE_COLUMNS:
        return "side"
    if rows >= STACKED_ROWS and columns >= STACKED_COLUMNS:
        return "stacked"
    return "single"


class PaneSwitcher(Screen[None]):
    """The main screen's layouts and pane keys (mixed into `MainScreen`)."""

    pane_layout: PaneLayout = "side"
    shown_pane: str = "chat"  # the pane on screen when one is shown at a time

    def compose_pane_tabs(self) -> Horizontal:
        """The tab bar (shown one pane at a time), with its key beside it."""
        from textual.widgets import Static, Tab

        tabs = Tabs(*(Tab(PANE_TITLES[p], id=f"tab-{p}") for p in PANES), id="pane-tabs")
        return Horizontal(tabs, Static("f2 next pane", id="pane-keys"), id="switcher")

    def on_resize(self) -> None:
        self.apply_pane_layout()

    def apply_pane_layout(self) -> None:
        layout = pane_layout_for(self.size.width, self.size.height)
        changed = layout != self.pane_layout
        self.pane_layout = layout
        panes = self.query_one("#panes")
        for name in ("side", "stacked", "single"):
            panes.set_class(layout == name, f"-{name}")
        self.query_one("#switcher").display = layout == "single"
        self._show_only(self.shown_pane if layout == "single" else None)
        if changed:
            self.refresh_bindings()  # f2 is offered only one pane at a time

    def _show_only(self, pane: str | None) -> None:
        for name in PANES:
            self.query_one(f"#{name}").set_class(pane is not None and name != pane, "-off-tab")

    def show_pane(self, pane: str) -> None:
        """This pane on screen (one at a time: the others behind their tabs), focused."""
        self.shown_pane = pane
        tabs = self.query_one("#pane-tabs", Tabs)
        if tabs.active != f"tab-{pane}":
            tabs.active = f"tab-{pane}"
        if self.pane_layout == "single":
            self._show_only(pane)
        self._focus_pane(pane)

    def _focus_pane(self, pane: str) -> None:
        widget = self.query_one(f"#{pane}")
        if pane == "chat":
            chat_input = widget.query_one("#chat-input")
            target: Widget = (
                chat_input if not chat_input.disabled else widget.query_one("#messages")
            )
        else:
            target = widget.query_one("#usage-table") if pane == "usage" else widget
        self.call_after_refresh(target.focus)

    @on(Tabs.TabActivated, "#pane-tabs")
    def _tab_chosen(self, event: Tabs.TabActivated) -> None:
        event.stop()
        if event.tab.id != event.tabs.active:
            # Told of a tab that is no longer active: `show_pane` moved on since (two f2
            # in one read). Following it would set the tab bar back, whose message would
            # set it forward again: the two re-activating each other forever.
            return
        pane = (event.tab.id or "tab-chat").removeprefix("tab-")
        if pane != self.shown_pane:
            self.show_pane(pane)

    def action_next_pane(self) -> None:
        following = PANES[(PANES.index(self.shown_pane) + 1) % len(PANES)]
        self.show_pane(following)

    def action_zoom(self) -> None:
        if self.maximized is not None:
            self.minimize()
            return
        pane = self._pane_of(self.focused) or self.shown_pane
        self.maximize(self.query_one(f"#{pane}"), container=False)

    def _pane_of(self, widget: Widget | None) -> str | None:
        while widget is not None:
            if widget.id in PANES:
                return widget.id
            parent = widget.parent
            widget = parent if parent is not None and not isinstance(parent, Screen) else None
        return None
