"""The grounding check names values in a reply that no evidence supports."""

from __future__ import annotations

import re
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from airline_agent.agent import grounding, grounding_values
from airline_agent.agent.grounding import Evidence, Finding, ground_reply, unsupported_values

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


# -- issue 12 §2: what a real model invents ---------------------------------------------

P3 = "- P3 For a cancelled flight: a travel certificate of $100 per passenger."
B5 = "- B5 Free checked bags per passenger: 0, 1, 2. Each extra bag costs $50."


def kinds(reply: str, evidence: Evidence) -> list[tuple[str, str]]:
    return [(f.kind, f.value) for f in ground_reply(reply, evidence, TOOL_NAMES)]


TOOL_NAMES = frozenset({"get_reservation_details", "cancel_reservation"})


def test_each_finding_names_its_value_kind_and_why() -> None:
    (finding,) = ground_reply("Your flight is HAT999.", Evidence([TOOL]))
    assert finding == Finding(
        "HAT999", "flight_number", "no tool result or customer message gave this flight number"
    )


def test_ids_written_in_words_are_checked() -> None:
    evidence = Evidence([TOOL])
    assert kinds("Paid with credit card 5832574, flight 156.", evidence) == []
    assert kinds("Paid with credit card 7815826 on flight 777.", evidence) == [
        ("payment_id", "credit card 7815826"),
        ("flight_number", "flight 777"),
    ]
    assert kinds("Your card ending in 9931 was used.", Evidence([TOOL])) == [
        ("payment_id", "ending in 9931")
    ]


def test_a_time_must_come_from_the_evidence_in_any_spelling() -> None:
    evidence = Evidence(['{"scheduled_departure_time_est": "07:00:00"}'])
    assert kinds("It leaves at 7:00 AM (07:00:00), 7 a.m., 7am.", evidence) == []
    assert kinds("It leaves at 10:00, boards at 6:30 pm.", evidence) == [
        ("time", "10:00"),
        ("time", "6:30 pm"),
    ]


def test_the_rules_figures_support_stating_the_rule_not_an_amount_for_the_customer() -> None:
    evidence = Evidence(rules=[P3 + "\n" + B5])
    assert kinds("You get a travel certificate of $100 per passenger.", evidence) == []
    assert kinds("One bag is free and the extra bag costs $50.", evidence) == []
    (finding,) = ground_reply("I calculated the refund, which is $100.", evidence)[1:]
    assert (finding.kind, finding.value) == ("amount", "$100")
    assert "P3" in finding.why
    assert kinds("The seat costs $50.", evidence) == [("amount", "$50")]


def test_the_rules_figures_are_read_from_the_rules_given() -> None:
    # Derived from the text at run time: a shorter or changed prompt moves the figures.
    evidence = Evidence(rules=["P3 cancelled flight: certificate $150/passenger."])
    assert kinds("A certificate of $150 per passenger.", evidence) == []
    assert kinds("A certificate of $100 per passenger.", evidence) == [("amount", "$100")]


def test_a_claimed_action_needs_a_successful_call_of_its_tool() -> None:
    evidence = Evidence(["Please cancel EHGLP3."])
    assert kinds("I've cancelled EHGLP3.", evidence) == [("claimed_action", "I've cancelled")]
    evidence.add_tool_result("cancel_reservation", '{"error": "NOT_FOUND"}', ok=False)
    assert kinds("I've cancelled EHGLP3.", evidence) == [("claimed_action", "I've cancelled")]
    evidence.add_tool_result("cancel_reservation", TOOL, ok=True)
    assert kinds("I've cancelled EHGLP3.", evidence) == []


def test_a_look_up_is_backed_by_any_call_that_ran() -> None:
    evidence = Evidence(["Where is ABC123?"])
    assert kinds("I looked up ABC123.", evidence) == [("claimed_action", "I looked up")]
    evidence.add_tool_result("get_reservation_details", '{"error": "NOT_FOUND"}', ok=False)
    assert kinds("I looked up ABC123 but could not find it.", evidence) == []


def test_offers_conditions_and_negations_claim_nothing() -> None:
    evidence = Evidence(["Cancel EHGLP3?"])
    for reply in (
        "Would you like me to cancel EHGLP3?",
        "Once it has been cancelled, it cannot be restored.",
        "I haven't cancelled anything, and nothing was charged.",
        "The airline cancelled the flight; shall I transfer you?",
    ):
        assert kinds(reply, evidence) == [], reply


