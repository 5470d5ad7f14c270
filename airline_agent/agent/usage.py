"""Token usage and what it cost, from the price table in `data/prices.toml`.

An unknown model has an unknown cost (`None`), shown as "cost unknown" — never as $0,
which would be a lie for a paid model and a guess for a local one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from airline_agent.agent.events import AgentEvent, Usage, UsageReported
from airline_agent.project import PROJECT_ROOT

PRICES_FILE = PROJECT_ROOT / "data" / "prices.toml"
_DATED = re.compile(r"-\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per 1 million tokens."""

    prompt: float
    cached: float
    completion: float
    context_window: int | None = None


@lru_cache(maxsize=4)
def price_table(path: Path = PRICES_FILE) -> dict[str, Price]:
    # Read once a cost is priced: the TUI's first screen does not wait for tomllib.
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    table: dict[str, Price] = {}
    for name, entry in (data.get("models") or {}).items():
        try:
            prompt = float(entry["prompt"])
            table[name] = Price(
                prompt=prompt,
                cached=float(entry.get("cached", prompt)),
                completion=float(entry["completion"]),
                context_window=entry.get("context_window"),
            )
        except (KeyError, TypeError, ValueError):
            continue  # a broken entry makes that model "unknown", not the whole table
    return table


def price_of(model: str | None, table: dict[str, Price] | None = None) -> Price | None:
    """The model's price: exact name, then without a provider prefix or a date suffix."""
    if not model:
        return None
    table = price_table() if table is None else table
    for name in (model, model.rsplit("/", 1)[-1]):
        if name in table:
            return table[name]
        base = _DATED.sub("", name)
        if base in table:
            return table[base]
    return None


def cost_of(model: str | None, usage: Usage | None) -> float | None:
    """US dollars for `usage` on `model`; None when the model or the usage is unknown."""
    if usage is None:
        return None
    price = price_of(model)
    if price is None:
        return None
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    fresh = usage.prompt_tokens - cached
    return (
        fresh * price.prompt + cached * price.cached + usage.completion_tokens * price.completion
    ) / 1_000_000


def context_window(model: str | None) -> int | None:
    price = price_of(model)
    return price.context_window if price else None


def add_cost(total: float | None, cost: float | None) -> float | None:
    """Sum costs; once one part is unknown, the total is unknown too."""
    if total is None or cost is None:
        return None
    return total + cost


NO_USAGE = Usage()  # one zero, shared: safe, as a `Usage` cannot change


@dataclass(frozen=True, slots=True)
class Spend:
    """What some model requests used and cost, summed: the one place tokens and dollars
    are added up, for a turn, a conversation, a cancelled turn, a trial's agent and its
    simulated customer.

    Tokens are summed over the requests that reported usage (`complete` says whether all
    did); the cost becomes unknown (None) with the first request whose cost is unknown —
    never a guess, never $0 for a paid model. No request at all spent nothing."""

    usage: Usage = NO_USAGE
    cost: float | None = 0.0
    complete: bool = True

    def plus(self, usage: Usage | None, cost: float | None) -> Spend:
        return Spend(
            self.usage if usage is None else self.usage + usage,
            add_cost(self.cost, cost),
            self.complete and usage is not None,
        )

    @classmethod
    def of(cls, events: Iterable[AgentEvent]) -> Spend:
        """The spend of the requests these events report."""
        spend = cls()
        for event in events:
            if isinstance(event, UsageReported):
                spend = spend.plus(event.usage, event.cost)
        return spend


def describe_cost(cost: float | None) -> str:
    if cost is None:
        return "cost unknown"
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


def describe_usage(usage: Usage | None) -> str:
    if usage is None:
        return "tokens unknown"
    parts = [f"{usage.prompt_tokens} in"]
    if usage.cached_tokens:
        parts.append(f"{usage.cached_tokens} cached")
    parts.append(f"{usage.completion_tokens} out")
    if usage.reasoning_tokens:
        parts.append(f"{usage.reasoning_tokens} reasoning")
    return " / ".join(parts) + " tokens"
