"""Prices from data/prices.toml: cost per model, unknown model → None, never 0; and the
one sum of tokens and dollars (`Spend`)."""

from __future__ import annotations

from airline_agent.agent.events import TurnStarted, Usage, UsageReported
from airline_agent.agent.usage import (
    Spend,
    add_cost,
    context_window,
    cost_of,
    describe_cost,
    price_of,
    price_table,
)

USAGE = Usage(prompt_tokens=1_000_000, completion_tokens=1_000_000, cached_tokens=0)


def test_the_table_has_real_openai_models():
    assert {"gpt-4o", "gpt-4o-mini", "gpt-4.1"} <= set(price_table())


def test_cost_uses_prompt_cached_and_completion_prices():
    assert cost_of("gpt-4o", USAGE) == 2.50 + 10.00
    cached = Usage(prompt_tokens=1_000_000, completion_tokens=0, cached_tokens=400_000)
    assert cost_of("gpt-4o", cached) == 0.6 * 2.50 + 0.4 * 1.25


def test_an_unknown_model_has_an_unknown_cost_never_zero():
    assert cost_of("gemma-3-270m", USAGE) is None
    assert describe_cost(None) == "cost unknown"
    assert price_of(None) is None


def test_unknown_usage_has_an_unknown_cost():
    assert cost_of("gpt-4o", None) is None


def test_dated_model_versions_and_provider_prefixes_use_the_base_price():
    assert price_of("gpt-4o-2024-08-06") == price_of("gpt-4o")
    assert price_of("openai/gpt-4o-mini") == price_of("gpt-4o-mini")
    assert price_of("gpt-4o-audio-preview") is None  # not silently priced as gpt-4o


def test_context_windows_where_known():
    assert context_window("gpt-4o") == 128000
    assert context_window("llama3") is None


def test_a_total_with_one_unknown_part_is_unknown():
    assert add_cost(0.5, None) is None
    assert add_cost(None, 0.1) is None
    assert add_cost(0.5, 0.25) == 0.75


def test_a_spend_sums_tokens_and_loses_its_cost_to_one_unknown():
    spend = Spend().plus(Usage(10, 2, 4), 0.25).plus(Usage(5, 1), 0.5)
    assert spend == Spend(Usage(15, 3, 4), 0.75, complete=True)
    unpriced = spend.plus(Usage(1, 1), None)
    assert unpriced.usage == Usage(16, 4, 4)
    assert unpriced.cost is None
    assert unpriced.plus(Usage(1, 1), 0.1).cost is None  # unknown stays unknown
    unreported = spend.plus(None, None)
    assert unreported.usage == spend.usage
    assert unreported.complete is False
    assert Spend() == Spend(Usage(), 0.0, complete=True)  # no request spent nothing


def test_the_spend_of_events_counts_only_usage_reports():
    events = [
        UsageReported(1, Usage(10, 2), 0.25, "m", 1.0),
        TurnStarted(2, "again"),
        UsageReported(2, None, None, "m", 1.0),
    ]
    assert Spend.of(events) == Spend(Usage(10, 2), None, complete=False)
