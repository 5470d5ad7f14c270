"""The grounding check names values in a reply that no evidence supports."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from airline_agent.agent.grounding import Evidence, unsupported_values

TOOL = (
    '{"reservation_id": "EHGLP3", "user_id": "emma_kim_9957", "flights": [{"flight_number": '
    '"HAT156", "date": "2024-05-17", "price": 63}], "payment_history": [{"payment_id": '
    '"credit_card_5832574", "amount": 1234.5}]}'
)

# Pieces of evidence and replies: ids, amounts and dates in several spellings.
SNIPPETS = [
    "EHGLP3",
    "reservation QWE123",
    "$63",
    "$1,234.50",
    "2024-05-17",
    "May 18th",
    "17 May",
    "HAT156",
    "HAT021 on June 2",
    "emma_kim_9957",
    "gift_card_1",
    '"amount": 1234.5',
]


def test_values_from_tool_results_are_supported():
    reply = (
        "Reservation EHGLP3 of emma_kim_9957 flies HAT156 on 2024-05-17 (May 17, 2024); "
        "$63 was paid, $1,234.50 in total with credit_card_5832574."
    )
    assert unsupported_values(reply, [TOOL]) == ()


def test_each_kind_of_invented_value_is_named():
    reply = (
        "Your reservation Q7ZZ2K on HAT999 for john_doe_1234 costs $480 and was paid with "
        "gift_card_1111111; it departs on 2024-05-19, or June 3."
    )
    assert unsupported_values(reply, [TOOL]) == (
        "Q7ZZ2K",
        "HAT999",
        "john_doe_1234",
        "$480",
        "gift_card_1111111",
        "2024-05-19",
        "June 3",
    )


def test_customer_messages_are_evidence():
    assert unsupported_values("I will look up ABC123 for you.", ["my booking is ABC123"]) == ()


def test_all_letter_codes_count_only_when_named_as_a_reservation():
    assert unsupported_values("PLEASE hold on.", []) == ()
    assert unsupported_values("Your reservation VAAOXJ is cancelled.", []) == ("VAAOXJ",)


def test_a_date_written_out_matches_the_iso_date_of_a_tool_result():
    assert unsupported_values("You fly on 17 May.", [TOOL]) == ()
    assert unsupported_values("You fly on May 18th.", [TOOL]) == ("May 18th",)


def test_a_date_inside_a_timestamp_is_evidence():
    assert (
        unsupported_values("Booked on 2024-05-15.", ['"created_at": "2024-05-15T10:00:00"']) == ()
    )


def test_a_reply_without_values_is_fine():
    assert unsupported_values("How can I help you today?", []) == ()


def test_evidence_read_once_gives_the_same_answers_as_the_texts() -> None:
    texts = [TOOL, "my booking is ABC123", '{"amount": 1,234.50, "date": "2024-06-01"}']
    reply = "ABC123 costs $1,234.50 on June 1 and May 17; HAT999 on 2024-06-02."
    assert unsupported_values(reply, Evidence(texts)) == unsupported_values(reply, texts)
    assert unsupported_values(reply, texts) == ("HAT999", "2024-06-02")


def test_evidence_pop_takes_a_text_back() -> None:
    evidence = Evidence([TOOL])
    evidence.add("I fly on 2024-07-04 with reservation QWE123.")
    assert unsupported_values("QWE123 on 2024-07-04", evidence) == ()
    evidence.pop()
    assert unsupported_values("QWE123 on 2024-07-04", evidence) == ("QWE123", "2024-07-04")


@given(
    texts=st.lists(st.sampled_from(SNIPPETS), max_size=6),
    popped=st.lists(st.sampled_from(SNIPPETS), max_size=3),
    reply=st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=3).map(" ".join),
)
def test_evidence_after_adds_and_pops_is_evidence_of_what_is_left(
    texts: list[str], popped: list[str], reply: str
) -> None:
    evidence = Evidence(texts)
    for text in popped:
        evidence.add(text)
    for _ in popped:
        evidence.pop()
    assert unsupported_values(reply, evidence) == unsupported_values(reply, Evidence(texts))
