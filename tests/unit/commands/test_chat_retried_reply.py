"""Issue 19 item 12: the chat prints a retried reply once.

A request retried after part of its answer was shown starts its answer again; the chat,
which cannot take back what it printed, prints only what goes beyond it, and says so
when the retried answer is another one (it then prints that one whole).
"""

from __future__ import annotations

import io

from airline_agent.agent import events as ev
from airline_agent.commands.chat.output import Output
from airline_agent.commands.chat.printer import Printer
from airline_agent.redaction import Redactor


def printed(*events: ev.AgentEvent) -> str:
    out = io.StringIO()
    printer = Printer(Output(out, Redactor()), Output(io.StringIO(), Redactor()))
    for event in events:
        printer.show(event)
    return out.getvalue()


def retry(pieces_shown: int = 2) -> ev.RetryScheduled:
    return ev.RetryScheduled(1, 0.5, "cut off", request=1, pieces_shown=pieces_shown)


def message(text: str) -> ev.AssistantMessage:
    return ev.AssistantMessage(1, text, (), None, "stop", 10.0)


def deltas(*texts: str) -> list[ev.TextDelta]:
    return [ev.TextDelta(1, text) for text in texts]


def test_a_retry_that_repeats_the_start_prints_only_the_rest():
    shown = printed(
        *deltas("Your", " reser"),
        ev.ResponseStalled(1, 20.0, 2),
        retry(),
        *deltas("Your", " reservation", " is confirmed."),
        message("Your reservation is confirmed."),
    )
    assert shown.count("Your") == 1
    assert "  … no data for 20 s, after 2 pieces of the answer; still waiting…\n" in shown
    assert shown.endswith("agent> …vation is confirmed.\n")


def test_a_retry_with_another_answer_says_so_and_prints_it_whole():
    shown = printed(
        *deltas("Your", " reser"),
        retry(),
        *deltas("Sorry,", " EHGLP3 is cancelled."),
        message("Sorry, EHGLP3 is cancelled."),
    )
    assert "the retried answer differs from the part shown above" in shown
    assert shown.endswith("agent> Sorry, EHGLP3 is cancelled.\n")


def test_a_retry_shorter_than_what_was_shown_says_so_and_prints_it_whole():
    shown = printed(
        *deltas("Your", " reservation", " is"),
        retry(3),
        *deltas("Your"),
        message("Your"),
    )
    assert "the retried answer is shorter than the part shown above" in shown
    assert shown.endswith("agent> Your\n")


def test_a_retry_before_any_text_changes_nothing():
    shown = printed(retry(0), *deltas("Hello", " there."), message("Hello there."))
    assert "agent> Hello there.\n" in shown and "whole" not in shown
