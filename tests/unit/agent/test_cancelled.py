"""`cancelled_turn`: the `TurnFinished` a front end makes for a turn it cancelled, with
the usage of what was answered and a cost that is known only when every request sent was
answered (a provider may bill a request cut off mid-answer)."""

from __future__ import annotations

from airline_agent.agent.cancelled import cancelled_turn
from airline_agent.agent.events import RequestSent, TurnFinished, TurnStarted, Usage, UsageReported


def _sent(turn: int, request: int) -> RequestSent:
    return RequestSent(turn, request, "m", [], [], {})


def _reported(request: int, usage: Usage | None, cost: float | None) -> UsageReported:
    return UsageReported(request, usage, cost, "m", 1.0)


def test_only_the_last_turns_answered_requests_count() -> None:
    events = [
        TurnStarted(1, "hi"),
        _sent(1, 1),
        _reported(1, Usage(100, 10), 0.5),
        TurnStarted(2, "again"),
        _sent(2, 2),
        _reported(2, Usage(7, 3), 0.25),
        _sent(2, 3),
        _reported(3, Usage(1, 1), 0.25),
    ]
    assert cancelled_turn(events) == TurnFinished(2, "cancelled", Usage(8, 4), 0.5)


def test_a_request_cut_off_makes_the_cost_unknown_but_keeps_the_answered_usage() -> None:
    events = [TurnStarted(1, "hi"), _sent(1, 1), _reported(1, Usage(7, 3), 0.25), _sent(1, 2)]
    assert cancelled_turn(events) == TurnFinished(1, "cancelled", Usage(7, 3), None)


def test_nothing_reported_is_an_unknown_cost_not_zero() -> None:
    assert cancelled_turn([TurnStarted(1, "hi")]) == TurnFinished(1, "cancelled", Usage(), None)
    assert cancelled_turn([TurnStarted(1, "hi"), _sent(1, 1)]).cost is None


def test_one_unpriced_request_makes_the_cost_unknown() -> None:
    events = [TurnStarted(1, "hi"), _sent(1, 1), _reported(1, Usage(7, 3), None)]
    assert cancelled_turn(events) == TurnFinished(1, "cancelled", Usage(7, 3), None)
