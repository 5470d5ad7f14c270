"""Every tool driven with generated arguments, good and bad: wrong types, missing and extra
arguments, empty strings, malformed ids, negative and huge numbers, SQL metacharacters,
long and non-ASCII strings. Nothing raises; a failure is a clear error result and leaves
the database unchanged; the invariants always hold (no negative seats or balances; an
active reservation's payments add up to its fares, insurance and paid bags, a cancelled
one's to zero).

Hostile values too, for every tool: lone UTF-16 surrogates (in values and in keys),
control characters and NUL, strings of 100,000 characters, lists and objects nested up
to 60,000 deep (as values and as JSON text). Their results are text that can be
encoded (no surrogate reaches a result, SQLite or the screen).

Default: a modest number of examples. AIRLINE_AGENT_SLOW=1 selects a thorough profile.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from airline_agent.domain.db import Database
from airline_agent.tools.conversation import ToolConversation
from airline_agent.tools.outcome import ERROR_CODES
from airline_agent.tools.registry import (
    REGISTRY,
    ArgumentsRejected,
    parse_arguments,
    plain_errors,
    validate,
)
from airline_agent.tools.toolbox import Toolbox
from tests.support.profile import SLOW
from tests.support.world import CLOCK, world

settings.register_profile(
    "fast", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "slow", max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "hostile-fast", max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "hostile-slow", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
PROFILE = "slow" if SLOW else "fast"
HOSTILE_PROFILE = f"hostile-{PROFILE}"  # per tool: 14 times this many examples

WORLD = world()
USERS = sorted(WORLD["users"])
RESERVATIONS = sorted(WORLD["reservations"])
FLIGHTS = sorted(WORLD["flights"])
PAYMENTS = sorted({p for u in WORLD["users"].values() for p in u["payment_methods"]})
DATES = [f"2024-05-{d:02d}" for d in range(13, 31)]

junk_text = st.one_of(
    st.just(""),
    st.just("   "),
    st.sampled_from(
        [
            "'; DROP TABLE reservation; --",
            '" OR 1=1 --',
            "%",
            "_",
            "HAT%",
            "ÉMMA_KIM_9957",
            "航班",
            "x" * 5000,
            "\x00",
            "2024-02-30",
            "24-05-17",
            "null",
        ]
    ),
    st.text(max_size=30),
)
junk_number = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([-1, 0, 10**6, 2**63]),
)
junk = st.one_of(
    junk_text,
    junk_number,
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
    st.just({}),
)


def nested(levels: int, inner: object = "x") -> object:
    """A list nested `levels` deep around `inner` (built without recursion)."""
    value = inner
    for _ in range(levels):
        value = [value]
    return value


def nested_object(levels: int) -> dict:
    value: dict = {"x": 1}
    for _ in range(levels - 1):
        value = {"x": value}
    return value


surrogates = st.characters(categories=["Cs"])
controls = st.characters(categories=["Cc"])
hostile_text = st.one_of(
    # Text holding a lone surrogate somewhere: built so, not filtered (filtering a drawn
    # text failed Hypothesis' health check on a busy machine, for the tools of many fields).
    st.builds(
        lambda before, half, after: before + half + after,
        st.text(st.one_of(surrogates, st.characters()), max_size=10),
        surrogates,
        st.text(st.one_of(surrogates, st.characters()), max_size=9),
    ),
    st.builds(lambda good, half: good + half, st.sampled_from(USERS + RESERVATIONS), surrogates),
    st.sampled_from(["\ud83d", "\ude00", "\ud83d\ude00", "emma_kim_9957\udcff", "\udcff\udcfe"]),
    st.text(controls, min_size=1, max_size=20),
    st.sampled_from(["\x00", "EHGLP3\x00", "\x00" * 1000, "\x1b[2J\x1b[31m", "\r\n\t\x7f"]),
    st.sampled_from(["x" * 100_000, "é" * 50_000, "EHGLP3" * 20_000, "9" * 100_000]),
)
DEEP_VALUES = [nested(33), nested(1_000), nested(60_000), nested_object(40), nested_object(5_000)]
hostile_value = st.one_of(
    hostile_text,
    st.sampled_from(DEEP_VALUES),
    st.lists(hostile_text, min_size=1, max_size=3),
    st.dictionaries(hostile_text, hostile_text, min_size=1, max_size=2),
)
deep_json_text = st.sampled_from(
    [
        '{"user_id": ' + "[" * 60_000 + "]" * 60_000 + "}",
        "[" * 60_000 + "]" * 60_000,
        '{"a": ' * 60_000,
        '{"reservation_id": ' + "[" * 500 + '"EHGLP3"' + "]" * 500 + "}",
        '{"user_id": "\\ud83d"}',  # half a pair, escaped in the JSON text
        '{"user_id": "emma_kim_9957", "\\udcff": 1}',
    ]
)


def mixed(good: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(good, good, junk)


flight_ref = st.fixed_dictionaries(
    {"flight_number": mixed(st.sampled_from(FLIGHTS)), "date": mixed(st.sampled_from(DATES))}
)
passenger = st.fixed_dictionaries(
    {
        "first_name": mixed(st.sampled_from(["Noah", "Zoë", "O'Brien"])),
        "last_name": mixed(st.sampled_from(["Lee", "Núñez"])),
        "dob": mixed(st.sampled_from(["1980-01-01", "2001-12-31"])),
    }
)
payment_line = st.fixed_dictionaries(
    {
        "payment_id": mixed(st.sampled_from(PAYMENTS)),
        "amount": mixed(st.integers(min_value=0, max_value=900)),
    }
)

GOOD = {
    "user_id": st.sampled_from(USERS),
    "reservation_id": st.sampled_from(RESERVATIONS + [r.lower() for r in RESERVATIONS]),
    "flight_number": st.sampled_from(FLIGHTS),
    "date": st.sampled_from(DATES),
    "origin": st.sampled_from(["PHX", "SEA", "JFK", "ATL"]),
    "destination": st.sampled_from(["PHX", "SEA", "JFK", "ATL"]),
    "cabin": st.sampled_from(["basic_economy", "economy", "business"]),
    "flight_type": st.sampled_from(["one_way", "round_trip"]),
    "insurance": st.sampled_from(["yes", "no"]),
    "payment_id": st.sampled_from(PAYMENTS),
    "amount": st.integers(min_value=1, max_value=500),
    "total_baggages": st.integers(min_value=0, max_value=6),
    "nonfree_baggages": st.integers(min_value=0, max_value=6),
    "flights": st.lists(flight_ref, min_size=1, max_size=3),
    "passengers": st.lists(passenger, min_size=1, max_size=3),
    "payment_methods": st.lists(payment_line, min_size=1, max_size=3),
    "expression": st.sampled_from(["2 + 2", "(100 - 3) / 7", "1/0", "9" * 400, "2**3"]),
    "summary": st.text(max_size=50),
    "reason": st.sampled_from(
        ["change_of_plan", "health", "weather", "cancelled_flight", "delayed_flight"]
    ),
}

_toolbox = Toolbox.__new__(Toolbox)
SCHEMAS = {s["function"]["name"]: s["function"]["parameters"] for s in _toolbox.schemas()}


@st.composite
def tool_call(draw: st.DrawFn) -> tuple[str, object]:
    name = draw(st.sampled_from(sorted(SCHEMAS)))
    properties = SCHEMAS[name]["properties"]
    arguments = {}
    for parameter in properties:
        if draw(st.integers(0, 9)) == 0:
            continue  # a missing argument
        arguments[parameter] = draw(mixed(GOOD.get(parameter, junk_text)))
    if draw(st.integers(0, 9)) == 0:
        arguments[draw(st.sampled_from(["extra", "user", "id"]))] = draw(junk)
    shape = draw(st.integers(0, 19))
    if shape == 0:
        return name, draw(st.sampled_from(["{", "[1]", "null", '"text"', "{'a': 1}", ""]))
    return name, arguments


def _rows(path: Path) -> list:
    with sqlite3.connect(path) as connection:
        tables = [
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        ]
        return [
            (t, sorted(map(repr, connection.execute(f'SELECT * FROM "{t}"'))))
            for t in sorted(tables)
        ]


def _check_invariants(path: Path, *, strict_payments: bool) -> None:
    with sqlite3.connect(path) as db:
        seats = db.execute(
            "SELECT count(*) FROM flightdate WHERE seats_basic_economy < 0 OR seats_economy < 0 "
            "OR seats_business < 0"
        ).fetchone()[0]
        assert seats == 0, "negative seats"
        balances = db.execute("SELECT count(*) FROM paymentmethod WHERE amount < 0").fetchone()[0]
        assert balances == 0, "negative balance"
        rows = db.execute(
            """SELECT r.reservation_id, r.status, r.insurance, r.nonfree_baggages,
                      (SELECT count(*) FROM reservationpassenger p
                        WHERE p.reservation_id = r.reservation_id),
                      (SELECT coalesce(sum(price), 0) FROM reservationflight f
                        WHERE f.reservation_id = r.reservation_id),
                      (SELECT coalesce(sum(amount), 0) FROM payment m
                        WHERE m.reservation_id = r.reservation_id)
               FROM reservation r"""
        ).fetchall()
    for rid, status, insurance, nonfree, passengers, fares, paid in rows:
        if status == "cancelled":
            assert abs(paid) < 1e-6, (rid, paid)
        elif strict_payments:
            price = (
                fares * passengers + (30 * passengers if insurance == "yes" else 0) + 50 * nonfree
            )
            assert abs(paid - price) < 1e-6, (rid, paid, price)


@st.composite
def hostile_call(draw: st.DrawFn, name: str) -> object:
    """Arguments for tool `name` where some values (or keys, or the JSON text) are hostile."""
    if draw(st.integers(0, 5)) == 0:
        return draw(deep_json_text)
    arguments: dict = {}
    for parameter in SCHEMAS[name]["properties"]:
        good = GOOD.get(parameter, junk_text)
        arguments[parameter] = draw(st.one_of(good, hostile_value, hostile_value))
    if not arguments or draw(st.integers(0, 4)) == 0:  # a hostile name of an argument
        arguments[draw(hostile_text)] = draw(st.one_of(hostile_text, st.just(1)))
    return arguments


def _check_outcome(path: Path, name: str, outcome, before: list) -> None:
    text = outcome.content()  # serialisable
    text.encode("utf-8")  # and printable: no lone surrogate in any result
    if outcome.error is not None:
        assert outcome.error in ERROR_CODES
        assert outcome.error != "INTERNAL_ERROR", outcome.result
        assert isinstance(outcome.result["message"], str) and outcome.result["message"]
        assert _rows(path) == before, (name, outcome.result)
        assert outcome.changes == ()


@settings.get_profile(HOSTILE_PROFILE)
@given(data=st.data(), guard=st.booleans())
@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_hostile_values_give_every_tool_a_result_it_can_print(
    world_template: Path, tmp_path_factory, name: str, data, guard: bool
) -> None:
    path = tmp_path_factory.mktemp("hostile") / "world.db"
    shutil.copyfile(world_template, path)
    database = Database.open(path)
    try:
        toolbox = Toolbox(database, clock=CLOCK, guard=guard)
        conversation = ToolConversation(customer=data.draw(st.sampled_from([None, *USERS])))
        arguments = data.draw(hostile_call(name))
        before = _rows(path)
        outcome = toolbox.call(name, arguments, conversation)
        _check_outcome(path, name, outcome, before)
        _check_invariants(path, strict_payments=guard)
    finally:
        database.close()


@settings.get_profile(PROFILE)
@given(calls=st.lists(tool_call(), min_size=1, max_size=3), guard=st.booleans())
def test_any_arguments_give_a_result_and_keep_the_invariants(
    world_template: Path, tmp_path_factory, calls, guard: bool
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "world.db"
    shutil.copyfile(world_template, path)
    database = Database.open(path)
    try:
        toolbox = Toolbox(database, clock=CLOCK, guard=guard)
        conversation = ToolConversation()
        for name, arguments in calls:
            if guard and isinstance(arguments, dict) and isinstance(arguments.get("user_id"), str):
                conversation.customer = arguments["user_id"]
            before = _rows(path)
            outcome = toolbox.call(name, arguments, conversation)
            _check_outcome(path, name, outcome, before)
            _check_invariants(path, strict_payments=guard)
    finally:
        database.close()


@settings.get_profile("slow")  # no database: hundreds of examples take seconds
@given(call=tool_call(), data=st.data())
def test_arguments_are_checked_exactly_as_their_model_checks_them(call, data) -> None:
    """`registry.validate` is the argument model's own validation: it accepts what the
    model accepts, giving its fields as the tool's keyword arguments, and refuses what it
    refuses, with the same errors (which `plain_errors` words)."""
    name, arguments = call
    if not isinstance(arguments, dict):
        return  # JSON text is parsed before validation; parse_arguments has its own tests
    if data.draw(st.booleans(), label="hostile"):  # text that parse_arguments lets through
        arguments = {
            **arguments,
            **data.draw(
                st.dictionaries(
                    st.sampled_from([*SCHEMAS[name]["properties"], "extra"]),
                    hostile_text,
                    max_size=2,
                )
            ),
        }
    try:
        arguments = parse_arguments(arguments)
    except ArgumentsRejected:
        return
    spec = REGISTRY[name]
    try:
        expected = dict(vars(spec.arguments.model_validate(arguments)))
    except ValidationError as refused:
        with pytest.raises(ArgumentsRejected) as rejected:
            validate(spec, arguments)
        assert rejected.value.result == {
            "error": "INVALID_ARGUMENTS",
            "message": f"{name}: {plain_errors(spec, refused)}",
        }
        return
    assert validate(spec, arguments) == expected
