"""Token usage: one row per request, a subtotal per turn, totals, cost, the context window."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static

from airline_agent.agent.events import AgentEvent, TurnFinished, Usage, UsageReported
from airline_agent.tui.formatting import latency, money, rate, tokens
from airline_agent.tui.widgets.usage_table import UsageTable


class UsagePane(Vertical):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Usage"
        self.total = Usage()
        self.total_cost: float | None = 0.0
        self.requests = 0
        self.context_window: int | None = None
        self.last_prompt_tokens = 0

    def compose(self) -> ComposeResult:
        yield Static(UsageTable.header(), id="usage-header")
        yield UsageTable(id="usage-table")
        yield Static(id="usage-totals")
        yield Static("context window: unknown", id="context-label")
        yield ProgressBar(total=None, show_eta=False, id="context-bar")

    def on_mount(self) -> None:
        self._show_totals()

    @property
    def table(self) -> UsageTable:
        return self.query_one(UsageTable)

    def clear(self) -> None:
        self.table.clear()
        self.total = Usage()
        self.total_cost = 0.0
        self.requests = 0
        self.context_window = None
        self.last_prompt_tokens = 0
        self._show_totals()

    def show_all(self, events: list[AgentEvent]) -> None:
        for event in events:
            self.show(event)

    def show(self, event: AgentEvent) -> None:
        match event:
            case UsageReported() as reported:
                self._request(reported)
            case TurnFinished(turn=turn, usage=usage, cost=cost):
                # Two lines: the turn's sums, then its cost under the label.
                self.table.add_row(
                    f"turn {turn}\n{money(cost)}", [tokens(n) for n in _counts(usage)], bold=True
                )

    def _request(self, reported: UsageReported) -> None:
        self.requests += 1
        usage = reported.usage
        cells = _counts(usage) if usage else (None, None, None, None)
        elapsed = latency(reported.latency_ms, reported.scripted).removesuffix(" ms")
        self.table.add_row(
            f"#{reported.request}", [*(tokens(n) for n in cells), elapsed], note=_speed(reported)
        )
        if usage is not None:
            self.total = self.total + usage
            self.last_prompt_tokens = usage.prompt_tokens
        if reported.cost is None or usage is None:
            self.total_cost = None  # one unknown price makes the total unknown, never 0
        elif self.total_cost is not None:
            self.total_cost += reported.cost
        if reported.context_window:
            self.context_window = reported.context_window
        self._show_totals()

    def _show_totals(self) -> None:
        # Four lines and one line, always (fixed heights in the stylesheet): updating them
        # needs no layout of the screen, which a request while playing fast would repeat.
        total = self.total
        self.query_one("#usage-totals", Static).update(
            f"[b]total[/b] {self.requests} requests\n"
            f"prompt {total.prompt_tokens:,} (cached {total.cached_tokens:,})\n"
            f"completion {total.completion_tokens:,} (reasoning {total.reasoning_tokens:,})\n"
            f"cost {money(self.total_cost) if self.requests else '—'}",
            layout=False,
        )
        label = self.query_one("#context-label", Static)
        bar = self.query_one("#context-bar", ProgressBar)
        if self.context_window:
            label.update(
                f"context: {self.last_prompt_tokens:,} / {self.context_window:,} tokens",
                layout=False,
            )
            bar.update(total=self.context_window, progress=self.last_prompt_tokens)
            bar.display = True
        else:
            label.update("context window: unknown for this model", layout=False)
            bar.display = False


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
