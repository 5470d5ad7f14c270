"""What each of a turn's events adds to the chat (tui/shown.py's `show_in_chat`): the
customer's message, the agent's reasoning and reply (streamed or whole), a warning under
the reply, and the notices of a limit, an error, a playback that diverged and a cancelled
turn, in the words a reader of the chat sees. The chat pane is mounted alone in a small
app and fed events as the main screen feeds it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, ComposeResult

import airline_agent.tui
from airline_agent.agent.events import (
    AssistantMessage,
    ErrorOccurred,
    GroundingWarning,
    LimitReached,
    ReasoningDelta,
    TextDelta,
    TurnFinished,
    TurnStarted,
    Usage,
    UsageReported,
)
from airline_agent.tui.feed import ScenarioDiverged
from airline_agent.tui.shown import show_in_chat
from airline_agent.tui.widgets.chat_message import ChatMessage
from airline_agent.tui.widgets.chat_pane import ChatPane

if TYPE_CHECKING:
    from airline_agent.tui.feed import ShownEvent


class ChatOnly(App[None]):
    CSS_PATH = Path(airline_agent.tui.__file__).parent / "app.tcss"

    def compose(self) -> ComposeResult:
        yield ChatPane(id="chat")


async def _shown(*events: ShownEvent) -> list[ChatMessage]:
    """The chat's messages after these events."""
    app = ChatOnly()
    async with app.run_test(size=(100, 40)) as pilot:
        chat = app.query_one(ChatPane)
        for event in events:
            await show_in_chat(chat, event)
        await pilot.pause()
        return chat.messages()


def _reply(request: int, content: str | None, reasoning: str | None = None) -> AssistantMessage:
    return AssistantMessage(request, content, (), reasoning, "stop", 120.0)


def _said(messages: list[ChatMessage]) -> list[tuple[str, str]]:
    return [(message.speaker, message.text) for message in messages]


async def test_a_streamed_turn_shows_the_question_the_reasoning_and_the_reply_once() -> None:
    messages = await _shown(
        TurnStarted(1, "Can I change my flight?"),
        ReasoningDelta(2, "The customer wants "),
        ReasoningDelta(2, "a change."),
        TextDelta(2, "Yes, "),
        TextDelta(2, "you can."),
        _reply(2, "Yes, you can.", "The customer wants a change."),
        TurnFinished(1, "answered", Usage(), None),
    )
    assert _said(messages) == [
        ("customer", "Can I change my flight?"),
        ("agent", "Yes, you can."),
    ]
    reply = messages[1]
    # The reasoning under its request's title, as streamed (not again from the message).
    assert reply.reasoning_of(2) == "The customer wants a change."
    assert reply.reasoning == "The customer wants a change."
    # The turn's end closes the stream: the reply is one body of text, nothing live.
    assert not reply.query(".live")
    assert reply.body.text == "Yes, you can."


async def test_reasoning_shows_as_it_streams_before_any_reply() -> None:
    messages = await _shown(
        TurnStarted(1, "Can I change my flight?"),
        ReasoningDelta(2, "The customer wants "),
        ReasoningDelta(2, "a change."),
    )
    assert _said(messages) == [("customer", "Can I change my flight?"), ("agent", "")]
    assert messages[1].reasoning_of(2) == "The customer wants a change."


async def test_a_whole_reply_shows_its_text_and_reasoning_and_a_second_turn_starts_anew() -> None:
    messages = await _shown(
        TurnStarted(1, "Hello"),
        _reply(1, "Hi, how can I help?", "Greet them."),
        TurnFinished(1, "answered", Usage(), None),
        TurnStarted(2, "Cancel it"),
        _reply(3, "Done.", None),
        TurnFinished(2, "answered", Usage(), None),
    )
    assert _said(messages) == [
        ("customer", "Hello"),
        ("agent", "Hi, how can I help?"),
        ("customer", "Cancel it"),
        ("agent", "Done."),
    ]
    assert messages[1].reasoning_of(1) == "Greet them."
    assert messages[3].reasoning == ""


async def test_a_grounding_warning_goes_under_the_reply_it_is_about() -> None:
    warning = GroundingWarning(2, ("HAT999",), "Your flight HAT999 is booked.")
    messages = await _shown(
        TurnStarted(1, "Book it"),
        TextDelta(2, "Your flight HAT999 is booked."),
        _reply(2, "Your flight HAT999 is booked."),
        warning,
        TurnFinished(1, "answered", Usage(), None),
    )
    assert _said(messages) == [
        ("customer", "Book it"),
        ("agent", "Your flight HAT999 is booked."),
    ]
    assert messages[1].warnings == [warning.describe()]


async def test_a_limit_and_an_error_are_notices_in_their_words() -> None:
    messages = await _shown(
        TurnStarted(1, "Book it"),
        LimitReached("tool_calls", 8, "The agent made 8 tool calls; the turn stops here."),
        ErrorOccurred("server", "The model server failed (500).", "Is it running?"),
        ErrorOccurred("timeout", "No answer within 60 s."),
        TurnFinished(1, "error", Usage(), None),
    )
    assert _said(messages) == [
        ("customer", "Book it"),
        ("notice", "⚠ The agent made 8 tool calls; the turn stops here."),
        ("error", "The model server failed (500).\n\nIs it running?"),
        ("error", "No answer within 60 s."),
    ]


async def test_a_playback_that_diverged_says_where_and_that_replies_may_not_match() -> None:
    diverged = ScenarioDiverged(
        2,
        "turn 2, call 1 (update_reservation_flights)",
        "expected POLICY_VIOLATION, got ok",
        ("expected POLICY_VIOLATION, got ok",),
    )
    messages = await _shown(TurnStarted(2, "Change it"), diverged)
    assert _said(messages) == [
        ("customer", "Change it"),
        (
            "notice",
            "⚠ This playback diverged from the scenario: expected POLICY_VIOLATION, got ok"
            " (turn 2, call 1 (update_reservation_flights)); what the scripted agent says"
            " next may not match what happened.",
        ),
    ]


async def test_a_cancelled_turn_says_so_and_closes_the_reply_and_an_answered_one_does_not() -> None:
    cancelled = await _shown(
        TurnStarted(1, "Book it"),
        TextDelta(1, "Let me"),
        TurnFinished(1, "cancelled", Usage(), None),
    )
    assert _said(cancelled) == [
        ("customer", "Book it"),
        ("agent", "Let me"),
        ("notice", "Turn cancelled; the conversation can go on."),
    ]
    assert not cancelled[1].query(".live")
    assert cancelled[1].body.text == "Let me"
    answered = await _shown(
        TurnStarted(1, "Book it"),
        TextDelta(1, "Let me"),
        TurnFinished(1, "answered", Usage(), None),
    )
    assert _said(answered) == [("customer", "Book it"), ("agent", "Let me")]
    assert not answered[1].query(".live")
    assert answered[1].body.text == "Let me"


async def test_events_that_only_the_usage_pane_shows_add_nothing_to_the_chat() -> None:
    report = UsageReported(1, Usage(prompt_tokens=10), 0.001, "gpt-4o-mini", 80.0)
    assert _said(await _shown(TurnStarted(1, "Hi"), report)) == [("customer", "Hi")]
