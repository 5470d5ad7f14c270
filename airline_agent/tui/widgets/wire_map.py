"""What corresponds to what in one round on both wires: a table of the round's parts,
each with its path on Chat Completions, on the Responses API, and its value this round."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich import box
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from airline_agent.agent.both_wires import Correspondence

COLUMNS = ("what", "Chat Completions", "Responses API", "this round")
RATIOS = (2, 3, 3, 2)


class WireMap(Static):
    """The correspondences as a table that wraps its cells to the width it is drawn at."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.rows: list[tuple[str, ...]] = []

    def show(self, found: Sequence[Correspondence], shown: Callable[[str], str]) -> None:
        """`found`, each cell passed through `shown` (redacted, escapes visible)."""
        self.rows = [
            tuple(shown(cell) for cell in (c.what, c.chat, c.responses, c.value)) for c in found
        ]
        table = Table(
            box=box.SIMPLE_HEAD,
            expand=True,
            show_edge=False,
            pad_edge=False,
            header_style="bold",
            show_lines=True,
        )
        for name, ratio in zip(COLUMNS, RATIOS, strict=True):
            table.add_column(name, ratio=ratio, overflow="fold")
        for row in self.rows:
            table.add_row(*(Text(cell, overflow="fold") for cell in row))
        self.update(table)
