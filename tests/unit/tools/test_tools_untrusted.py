"""airline_agent.tools.untrusted: lone surrogates joined or replaced, values of any depth walked
without recursion."""

from __future__ import annotations

import json

from airline_agent.tools.untrusted import (
    REPLACEMENT,
    SurrogateJoiner,
    clean_strings,
    clean_text,
    depth_beyond,
    escape_surrogates,
    first_surrogate,
    has_surrogate,
    is_flat_ascii,
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
    assert first_surrogate({"passengers": [{"first_name": f"Zo{HIGH}"}]}) == (
        "passengers[0].first_name",
        "Zo\\ud83d",
    )
    assert first_surrogate({f"x{LOW}": 1}) == ("x\\ude00", "x\\ude00")


def test_escape_surrogates_writes_their_escapes() -> None:
    assert escape_surrogates(f"a{HIGH}b") == "a\\ud83db"
    assert has_surrogate(HIGH) and not has_surrogate(GRIN)
    shown = escape_surrogates(json.dumps({"id": f"\udcff{GRIN}"}, ensure_ascii=False))
    assert shown == '{"id": "\\udcff' + GRIN + '"}'


def test_flat_ascii_arguments_skip_the_walks_and_nothing_else_does() -> None:
    assert is_flat_ascii({"flight_number": "HAT156", "date": "2024-05-17", "n": 2, "x": None})
    assert is_flat_ascii({"insurance": True, "amount": 1.5})
    assert not is_flat_ascii({"flights": [{"date": "2024-05-17"}]})
    assert not is_flat_ascii({"user_id": f"emma{HIGH}"})
    assert not is_flat_ascii({f"user{LOW}": "emma"})
    assert not is_flat_ascii({"last_name": "Núñez"})  # not ASCII: checked the long way
    assert not is_flat_ascii({1: "one"})
