"""eval's COMMUNICATE check is τ²'s rule, all of it (issue 30): τ²-bench's
`CommunicateEvaluator.evaluate_communicate_info` (src/tau2/evaluator/
evaluator_communicate.py, its English path) finds an info in a message when

    isinstance(message, AssistantMessage) and message.has_text_content()
    and info_str.lower() in message.content.lower().replace(",", "")

(`has_text_content`: content not None and not white space). Each part is pinned here, so
that any change to one of them fails a test: which messages count (only the agent's, by
their text, also with tool calls; not the customer's, a tool's result, a call's arguments,
reasoning, a notice of the framework), the case (`lower`, not `casefold` or `upper`, on
both sides), the commas (the message's only, and nothing else removed), a substring (not
a word), a white-space message skipped, each info on its own; then a property test against
τ²'s expression, transcribed, over generated trajectories."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from airline_agent.agent.events import (
    AssistantMessage,
    ErrorOccurred,
    LimitReached,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolFinished,
    TurnStarted,
)
from airline_agent.evaluation.reward import (
    CommunicateCheck,
    DatabaseCheck,
    agent_messages,
    communicate_check,
    communicated,
    reward_of,
)
from airline_agent.evaluation.tasks import CustomerInstructions, EvalTask


def _task(*info: str, basis: tuple[str, ...] = ("DB", "COMMUNICATE")) -> EvalTask:
    return EvalTask(
        id="1",
        instructions=CustomerInstructions("r", "", "", "", ""),
        actions=(),
        communicate_info=info,
        nl_assertions=(),
        reward_basis=basis,
        source={},
    )


def _said(content: str | None, *calls: ToolCall, reasoning: str | None = None) -> AssistantMessage:
    return AssistantMessage(
        request=1,
        content=content,
        tool_calls=calls,
        reasoning=reasoning,
        finish_reason="tool_calls" if calls else "stop",
        latency_ms=1.0,
    )


def _met(info: str, *messages: str) -> bool:
    return not communicate_check(_task(info), list(messages)).missing


# ------------------------------------------------------------------ the match


@pytest.mark.parametrize(
    ("info", "message", "met"),
    [
        # case: both sides lower-cased
        ("ABC", "it is abc", True),
        ("abc", "IT IS ABC", True),
        ("Abc", "it is aBC", True),
        # `lower`, not `casefold`: ß stays ß, so "strasse" is not in "straße"
        ("strasse", "Main Straße", False),
        ("STRASSE", "Main Straße", False),
        ("straße", "MAIN STRAßE", True),
        # `lower`, not `upper`: "ı" (dotless) upper-cases to "I", lower-cases to itself
        ("ı", "I", False),
        ("I", "ı", False),
        ("k", "\u212a", True),  # the Kelvin sign lower-cases to "k"
        # commas: the message's are removed…
        ("1628", "a refund of $1,628.", True),
        ("1000000", "1,000,000", True),
        ("ab", "a,b", True),
        # …the info's are not: an info with a comma is never found (τ²'s rule as it is)
        ("1,628", "a refund of $1,628.", False),
        ("1,628", "a refund of $1628.", False),
        # nothing else is removed: points, spaces, other separators stay
        ("1628", "1.628", False),
        ("1628", "16 28", False),
        ("1628", "1\u00a0628", False),
        ("1628", "1_628", False),
        ("1628", "1،628", False),  # an Arabic comma is not ","
        ("1 628", "1628", False),
        ("16.28", "16.28", True),
        ("16.28", "16,.28", True),
        # a substring, not a word
        ("62", "1628", True),
        ("car", "your scarf", True),
        ("refund", "refunded", True),
        ("car", "c ar", False),
        # the whole info, in one message
        ("1628 dollars", "1628 and dollars", False),
        ("1628", "162", False),
    ],
)
def test_an_info_is_found_as_tau2_finds_it(info, message, met) -> None:
    assert _met(info, message) is met
    assert (communicated(info, [message]) == message) is met


def test_a_message_of_white_space_alone_is_skipped() -> None:
    """τ² skips a message without text (`has_text_content`): an info of spaces is found
    only in a message that has text."""
    assert not _met(" ", "   ")
    assert not _met(" ", "\t\n ")
    assert not _met("\u00a0", "\u00a0\u00a0")  # str.strip takes every white space
    assert _met(" ", "a b")
    assert _met("\u00a0", "x\u00a0")
    assert not _met("", "   ")  # "" is in every text, but no message is counted
    assert not _met("")
    assert _met("", "x")
    assert communicated(" ", ["  ", "a b"]) == "a b"


def test_the_first_message_that_says_it_is_the_one() -> None:
    messages = ["nothing", "it is 1628", "1628 again"]
    assert communicated("1628", messages) == "it is 1628"
    assert communicated("1628", ["nothing"]) is None
    assert communicated("1628", []) is None


def test_each_info_is_checked_on_its_own_in_every_message() -> None:
    check = communicate_check(_task("327", "1000", "1786"), ["refund 327", "and 1,786"])
    assert check == CommunicateCheck(("327", "1000", "1786"), ("1000",))
    assert not check.met
    check = communicate_check(_task("327", "1000"), ["refund 327", "and 1,000"])
    assert check.missing == () and check.met
    assert communicate_check(_task(), ["anything"]) == CommunicateCheck((), ())
    assert communicate_check(_task(), []).met  # nothing to tell: met
    assert communicate_check(_task("a", "b", "a"), ["b"]).missing == ("a", "a")  # in order


# ------------------------------------------------------------------ which messages


def test_only_the_agent_s_messages_count_by_their_text() -> None:
    """The agent's assistant messages, also those that carry tool calls; not what the
    customer said, a tool's result, a call's arguments, the model's reasoning, streamed
    pieces, or a notice of the framework (a limit, an error)."""
    call = ToolCall("call_1", "calculate", json.dumps({"expression": "1628 + 0"}))
    events = [
        TurnStarted(1, "the customer says 1628"),
        _said(None, call, reasoning="I think the answer is 1628"),
        ReasoningDelta(1, "1628"),
        ToolFinished("call_1", "calculate", {"expression": "1628 + 0"}, "1628.0", None, 1.0),
        TextDelta(2, "1628"),
        LimitReached("tool_calls", 8, "1628: the limit of tool calls"),
        ErrorOccurred("server", "1628 failed"),
        _said("   "),
        _said("Let me check.", call),
        _said("Your refund is on its way."),
    ]
    said = agent_messages(events)
    assert said == ["   ", "Let me check.", "Your refund is on its way."]
    assert communicate_check(_task("1628"), said).missing == ("1628",)
    events.append(_said("It is $1,628.", call))  # with a tool call too: counted
    assert agent_messages(events)[-1] == "It is $1,628."
    assert communicate_check(_task("1628"), agent_messages(events)).met


# ------------------------------------------------------------------ the reward


@pytest.mark.parametrize(
    ("basis", "db", "told", "reward"),
    [
        (("DB", "COMMUNICATE"), True, True, 1.0),
        (("DB", "COMMUNICATE"), True, False, 0.0),
        (("DB", "COMMUNICATE"), False, True, 0.0),
        (("DB", "COMMUNICATE"), False, False, 0.0),
        (("DB",), True, False, 1.0),
        (("DB",), False, True, 0.0),
        (("COMMUNICATE",), False, True, 1.0),
        (("COMMUNICATE",), True, False, 0.0),
        ((), False, False, 1.0),
    ],
)
def test_the_reward_is_the_product_of_the_basis(basis, db, told, reward) -> None:
    task = _task("x", basis=basis)
    communicate = CommunicateCheck(("x",), () if told else ("x",))
    database = DatabaseCheck(db, ())
    assert reward_of(task, database, communicate, evaluated=True) == reward
    assert reward_of(task, database, communicate, evaluated=False) == 0.0


# ------------------------------------------------------------------ against τ²'s expression


@dataclass
class Said:
    """A message of a trajectory, as τ² stores it (role, content, tool calls)."""

    role: str  # "assistant", "user", "tool"
    content: str | None
    calls: tuple[str, ...] = ()  # the calls' arguments (an assistant's)


def _tau2_met(info: str, trajectory: list[Said]) -> bool:
    """τ²'s evaluate_communicate_info for one info, transcribed from its source."""
    for message in trajectory:
        if message.role != "assistant":  # isinstance(message, AssistantMessage)
            continue
        content = message.content
        if content is None or content.strip() == "":  # not message.has_text_content()
            continue
        if info.lower() in content.lower().replace(",", ""):
            return True
    return False


