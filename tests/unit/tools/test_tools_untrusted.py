"""airline_agent.tools.untrusted: lone surrogates joined or replaced, values of any depth walked
without recursion, and JSON text from outside read by one strict parser."""

from __future__ import annotations

import json

from airline_agent.tools.untrusted import (
    MAX_DEPTH,
    MAX_NUMBER_DIGITS,
    REPLACEMENT,
    LoneSurrogate,
    ParsedJson,
    SurrogateJoiner,
    UnusableJson,
    clean_strings,
    clean_text,
    depth_beyond,
    escape_surrogates,
    first_number_out_of_range,
    first_surrogate,
    has_surrogate,
    number_out_of_range,
    number_refusal,
    parse_json,
)

GRIN = "😀"  # U+1F600: \ud83d \ude00 in UTF-16
HIGH, LOW = "\ud83d", "\ude00"


def nested(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


def test_clean_text_joins_a_split_pair_and_replaces_lone_halves() -> None:
    assert clean_text(f"a{HIGH}{LOW}b") == f"a{GRIN}b"
    assert clean_text(f"a{HIGH}b{LOW}") == f"a{REPLACEMENT}b{REPLACEMENT}"
    assert clean_text(f"{LOW}{HIGH}") == REPLACEMENT * 2  # the wrong order is no pair
    text = f"plain {GRIN} text"
    assert clean_text(text) is text
    clean_text(f"x{HIGH}").encode("utf-8")


def test_the_joiner_holds_a_high_half_for_the_next_piece() -> None:
    joiner = SurrogateJoiner()
    assert joiner.feed(f"Done {HIGH}") == "Done "
    assert joiner.feed(f"{LOW} enjoy") == f"{GRIN} enjoy"
    assert joiner.feed(HIGH) == ""
    assert joiner.feed("!") == f"{REPLACEMENT}!"  # the next piece had no low half
    assert joiner.feed(LOW) == REPLACEMENT
    assert joiner.feed(f"end {HIGH}") == "end "
    assert joiner.flush() == REPLACEMENT
    assert joiner.flush() == ""


def test_the_pieces_of_a_joiner_add_up_to_the_cleaned_whole() -> None:
    whole = f"a{HIGH}{LOW}b{HIGH}c{LOW}{HIGH}"
    for size in range(1, len(whole) + 1):
        joiner = SurrogateJoiner()
        pieces = [joiner.feed(whole[i : i + size]) for i in range(0, len(whole), size)]
        assert "".join(pieces) + joiner.flush() == clean_text(whole)


def test_clean_strings_cleans_keys_and_values_at_any_depth() -> None:
    value = {f"k{HIGH}": [f"v{LOW}", {"inner": (HIGH + LOW,)}], "n": 1}
    assert clean_strings(value) == {
        f"k{REPLACEMENT}": [f"v{REPLACEMENT}", {"inner": [GRIN]}],
        "n": 1,
    }
    clean = {"a": ["b", {"c": 1.5}]}
    assert clean_strings(clean) is clean
    deep = nested(100_000)
    deep_with_half = [deep, HIGH]
    cleaned = clean_strings(deep_with_half)
    assert cleaned[1] == REPLACEMENT


def test_depth_beyond_counts_levels_of_lists_and_objects() -> None:
    assert not depth_beyond("text", 0)
    assert not depth_beyond({"a": 1}, 1) and depth_beyond({"a": 1}, 0)
    assert not depth_beyond({"flights": [{"date": "2024-05-17"}]}, 3)
    assert depth_beyond({"flights": [{"date": "2024-05-17"}]}, 2)
    assert not depth_beyond(nested(32), 32) and depth_beyond(nested(33), 32)
    assert depth_beyond(nested(100_000), 32)  # no recursion


def test_first_surrogate_names_where_it_is_escaped() -> None:
    assert first_surrogate({"user_id": "emma"}) is None
    assert first_surrogate({"passengers": [{"first_name": f"Zo{HIGH}"}]}) == LoneSurrogate(
        "passengers[0].first_name",
        "Zo\\ud83d",
    )
    assert first_surrogate({f"x{LOW}": 1}) == LoneSurrogate("x\\ude00", "x\\ude00")


def test_escape_surrogates_writes_their_escapes() -> None:
    assert escape_surrogates(f"a{HIGH}b") == "a\\ud83db"
    assert has_surrogate(HIGH) and not has_surrogate(GRIN)
    shown = escape_surrogates(json.dumps({"id": f"\udcff{GRIN}"}, ensure_ascii=False))
    assert shown == '{"id": "\\udcff' + GRIN + '"}'


# ---------------------------------------------------------------- parse_json


def test_parse_json_gives_the_value_of_usable_text() -> None:
    assert parse_json('{"n": 1, "s": "x", "f": 1.5, "b": true, "z": null}') == ParsedJson(
        {"n": 1, "s": "x", "f": 1.5, "b": True, "z": None}
    )
    assert parse_json("[1, 2]") == ParsedJson([1, 2])  # any JSON: callers ask for an object
    assert parse_json(f'"{GRIN}"') == ParsedJson(GRIN)
    assert parse_json('"\\ud83d\\ude00"') == ParsedJson(GRIN)  # a pair, escaped: whole
    big = "9" * MAX_NUMBER_DIGITS
    assert parse_json(big) == ParsedJson(int(big))
    assert parse_json("1e308") == ParsedJson(1e308)


def test_parse_json_refuses_what_is_not_json_saying_so() -> None:
    for text in ("", "{user_id: 1", '{"a": ', "{" * 10):
        refused = parse_json(text)
        assert isinstance(refused, UnusableJson) and refused.problem == "syntax", text
        assert refused.message.startswith("not valid JSON ("), refused


def test_parse_json_refuses_numbers_out_of_range() -> None:
    for text, shown in [
        ("NaN", "NaN is not JSON"),
        ("[-Infinity]", "-Infinity is not JSON"),
        ('{"amount": Infinity}', "Infinity is not JSON"),
        ("1e309", "the number 1e309 is out of range"),
        ("-1E400", "the number -1E400 is out of range"),
        ("9" * (MAX_NUMBER_DIGITS + 1), "the number 999999999999999999999 is out"),
        ("9" * 5000, "5,000 characters"),  # past Python's own limit for converting it
        ("1" * 400 + ".5", "out of range"),
    ]:
        refused = parse_json(text)
        assert isinstance(refused, UnusableJson) and refused.problem == "number", text
        assert shown in refused.message and "number" in refused.message, refused.message
        assert len(refused.message) < 200


def test_parse_json_refuses_nesting_past_its_depth() -> None:
    at_limit = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert isinstance(parse_json(at_limit), ParsedJson)
    for text in ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "[" * 100_000 + "]" * 100_000):
        refused = parse_json(text)
        assert refused == UnusableJson("depth", f"nested more than {MAX_DEPTH} levels deep")
    deeper = "[" * 64 + "]" * 64
    assert isinstance(parse_json(deeper, max_depth=64), ParsedJson)
    assert isinstance(parse_json(deeper, max_depth=63), UnusableJson)


