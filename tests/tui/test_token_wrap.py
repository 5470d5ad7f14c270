"""Trace rows wrap at the pane's width without splitting a token: a header's meta
("tool_calls · 60 ms") and a request's parameters ("stream_options={'include_usage':
True}") stay whole on one line when they fit; a token wider than the line wraps at its own
spaces (nothing is cut off)."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from airline_agent.tui.trace import TraceEntry
from airline_agent.tui.widgets.token_wrap import wrap_whole_tokens
from airline_agent.tui.widgets.trace_pane import TracePane, render_entry
from tests.tui.helpers import wait_until

WHOLE = ["tool_calls", "· 60 ms", "stream_options={'include_usage': True}", "4 messages"]
ENTRIES = [
    TraceEntry("model", "response #1 · 1 tool call", meta="tool_calls · 60 ms"),
    TraceEntry(
        "api",
        "request #1 → gpt-4o-mini",
        body="4 messages · 3 tools\ntool_choice=auto, stream=True, "
        "stream_options={'include_usage': True}",
    ),
]


def _kept_whole(lines: list[str], token: str) -> bool:
    """The token is on one line; or, wider than every line, it wraps with nothing lost
    (it used to be cut with an ellipsis: issue 19 item 18)."""
    if any(token in line for line in lines):
        return True
    wider = len(token) > max(len(line.strip()) for line in lines)
    return wider and token.replace(" ", "") in "".join(lines).replace(" ", "")


@pytest.mark.parametrize("width", [18, 24, 30, 33, 40, 52, 70])
def test_rows_wrap_without_splitting_a_token(width: int) -> None:
    for entry in ENTRIES:
        lines = [
            line.plain.replace("\xa0", " ")
            for line in wrap_whole_tokens(render_entry(entry), width)
        ]
        assert all(len(line) <= width for line in lines), lines
        for token in WHOLE:
            if token in entry.meta + entry.body:
                assert _kept_whole(lines, token), (width, token, lines)


def test_a_token_wider_than_the_line_wraps_at_its_spaces_then_folds_nothing_cut() -> None:
    # Issue 19 item 18: it was cut with an ellipsis (["get_reservation_det…"]), the
    # arguments lost; the line that matters most for teaching now wraps whole.
    call = 'get_reservation_details({"reservation_id": "EHGLP3", "reason": "other"})'
    for width in (20, 30):
        lines = [line.plain for line in wrap_whole_tokens(Text(call), width)]
        assert all(len(line) <= width for line in lines), lines
        assert "".join(lines).replace(" ", "") == call.replace(" ", "")  # every character
    assert lines == [
        "get_reservation_details({",
        '"reservation_id": "EHGLP3",',
        '"reason": "other"})',
    ]
    # A word wider than the whole line is folded, after a bracket where one falls in it.
    lines = [line.plain for line in wrap_whole_tokens(Text(call), 20)]
    assert lines[:2] == ["get_reservation_deta", "ils({"]


def test_indentation_is_kept_on_every_wrapped_line() -> None:
    lines = wrap_whole_tokens(Text('  "reason": "change of plan and a long reason"'), 24)
    assert all(line.plain.startswith("  ") for line in lines)
    assert (
        " ".join(line.plain.strip() for line in lines)
        == '"reason": "change of plan and a long reason"'
    )


class TraceOnly(App[None]):
    def compose(self) -> ComposeResult:
        yield TracePane(id="trace")


@pytest.mark.parametrize("columns", [30, 44])
async def test_the_trace_pane_draws_rows_without_splitting_a_token(columns: int) -> None:
    app = TraceOnly()
    async with app.run_test(size=(columns, 20)) as pilot:
        pane = app.query_one(TracePane)
        pane.add_entries(ENTRIES)
        await wait_until(pilot, lambda: pane.option_count == len(ENTRIES))
        await pilot.pause()
        lines = [
            "".join(segment.text for segment in strip).replace("\xa0", " ").strip(" ▊▎")
            for strip in app.screen._compositor.render_strips()
        ]
        for token in WHOLE:
            assert _kept_whole(lines, token), (token, lines)
