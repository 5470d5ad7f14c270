"""An oversized or non-finite number in any numeric tool argument — a 5,000-digit integer
(past Python's 4,300-digit conversion limit), `1e309`, `Infinity`, `NaN`, a huge float —
is an INVALID_ARGUMENTS result naming the problem, whether it comes as JSON text (a
model's arguments, `call`) or as a value (an MCP client), and never a traceback; `call`
says it as bad usage (exit 2)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from airline_agent.cli import app
from airline_agent.domain.db import Database
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.toolbox import Toolbox
from tests.support.profile import SLOW
from tests.support.world import CLOCK

EXAMPLES = 300 if SLOW else 30
PASSENGER = {"first_name": "Ada", "last_name": "Lovelace", "dob": "1990-01-01"}
# Each tool with a numeric argument: arguments valid in every other respect, with
# NUMBER where the number goes (json paths: "payment_methods.0.amount").
VALID: dict[str, dict[str, Any]] = {
    "send_certificate": {"user_id": "emma_kim_9957", "amount": 50},
    "book_reservation": {
        "user_id": "emma_kim_9957",
        "origin": "PHX",
        "destination": "SEA",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT156", "date": "2024-05-20"}],
        "passengers": [PASSENGER],
        "payment_methods": [{"payment_id": "credit_card_1", "amount": 100}],
        "total_baggages": 0,
        "nonfree_baggages": 0,
        "insurance": "no",
    },
    "update_reservation_baggages": {
        "reservation_id": "EHGLP3",
        "total_baggages": 1,
        "nonfree_baggages": 0,
        "payment_id": "credit_card_1",
    },
}
NUMERIC: list[tuple[str, str]] = [
    ("send_certificate", "amount"),
    ("book_reservation", "payment_methods.0.amount"),
    ("book_reservation", "total_baggages"),
    ("book_reservation", "nonfree_baggages"),
    ("update_reservation_baggages", "total_baggages"),
    ("update_reservation_baggages", "nonfree_baggages"),
]
# Written into JSON text as they stand (json.dumps cannot write most of them).
HOSTILE_TEXT = st.one_of(
    st.integers(min_value=21, max_value=6_000).map(lambda digits: "9" * digits),
    st.integers(min_value=4_301, max_value=6_000).map(lambda digits: "-" + "1" * digits),
    st.sampled_from(["1e309", "-1e309", "1E400", "Infinity", "-Infinity", "NaN", "1e308"]),
    st.integers(min_value=310, max_value=5_000).map(lambda digits: "1" * digits + ".5"),
)
HOSTILE_VALUE = st.one_of(
    st.integers(min_value=7, max_value=6_000).map(lambda digits: 10**digits),
    st.integers(min_value=7, max_value=6_000).map(lambda digits: -(10**digits)),
    st.sampled_from([math.inf, -math.inf, math.nan, 1e308, -1e308, 1e7]),
)


def _numeric_schema_paths() -> set[tuple[str, str]]:
    """Every numeric argument the schemas declare, as (tool, json path)."""
    from airline_agent.tools.registry import REGISTRY

    found: set[tuple[str, str]] = set()

    def walk(tool: str, node: dict[str, Any], path: str) -> None:
        if node.get("type") in ("integer", "number"):
            found.add((tool, path))
        for name, child in node.get("properties", {}).items():
            walk(tool, child, f"{path}.{name}" if path else name)
        if isinstance(node.get("items"), dict):
            walk(tool, node["items"], f"{path}.0")

    for name, spec in REGISTRY.items():
        walk(name, spec.schema()["function"]["parameters"], "")
    return found


def test_every_numeric_argument_is_covered() -> None:
    assert _numeric_schema_paths() == set(NUMERIC)


@pytest.fixture(scope="module")
def tools(world_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Toolbox]:
    copy = tmp_path_factory.mktemp("numbers") / "world.db"
    copy.write_bytes(world_template.read_bytes())
    database = Database.open(copy)
    yield Toolbox(database, clock=CLOCK, guard=True)
    database.close()


def _with(tool: str, path: str, number: object) -> dict[str, Any]:
    arguments = json.loads(json.dumps(VALID[tool]))
    *parents, last = path.split(".")
    node: Any = arguments
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    node[last] = number
    return arguments


MARK = "__NUMBER__"


def _as_text(tool: str, path: str, number_text: str) -> str:
    return json.dumps(_with(tool, path, MARK)).replace(f'"{MARK}"', number_text)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(NUMERIC), number=HOSTILE_TEXT)
def test_an_oversized_number_in_json_text_is_invalid_arguments(
    tools: Toolbox, where: tuple[str, str], number: str
) -> None:
    tool, path = where
    outcome = tools.call(tool, _as_text(tool, path, number), ToolConversation())
    assert outcome.error == "INVALID_ARGUMENTS", outcome.result
    json.dumps(outcome.result)  # the result can be shown and stored


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(NUMERIC), number=HOSTILE_VALUE)
def test_an_oversized_number_as_a_value_is_invalid_arguments(
    tools: Toolbox, where: tuple[str, str], number: float
) -> None:
    tool, path = where
    outcome = tools.call(tool, _with(tool, path, number), ToolConversation())
    assert outcome.error == "INVALID_ARGUMENTS", outcome.result
    json.dumps(outcome.result)


def test_the_valid_arguments_are_valid(tools: Toolbox) -> None:
    """The base of the tests above fails for its number alone: with a fine number, the
    arguments pass validation (whatever the tool then answers)."""
    for tool, arguments in VALID.items():
        outcome = tools.call(tool, dict(arguments), ToolConversation())
        assert outcome.error != "INVALID_ARGUMENTS", (tool, outcome.result)


@pytest.mark.parametrize(
    "number", ["9" * 5000, "1e309", "NaN", "-Infinity"], ids=["5000-digits", "1e309", "NaN", "-inf"]
)
def test_call_says_an_oversized_number_is_bad_usage(number: str) -> None:
    arguments = f'{{"user_id": "emma_kim_9957", "amount": {number}}}'
    result = CliRunner().invoke(app, ["call", "send_certificate", arguments])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    [line] = result.output.strip().splitlines()
    assert line.startswith("error: ") and "number" in line and len(line) < 300, line
