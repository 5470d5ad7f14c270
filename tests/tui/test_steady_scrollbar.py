"""The trace's and the usage rows' scrollbars are painted again only when what they show
changed: Textual took every layout of the screen for a change of their size, and while a
scenario plays fast (a layout at each pane update) every frame repainted both bars, the
whole height of the screen, and the panes between them with them."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from airline_agent.tui.trace import TraceEntry
from airline_agent.tui.widgets.trace_pane import TracePane
from airline_agent.tui.widgets.usage_table import UsageTable
from tests.tui.helpers import wait_until_steady


class PanesApp(App[None]):
    def compose(self) -> ComposeResult:
        with Horizontal():
            yield TracePane(id="trace")
            yield UsageTable(id="usage-table")
        yield Static("other", id="other")


def _bar_repaints(bar) -> list[int]:
    """Counts the bar's repaints from now on."""
    count = [0]
    refresh = bar.refresh

    def counted(*args, **kwargs):
        count[0] += 1
        return refresh(*args, **kwargs)

    bar.refresh = counted
    return count


async def test_a_layout_that_changes_nothing_of_theirs_leaves_the_bars_alone() -> None:
    app = PanesApp()
    async with app.run_test(size=(80, 12)) as pilot:
        trace = app.query_one(TracePane)
        table = app.query_one(UsageTable)
        trace.add_entries([TraceEntry("model", f"entry {n}", body="a\nb") for n in range(20)])
        for n in range(20):
            table.add_row(f"#{n}", ["1", "2", "3", "4", "5"])
        # Both panes at their end, as they settle after the rows (later under load).
        await wait_until_steady(
            pilot,
            lambda: all(
                pane.vertical_scrollbar.display and pane.scroll_y == pane.max_scroll_y > 0
                for pane in (trace, table)
            ),
        )
        assert trace.vertical_scrollbar.display and table.vertical_scrollbar.display
        trace_bar = _bar_repaints(trace.vertical_scrollbar)
        table_bar = _bar_repaints(table.vertical_scrollbar)
        other = app.query_one("#other", Static)
        for text in ("another line", "and another"):  # lays the screen out again
            other.update(text, layout=True)
            await pilot.pause()
        assert (trace_bar[0], table_bar[0]) == (0, 0)


async def test_the_bars_follow_what_the_panes_hold() -> None:
    app = PanesApp()
    async with app.run_test(size=(80, 12)) as pilot:
        trace = app.query_one(TracePane)
        table = app.query_one(UsageTable)
        trace.add_entries([TraceEntry("model", "first")])
        table.add_row("#1", ["1", "2", "3", "4", "5"])
        await pilot.pause()
        assert not trace.vertical_scrollbar.display
        trace.add_entries([TraceEntry("model", f"entry {n}", body="a\nb") for n in range(20)])
        for n in range(20):
            table.add_row(f"#{n}", ["1", "2", "3", "4", "5"])
        await pilot.pause()
        for pane in (trace, table):
            bar = pane.vertical_scrollbar
            assert bar.display
            assert bar.window_virtual_size == pane.virtual_size.height
            assert bar.position == pane.scroll_y == pane.max_scroll_y  # it followed the end
