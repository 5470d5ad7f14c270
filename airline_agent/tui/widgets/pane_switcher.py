"""The main screen's three panes, laid out for the terminal it has, with the tab bar that
names them when one shows at a time.

- **side by side** from 120 columns: the trace on the right at full height, the chat and
  the usage under it on the left;
- **stacked** below 120 columns with 30 rows or more: chat over trace over usage;
- **one at a time** below 120 columns and 30 rows (80×24 included), or below 60 columns:
  a tab bar names the panes, `f2` (or a click on a tab) shows the next one. Stacked at
  80×24, the chat had 0–1 lines and the trace one: a live reply was invisible.

`zoom` (f3) shows the focused pane (or the one shown) on the whole screen at any size,
and back: Textual's own `Screen.maximize`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from textual.app import ComposeResult
from textual.containers import Container, Horizontal
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static, Tab, Tabs

if TYPE_CHECKING:
    from textual.widgets import Tabs

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


class PaneSwitcher(Container):
    """The panes (given as children, ids `chat`, `trace`, `usage`) and their tab bar."""

    DEFAULT_CSS = """
    PaneSwitcher {
        height: 1fr;
    }
    """

    def __init__(self, *panes: Widget, id: str | None = None) -> None:
        super().__init__(id=id)
        self._panes = panes
        self.pane_layout: PaneLayout = "side"
        self.shown: str = "chat"  # the pane on screen when one is shown at a time
        self.tab_bar: Tabs | None = None  # the tab bar, once a layout has shown it

    def compose(self) -> ComposeResult:
        # The tab bar comes with the first layout that shows one pane at a time
        # (`apply_layout`): side by side or stacked it never shows, and importing, making
        # and styling its widgets cost the first screen some 40 M instructions (2.5 %).
        yield Horizontal(id="switcher")
        yield Container(*self._panes, id="panes")

    def on_mount(self) -> None:
        self.apply_layout()

    def on_resize(self) -> None:
        self.apply_layout()

    def apply_layout(self) -> None:
        terminal = self.app.size
        layout = pane_layout_for(terminal.width, terminal.height)
        changed = layout != self.pane_layout
        self.pane_layout = layout
        panes = self.query_one("#panes")
        for name in ("side", "stacked", "single"):
            panes.set_class(layout == name, f"-{name}")
        switcher = self.query_one("#switcher")
        # Not once the app is closing: a quit typed ahead of the app is read as its first
        # frame is out, before this first layout (Textual refuses to mount then).
        if layout == "single" and self.tab_bar is None and switcher.is_attached:
            tabs = (Tab(PANE_TITLES[p], id=f"tab-{p}") for p in PANES)
            self.tab_bar = Tabs(*tabs, active=f"tab-{self.shown}", id="pane-tabs")
            switcher.mount(self.tab_bar, Static("f2 next pane", id="pane-keys"))
        switcher.display = layout == "single"
        self._show_only(self.shown if layout == "single" else None)
        if changed:
            self.screen.refresh_bindings()  # f2 is offered only one pane at a time

    def _show_only(self, pane: str | None) -> None:
        for name in PANES:
            self.query_one(f"#{name}").set_class(pane is not None and name != pane, "-off-tab")

    def show_pane(self, pane: str) -> None:
        """This pane on screen (one at a time: the others behind their tabs), focused."""
        self.shown = pane
        if self.tab_bar is not None and self.tab_bar.active != f"tab-{pane}":
            self.tab_bar.active = f"tab-{pane}"
        if self.pane_layout == "single":
            self._show_only(pane)
        self._focus_pane(pane)

    def next_pane(self) -> None:
        self.show_pane(PANES[(PANES.index(self.shown) + 1) % len(PANES)])

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

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        if event.tabs is not self.tab_bar:
            return
        event.stop()
        if event.tab.id != event.tabs.active:
            # Told of a tab that is no longer active: `show_pane` moved on since (two f2
            # in one read). Following it would set the tab bar back, whose message would
            # set it forward again: the two re-activating each other forever.
            return
        pane = (event.tab.id or "tab-chat").removeprefix("tab-")
        if pane != self.shown:
            self.show_pane(pane)

    def zoom(self) -> None:
        """The focused pane (or the one shown) on the whole screen, or back."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        pane = self.pane_of(screen.focused) or self.shown
        screen.maximize(self.query_one(f"#{pane}"), container=False)

    def pane_of(self, widget: Widget | None) -> str | None:
        """Which pane `widget` is in (None: none)."""
        while widget is not None:
            if widget.id in PANES:
                return widget.id
            parent = widget.parent
            widget = (
                parent if isinstance(parent, Widget) and not isinstance(parent, Screen) else None
            )
        return None
