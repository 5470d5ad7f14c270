"""Issue 12: the tool schemas advertise what a model needs to call a tool right and
nothing else; the limits they no longer advertise are still enforced by validation.

The τ² names, parameters, required lists and enums are pinned here against the
benchmark's signatures (plus our two optional guard parameters), so slimming the schemas
cannot drift from τ² compatibility."""

from __future__ import annotations

import json

import pytest

from airline_agent.tools.registry import REGISTRY, UNADVERTISED, advertised
from airline_agent.tools.toolbox import Toolbox
from tests.support.toolbox_fixtures import toolbox

SCHEMAS = {s["function"]["name"]: s["function"] for s in Toolbox.__new__(Toolbox).schemas()}

# τ²-bench airline tools: parameters in signature order, and which are required.
TAU2_PARAMETERS = {
    "get_user_details": ["user_id"],
    "get_reservation_details": ["reservation_id"],
    "list_all_airports": [],
    "search_direct_flight": ["origin", "destination", "date"],
    "search_onestop_flight": ["origin", "destination", "date"],
    "get_flight_status": ["flight_number", "date"],
    "calculate": ["expression"],
    "transfer_to_human_agents": ["summary"],
    "book_reservation": [
        "user_id",
        "origin",
        "destination",
        "flight_type",
        "cabin",
        "flights",
        "passengers",
        "payment_methods",
        "total_baggages",
        "nonfree_baggages",
        "insurance",
    ],
    "cancel_reservation": ["reservation_id"],
    "update_reservation_flights": ["reservation_id", "cabin", "flights", "payment_id"],
    "update_reservation_baggages": [
        "reservation_id",
        "total_baggages",
        "nonfree_baggages",
        "payment_id",
    ],
    "update_reservation_passengers": ["reservation_id", "passengers"],
    "send_certificate": ["user_id", "amount"],
}
OURS_OPTIONAL = {"cancel_reservation": ["reason"], "send_certificate": ["reservation_id", "reason"]}


def _keywords(node: object, found: set[str]) -> set[str]:
    """Every JSON-schema keyword used (property names are not keywords)."""
    if isinstance(node, list):
        for item in node:
            _keywords(item, found)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "properties":
                for prop in value.values():
                    _keywords(prop, found)
            else:
                found.add(key)
                _keywords(value, found)
    return found


def test_no_schema_advertises_limits_titles_or_additional_properties():
    used = set().union(*(_keywords(schema["parameters"], set()) for schema in SCHEMAS.values()))
    assert not used & UNADVERTISED, used & UNADVERTISED
    assert "title" not in used and "$defs" not in used and "$ref" not in used
    assert used <= {"type", "description", "properties", "required", "items", "enum", "pattern"}


def test_descriptions_are_one_line_and_never_repeat_the_parameter_name():
    for name, schema in SCHEMAS.items():
        assert "\n" not in schema["description"], name
        for parameter, prop in schema["parameters"]["properties"].items():
            said = prop.get("description", "").lower().rstrip(".")
            assert said not in (parameter.replace("_", " "), parameter), (name, parameter)


def test_no_schema_gives_a_concrete_id_a_model_could_repeat():
    # The real model of issue 12 "confirmed" credit card 7815826, the example id the
    # payment descriptions used to give.
    text = json.dumps(SCHEMAS)
    for example in ("7815826", "sara_doe_496", "ZFA04Y", "HAT001", "SFO", "Noah"):
        assert example not in text


def test_tau2_names_parameters_required_and_enums_are_kept():
    assert list(SCHEMAS) == list(TAU2_PARAMETERS)
    for name, parameters in TAU2_PARAMETERS.items():
        schema = SCHEMAS[name]["parameters"]
        assert list(schema["properties"]) == parameters + OURS_OPTIONAL.get(name, []), name
        assert schema["required"] == parameters, name
    book = SCHEMAS["book_reservation"]["parameters"]["properties"]
    assert book["flight_type"]["enum"] == ["one_way", "round_trip"]
    assert book["insurance"]["enum"] == ["yes", "no"]
    assert book["cabin"]["enum"] == ["basic_economy", "economy", "business"]
    assert list(book["flights"]["items"]["properties"]) == ["flight_number", "date"]
    assert list(book["passengers"]["items"]["properties"]) == ["first_name", "last_name", "dob"]
    assert list(book["payment_methods"]["items"]["properties"]) == ["payment_id", "amount"]
    reason = SCHEMAS["cancel_reservation"]["parameters"]["properties"]["reason"]
    assert reason["enum"] == ["change_of_plan", "airline_cancelled", "health", "weather", "other"]
    assert reason["type"] == "string"  # an optional argument, shown without its `null`


def test_advertised_keeps_property_names_that_look_like_keywords():
    schema = {
        "type": "object",
        "title": "T",
        "properties": {
            "title": {"type": "string", "maxLength": 9, "title": "Title"},
            "minimum": {"type": "integer", "minimum": 0},
        },
        "required": ["title"],
    }
    assert advertised(schema) == {
        "type": "object",
        "properties": {"title": {"type": "string"}, "minimum": {"type": "integer"}},
        "required": ["title"],
    }


@pytest.mark.parametrize(
    ("name", "arguments", "argument"),
    [
        ("get_user_details", {"user_id": "x" * 200_000}, "user_id"),
        ("get_reservation_details", {"reservation_id": "A" * 200_000}, "reservation_id"),
        ("get_user_details", {"user_id": ""}, "user_id"),
        ("calculate", {"expression": "1+" * 100_000 + "1"}, "expression"),
        (
            "search_direct_flight",
            {"origin": "P" * 51, "destination": "JFK", "date": "2024-05-17"},
            "origin",
        ),
        ("get_flight_status", {"flight_number": "HAT021", "date": "17 May"}, "date"),
    ],
)
def test_limits_not_advertised_are_still_refused(world_db, name, arguments, argument):
    outcome = toolbox(world_db).call(name, arguments)
    assert outcome.error == "INVALID_ARGUMENTS"
    assert f"`{argument}`" in outcome.result["message"]
    assert len(outcome.result["message"]) < 500  # the hostile value is not echoed whole


def test_list_and_number_limits_are_still_refused(world_db):
    tools = toolbox(world_db)
    flight = {"flight_number": "HAT021", "date": "2024-05-17"}
    too_many = tools.call(
        "update_reservation_flights",
        {
            "reservation_id": "ECON01",
            "cabin": "economy",
            "flights": [flight] * 11,
            "payment_id": "x",
        },
    )
    assert too_many.error == "INVALID_ARGUMENTS" and "`flights`" in too_many.result["message"]
    negative = tools.call(
        "update_reservation_baggages",
        {
            "reservation_id": "ECON01",
            "total_baggages": -1,
            "nonfree_baggages": 0,
            "payment_id": "x",
        },
    )
    assert negative.error == "INVALID_ARGUMENTS" and "total_baggages" in negative.result["message"]
    huge = tools.call("send_certificate", {"user_id": "emma_kim_9957", "amount": 10**9})
    assert huge.error == "INVALID_ARGUMENTS" and "`amount`" in huge.result["message"]


def test_every_registered_tool_has_a_schema():
    assert set(REGISTRY) == set(SCHEMAS)