def test_a_tool_call_written_as_text_is_flagged_never_run() -> None:
    reply = '{{"name": "get_reservation_details", "arguments": {"reservation_id": "EHGLP3"}}}'
    (finding,) = ground_reply(reply, Evidence(["EHGLP3"]), TOOL_NAMES)
    assert finding.kind == "tool_call_as_text"
    assert finding.why == "the model wrote a tool call as text; nothing was run"
    assert finding.value.startswith('{"name": "get_reservation_details"')
    call = 'cancel_reservation(reservation_id="EHGLP3")'
    assert kinds(call, Evidence(["EHGLP3"])) == [("tool_call_as_text", call)]


def test_evidence_pop_takes_back_a_tool_call_too() -> None:
    evidence = Evidence(["Cancel EHGLP3."])
    evidence.add_tool_result("cancel_reservation", TOOL, ok=True)
    evidence.pop()
    assert kinds("I cancelled EHGLP3.", evidence) == [("claimed_action", "I cancelled")]


def _count_reads(monkeypatch) -> list[tuple[str, str]]:
    """(reader, text) for every text grounding_values reads from now on."""
    read: list[tuple[str, str]] = []
    for name in ("dates", "times", "numbers", "amounts", "clock_times"):
        original = getattr(grounding_values, name)
        monkeypatch.setattr(
            grounding_values,
            name,
            lambda text, f=original, name=name: read.append((name, text)) or f(text),
        )
    monkeypatch.setattr(grounding, "_TOKEN", _CountedPattern(grounding._TOKEN, read))
    return read


class _CountedPattern:
    def __init__(self, pattern: re.Pattern[str], read: list[tuple[str, str]]) -> None:
        self.pattern, self.read = pattern, read

    def findall(self, text: str) -> list[str]:
        self.read.append(("tokens", text))
        return self.pattern.findall(text)


def test_each_text_is_read_at_most_once_however_many_replies_are_checked(monkeypatch) -> None:
    read = _count_reads(monkeypatch)
    texts = [f"{TOOL} (copy {n})" for n in range(50)]
    evidence = Evidence(texts, rules=[P3])
    evidence.add_tool_result("get_reservation_details", TOOL, ok=True)
    reply = "I checked EHGLP3: HAT156 on 2024-05-17, May 17, $63."
    assert ground_reply(reply, evidence) == ()
    of_evidence = [(name, text) for name, text in read if text in texts or text == TOOL]
    assert of_evidence, "the first check reads the texts it needs"
    assert max(Counter(of_evidence).values()) == 1
    read.clear()
    again = "EHGLP3 is HAT156 on May 17 at $63, as I said."
    assert ground_reply(again, evidence) == ()
    assert {text for _, text in read} == {again}  # the evidence was not read again


def test_a_reply_stating_only_an_id_never_reads_the_evidence_for_amounts_dates_or_times(
    monkeypatch,
) -> None:
    read = _count_reads(monkeypatch)
    evidence = Evidence([f"{TOOL} (copy {n})" for n in range(5)])
    assert ground_reply("Your reservation is EHGLP3.", evidence) == ()
    assert {name for name, text in read if text != "Your reservation is EHGLP3."} == {"tokens"}
    # A later reply stating a date has the texts read for dates then, and is checked as well.
    (finding,) = ground_reply("It leaves on June 9.", evidence)
    assert (finding.kind, finding.value) == ("date", "June 9")
    assert ground_reply("It leaves on May 17.", evidence) == ()


def _without_cues(read, text: str):
    """`read(text)` with every text scanned for every kind (grounding_values' cues off)."""
    saved = grounding_values._may_name_a_month, grounding_values._TIME_CUE
    grounding_values._may_name_a_month = lambda text: True
    grounding_values._TIME_CUE = re.compile("")
    try:
        return read(text)
    finally:
        grounding_values._may_name_a_month, grounding_values._TIME_CUE = saved


_PIECES = ["Sep", "\u017fep", "sept.", "MAY", "Jun", "5", "17th", "2024", "2024-05-17", "-"]
_PIECES += ["10:30", "7", "pm", "a.m.", "AM", "T10:00:00", "on", ",", "\u0131", "\u212a", "é"]


@given(st.lists(st.sampled_from(_PIECES), max_size=8), st.sampled_from(["", " "]))
def test_a_text_without_the_cue_of_a_date_or_a_time_holds_none(pieces, glue) -> None:
    """Texts are scanned for dates and times only when they hold what those are written
    with (a month's first letters, a digit before a colon or before am/pm): what is found
    is exactly what scanning every text finds."""
    text = glue.join(pieces)
    assert grounding_values.dates(text) == _without_cues(grounding_values.dates, text)
    assert grounding_values.times(text) == _without_cues(grounding_values.times, text)


def test_a_month_written_with_a_long_s_is_a_date() -> None:
    """`re.I` reads "ſep" as "sep" (Unicode case folding): it is September, not a crash."""
    assert [when for _, _, when in grounding_values.dates("on \u017fep 5, 2024")] == [(9, 5, 2024)]
