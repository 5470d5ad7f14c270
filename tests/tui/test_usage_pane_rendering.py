"""What the usage pane draws, line by line, for each kind of request and conversation:
a request's row (counts, time, first-token time and speed), a turn's subtotal and cost,
the totals, the cost line's four cases and the context bar. The pane is mounted alone in
a small app and fed events, as the main screen feeds it (the words and figures, not only
the reset, are what a reader of the pane relies on)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from airline_agent.agent.conversation import Conversation
from airline_agent.agent.events import TurnFinished, Usage, UsageReported
from airline_agent.agent.usage import Spend
from airline_agent.tui.shown import show_in_usage
from airline_agent.tui.widgets.usage_pane import UNKNOWN_CONTEXT, UsagePane

ONE = Usage(prompt_tokens=3_210, completion_tokens=207, cached_tokens=2_816, reasoning_tokens=89)
TWO = Usage(prompt_tokens=1_050, completion_tokens=13)


class PaneApp(App[None]):
    def compose(self) -> ComposeResult:
        yield UsagePane(id="usage")


def _lines(app: PaneApp) -> dict[str, str]:
    pane = app.query_one(UsagePane)
    return {
        name: str(pane.query_one(f"#usage-{name}").render()).rstrip()
        for name in ("header", "totals", "cost", "context")
    }


def _conversation(*reports: UsageReported) -> Conversation:
    conversation = Conversation()
    for report in reports:
        conversation.requests += 1
        conversation.count_usage(report.usage, report.cost)
    return conversation


def _report(request: int, usage: Usage | None, cost: float | None, **extra) -> UsageReported:
    return UsageReported(request, usage, cost, "gpt-4o-mini", 812.4, **extra)


async def test_an_empty_pane_shows_the_columns_and_no_cost() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)):
        lines = _lines(app)
        assert lines["header"] == "req     prompt cached compl  reas       ms"
        assert lines["totals"] == "total        0      0     0     0    0 req"
        assert lines["cost"] == "cost —"
        assert lines["context"] == UNKNOWN_CONTEXT
        assert app.query_one(UsagePane).table.lines() == []


async def test_a_streamed_request_and_its_turn_are_drawn_with_their_figures() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)):
        first = _report(
            1, ONE, 0.0012, context_window=128_000, first_token_ms=95.0, tokens_per_second=41.25
        )
        conversation = _conversation(first)
        pane = app.query_one(UsagePane)
        show_in_usage(pane, [first, TurnFinished(1, "answered", ONE, 0.0012)], conversation)
        assert pane.table.lines() == [
            "#1       3,210  2,816   207    89      812",
            "  first token 95 ms · 41.2 tok/s",
            "turn 1   3,210  2,816   207    89",
            "  cost $0.0012",
        ]
        lines = _lines(app)
        assert lines["totals"] == "total    3,210  2,816   207    89    1 req"
        assert lines["cost"] == "cost $0.0012 (prices: data/prices.toml)"
        assert lines["context"] == "context 3,210 / 128,000 (3%) ━━━━━━━━━━"
        assert pane.table.row_count == 2


async def test_a_scripted_request_says_so_and_no_speed() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)):
        scripted = _report(1, TWO, None, scripted=True, first_token_ms=5.0)
        pane = app.query_one(UsagePane)
        show_in_usage(pane, [scripted], _conversation(scripted))
        assert pane.table.lines() == ["#1       1,050      0    13     0 scripted"]
        assert _lines(app)["cost"] == "cost unknown: no price for gpt-4o-mini in data/prices.toml"
        assert _lines(app)["context"] == UNKNOWN_CONTEXT  # no window known for the request


async def test_a_response_without_usage_has_dashes_and_makes_the_cost_unknown() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)):
        priced = _report(1, TWO, 0.5)
        bare = _report(2, None, None, context_window=8_192)
        conversation = _conversation(priced, bare)
        pane = app.query_one(UsagePane)
        show_in_usage(pane, [priced, bare, TurnFinished(1, "answered", TWO, None)], conversation)
        assert pane.table.lines() == [
            "#1       1,050      0    13     0      812",
            "#2           —      —     —     —      812",
            "turn 1   1,050      0    13     0",
            "  cost unknown",
        ]
        lines = _lines(app)
        assert lines["totals"] == "total    1,050      0    13     0    2 req"
        assert lines["cost"] == "cost unknown: a response came without usage"
        assert lines["context"] == UNKNOWN_CONTEXT  # the last request said no figure


async def test_the_context_bar_fills_in_proportion_and_stops_at_the_window() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)):
        pane = app.query_one(UsagePane)
        half = _report(1, Usage(prompt_tokens=4_096), 0.1, context_window=8_192)
        show_in_usage(pane, [half], _conversation(half))
        assert _lines(app)["context"] == "context 4,096 / 8,192 (50%) ━━━━━━━━━━"
        bar = pane.query_one("#usage-context").render()
        assert [str(span.style) for span in bar.spans] == ["bold", "dim"]
        assert [bar.plain[span.start : span.end] for span in bar.spans] == ["━" * 5, "━" * 5]
        over = _report(2, Usage(prompt_tokens=9_000), 0.1, context_window=8_192)
        show_in_usage(pane, [over], _conversation(half, over))
        bar = pane.query_one("#usage-context").render()
        assert bar.plain == "context 9,000 / 8,192 (100%) ━━━━━━━━━━"
        first = bar.spans[0]
        assert (bar.plain[first.start : first.end], str(first.style)) == ("━" * 10, "bold")


async def test_a_cost_of_a_dollar_or_more_has_cents_and_clear_empties_the_pane() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)):
        pane = app.query_one(UsagePane)
        dear = _report(1, ONE, 2.5, context_window=128_000)
        show_in_usage(pane, [dear], _conversation(dear))
        assert _lines(app)["cost"] == "cost $2.50 (prices: data/prices.toml)"
        fresh = Conversation()
        assert fresh.spend == Spend()
        pane.clear(fresh)
        assert pane.table.lines() == []
        assert pane.table.row_count == 0
        lines = _lines(app)
        assert lines["totals"] == "total        0      0     0     0    0 req"
        assert lines["cost"] == "cost —"
        assert lines["context"] == UNKNOWN_CONTEXT


async def test_the_pane_is_titled_usage_and_its_table_is_the_one_f2_focuses() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)):
        pane = app.query_one(UsagePane)
        assert pane.border_title == "Usage"
        # tui/widgets/pane_switcher.py focuses the pane's table by this id, app.tcss sizes it.
        assert pane.query_one("#usage-table") is pane.table


async def test_a_model_name_holding_brackets_is_shown_as_written_not_read_as_markup() -> None:
    app = PaneApp()
    async with app.run_test(size=(90, 20)):
        report = UsageReported(1, TWO, None, "qwen[/b][bold]-7b", 20.0, scripted=True)
        show_in_usage(app.query_one(UsagePane), [report], _conversation(report))
        assert _lines(app)["cost"] == (
            "cost unknown: no price for qwen[/b][bold]-7b in data/prices.toml"
        )


async def test_a_turns_subtotal_is_bold_and_a_requests_row_is_not() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)) as pilot:
        first = _report(1, ONE, 0.0012)
        pane = app.query_one(UsagePane)
        show_in_usage(pane, [first, TurnFinished(1, "answered", ONE, 0.0012)], _conversation(first))
        await pilot.pause()
        rows = [pane.table.render_line(y) for y in range(3)]
        assert [strip.text.split()[0] for strip in rows] == ["#1", "turn", "cost"]

        def bold(strip) -> bool:
            return any(segment.style is not None and segment.style.bold for segment in strip)

        assert [bold(strip) for strip in rows] == [False, True, False]


async def test_a_streamed_request_without_a_speed_shows_only_its_first_token_time() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)):
        report = _report(1, TWO, 0.01, first_token_ms=95.0, tokens_per_second=None)
        pane = app.query_one(UsagePane)
        show_in_usage(pane, [report], _conversation(report))
        assert pane.table.lines() == [
            "#1       1,050      0    13     0      812",
            "  first token 95 ms",
        ]


async def test_clear_shows_the_totals_of_the_conversation_it_is_given() -> None:
    app = PaneApp()
    async with app.run_test(size=(60, 20)):
        pane = app.query_one(UsagePane)
        earlier = _report(1, ONE, 0.0012)
        pane.clear(_conversation(earlier))  # a conversation shown anew, its requests made
        lines = _lines(app)
        assert lines["totals"] == "total    3,210  2,816   207    89    1 req"
        assert lines["cost"] == "cost $0.0012 (prices: data/prices.toml)"
        assert pane.table.lines() == []


async def test_a_row_past_the_bottom_is_scrolled_into_view_with_the_row_itself() -> None:
    # At once, in the row's frame: a scroll deferred past the refresh painted the pane a
    # second time, a frame later (a frame per request while a fast scenario plays).
    app = PaneApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(UsagePane).table
        for n in range(1, 30):
            table.add_row(f"#{n}", ["1"] * 5)
        await pilot.pause()
        assert table.max_scroll_y > 0
        assert table.scroll_y == table.max_scroll_y
        table.add_row("#30", ["1"] * 5)
        assert table.scroll_y == table.max_scroll_y  # no refresh in between
        table.scroll_home(animate=False, immediate=True)
        table.add_row("#31", ["1"] * 5)
        assert table.scroll_y == 0  # scrolled up: left where it is
