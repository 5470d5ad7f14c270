"""Token usage: a row per request and a subtotal per turn, as the events come; under them
the conversation's totals and cost, as the conversation counts them.

The pane keeps no sums of its own: the totals are `Conversation.spend` and `.requests`
(agent/usage.py's `Spend`, where "one unknown cost makes the total unknown" is decided),
read when the screen shows new rows or a new conversation. What it shows of one request
(its row, the context window it used) comes from that request's event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from airline_agent.tui.formatting import latency, money, rate, tokens
from airline_agent.tui.widgets.usage_table import UsageTable

if TYPE_CHECKING:
    from airline_agent.agent.conversation import Conversation
    from airline_agent.agent.events import Usage, UsageReported

PRICES = "data/prices.toml"
UNKNOWN_CONTEXT = "context window: unknown for this model"
CONTEXT_BAR = 10  # cells of the bar after the figures (one line: no layout to update it)


class UsagePane(Vertical):
    ALLOW_MAXIMIZE = True  # f3 zooms it like the other panes

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Usage"

    def compose(self) -> ComposeResult:
        yield Static(UsageTable.header(), id="usage-header")
        yield UsageTable(id="usage-table")
        yield Static(id="usage-totals", markup=False)
        yield Static(id="usage-cost", markup=False)
        yield Static(UNKNOWN_CONTEXT, id="usage-context", markup=False)

    def on_mount(self) -> None:
        self.show_totals(None)

    @property
    def table(self) -> UsageTable:
        return self.query_one(UsageTable)

    def clear(self, conversation: Conversation | None) -> None:
        """A new conversation: no rows, its (fresh) totals, no context known yet."""
        self.table.clear()
        self.query_one("#usage-context", Static).update(UNKNOWN_CONTEXT, layout=False)
        self.show_totals(conversation)

    # -- what a turn's events add (tui/shown.py says which event adds what) ---------
    def turn_row(self, turn: int, usage: Usage, cost: float | None) -> None:
        cells = [tokens(n) for n in _counts(usage)]
        self.table.add_row(f"turn {turn}", cells, bold=True, note=_cost(cost))

    def request_row(self, reported: UsageReported) -> None:
        usage = reported.usage
        cells = _counts(usage) if usage else (None, None, None, None)
        elapsed = latency(reported.latency_ms, reported.scripted).removesuffix(" ms")
        self.table.add_row(
            f"#{reported.request}", [*(tokens(n) for n in cells), elapsed], note=_speed(reported)
        )

    def show_context(self, reported: UsageReported) -> None:
        """How much of the context window the request used, in figures and a bar."""
        line = self.query_one("#usage-context", Static)
        used = reported.usage.prompt_tokens if reported.usage else None
        window = reported.context_window
        if not window or used is None:
            line.update(UNKNOWN_CONTEXT, layout=False)
            return
        share = min(used / window, 1.0)
        filled = round(share * CONTEXT_BAR)
        text = Text(f"context {used:,} / {window:,} ({share:.0%}) ")
        text.append("━" * filled, style="bold")
        text.append("━" * (CONTEXT_BAR - filled), style="dim")
        line.update(text, layout=False)

    def show_totals(
        self, conversation: Conversation | None, reported: UsageReported | None = None
    ) -> None:
        """The conversation's totals in the table's columns, and its cost in words (why
        it is unknown, when it is). `reported`: the last request shown, whose model a
        missing price is named by."""
        counts = _counts(conversation.spend.usage) if conversation is not None else (0, 0, 0, 0)
        requests = conversation.requests if conversation is not None else 0
        cells = [tokens(n) for n in counts]
        self.query_one("#usage-totals", Static).update(
            UsageTable.format_row("total", [*cells, f"{requests} req"]), layout=False
        )
        cost = self.query_one("#usage-cost", Static)
        if conversation is None or not requests:
            cost.update("cost —")
        elif conversation.spend.cost is not None:
            cost.update(f"cost {money(conversation.spend.cost)} (prices: {PRICES})")
        elif not conversation.spend.complete:
            cost.update("cost unknown: a response came without usage")
        elif reported is not None:
            cost.update(f"cost unknown: no price for {reported.model} in {PRICES}")


def _cost(cost: float | None) -> str:
    """A turn's cost, under its row (the totals say why one is unknown)."""
    return f"cost {money(cost)}"


def _speed(reported: UsageReported) -> str:
    """Measured from a stream: the wait for the first token (mostly prompt processing on a
    local model) and the completion's speed after it; "" when not measured."""
    if reported.scripted or reported.first_token_ms is None:
        return ""
    speed = f" · {rate(reported.tokens_per_second)} tok/s" if reported.tokens_per_second else ""
    return f"first token {latency(reported.first_token_ms)}{speed}"


def _counts(usage: Usage) -> tuple[int, int, int, int]:
    return (
        usage.prompt_tokens,
        usage.cached_tokens,
        usage.completion_tokens,
        usage.reasoning_tokens,
    )
