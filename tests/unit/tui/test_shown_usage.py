"""What a batch of a turn's events adds to the usage pane (tui/shown.py's
`show_in_usage`) when it holds no request's report: a turn that ended before any answer
(an error, a cancel) still gets its subtotal row, the totals are the conversation's, and
the context line keeps what the last request said. The pane is mounted alone in a small
app and fed events as the main screen feeds it (tests/tui/test_usage_pane_rendering.py
has the batches with reports)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from airline_agent.agent.conversation import Conversation
from airline_agent.agent.events import TurnFinished, Usage, UsageReported
from airline_agent.tui.shown import show_in_usage
from airline_agent.tui.widgets.usage_pane import UsagePane

USED = Usage(prompt_tokens=4_096, completion_tokens=20)


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield UsagePane(id="usage")


def _line(app: PaneApp, name: str) -> str:
    return str(app.query_one(UsagePane).query_one(f"#usage-{name}").render()).rstrip()


async def test_a_turn_that_ended_before_any_answer_gets_its_row_and_keeps_the_context() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)):
        pane = app.query_one(UsagePane)
        report = UsageReported(1, USED, 0.25, "gpt-4o-mini", 812.4, context_window=8_192)
        conversation = Conversation()
        conversation.requests += 1
        conversation.count_usage(report.usage, report.cost)
        show_in_usage(pane, [report, TurnFinished(1, "answered", USED, 0.25)], conversation)
        # The next turn fails before its first request is answered: no report comes.
        show_in_usage(pane, [TurnFinished(2, "error", Usage(), None)], conversation)
        assert pane.table.lines()[-2:] == [
            "turn 2       0      0     0     0",
            "  cost unknown",
        ]
        assert _line(app, "context") == "context 4,096 / 8,192 (50%) ━━━━━━━━━━"
        assert _line(app, "totals") == "total    4,096      0    20     0    1 req"
        assert _line(app, "cost") == "cost $0.2500 (prices: data/prices.toml)"