def test_parse_json_names_a_lone_surrogate_and_can_replace_it() -> None:
    for text in ('{"name": "Zo\\ud83d"}', f'{{"name": "Zo{HIGH}"}}'):  # escaped, or raw
        parsed = parse_json(text)
        assert isinstance(parsed, ParsedJson)
        assert parsed.lone_surrogate == LoneSurrogate("name", "Zo\\ud83d")
        assert "`name` is not valid text" in parsed.lone_surrogate.describe()
        assert parsed.safe_value() == {"name": f"Zo{REPLACEMENT}"}
        json.dumps(parsed.safe_value(), ensure_ascii=False).encode("utf-8")
    key = parse_json('{"x\\ude00": 1}')
    assert isinstance(key, ParsedJson) and key.lone_surrogate == LoneSurrogate(
        "x\\ude00", "x\\ude00"
    )
    clean = parse_json('{"name": "Zo\\u00eb"}')
    assert clean == ParsedJson({"name": "Zoë"}) and clean.safe_value() == {"name": "Zoë"}


def test_numbers_as_values_are_held_to_the_rule_of_text() -> None:
    assert first_number_out_of_range({"a": [1, 2.5, True, 10**19]}) is None
    assert first_number_out_of_range({"a": [1, {"b": 10**20}]}) == 10**20
    assert first_number_out_of_range([float("nan")]) is not None
    assert number_out_of_range(-(10**20)) and number_out_of_range(float("-inf"))
    assert not number_out_of_range(True) and not number_out_of_range("1" * 40)
    assert "10^5999 or so" in number_refusal(10**5999)