def _events(trajectory: list[Said]) -> list:
    """The same trajectory as our loop's events."""
    events = []
    for number, message in enumerate(trajectory):
        if message.role == "user":
            events.append(TurnStarted(number + 1, message.content or ""))
        elif message.role == "tool":
            events.append(ToolFinished(f"c{number}", "calculate", {}, message.content, None, 1.0))
        else:
            calls = tuple(
                ToolCall(f"c{number}_{i}", "calculate", arguments)
                for i, arguments in enumerate(message.calls)
            )
            events.append(_said(message.content, *calls))
    return events


# Letters whose case maps differ between lower, upper and casefold, commas and their
# look-alikes, other separators, white space.
TRICKY = "aAbBkK\u212aßẞİiıI1628,.،，\u00a0 \t_-'"
TEXTS = st.text(TRICKY, max_size=12)
MESSAGES = st.builds(
    Said,
    st.sampled_from(["assistant", "assistant", "user", "tool"]),
    st.none() | TEXTS,
    st.lists(TEXTS, max_size=2).map(tuple),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(MESSAGES, max_size=5), st.data())
def test_the_check_agrees_with_tau2_s_expression(trajectory, data) -> None:
    texts = [m.content for m in trajectory if m.content] + [c for m in trajectory for c in m.calls]
    pieces = st.sampled_from(texts).flatmap(
        lambda text: st.tuples(st.integers(0, len(text)), st.integers(0, len(text))).map(
            lambda span: text[min(span) : max(span)]
        )
    )
    info = data.draw(pieces | TEXTS if texts else TEXTS)  # often a piece of some text
    ours = communicate_check(_task(info), agent_messages(_events(trajectory)))
    assert ours.met == _tau2_met(info, trajectory)
