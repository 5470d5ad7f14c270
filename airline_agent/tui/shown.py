"""What each of a turn's events adds to the chat and the usage panes: the panes know
messages, rows and totals, not the agent's events. Loaded with what shows a feed's events
(screens/later.py), not with the first screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from airline_agent.agent.events import (
    AssistantMessage,
    ErrorOccurred,
    GroundingWarning,
    LimitReached,
    ReasoningDelta,
    TextDelta,
    TurnFinished,
    TurnStarted,
    UsageReported,
)
from airline_agent.tui.feed import ScenarioDiverged

if TYPE_CHECKING:
    from airline_agent.agent.conversation import Conversation
    from airline_agent.tui.feed import ShownEvent
    from airline_agent.tui.widgets.chat_pane import ChatPane
    from airline_agent.tui.widgets.usage_pane import UsagePane


async def show_in_chat(chat: ChatPane, event: ShownEvent) -> None:
    match event:
        case TurnStarted(user_text=text):
            await chat.customer_said(text)
        case ReasoningDelta(request=request, text=fragment):
            await chat.reasoning(request, fragment)
        case TextDelta(request=request, text=fragment):
            await chat.reply_delta(request, fragment)
        case AssistantMessage(request=request, content=content, reasoning=reasoning):
            await chat.reply(request, content, reasoning)
        case GroundingWarning(request=request) as warning:
            await chat.warn_reply(request, warning.describe())
        case LimitReached(message=text):
            await chat.add_message("notice", f"⚠ {text}")
        case ErrorOccurred(message=text, hint=hint):
            await chat.add_message("error", text + (f"\n\n{hint}" if hint else ""))
        case ScenarioDiverged() as diverged:
            await chat.add_message(
                "notice",
                f"⚠ This playback {diverged.summary()} ({diverged.where}); what the "
                "scripted agent says next may not match what happened.",
            )
        case TurnFinished(reason="cancelled"):
            await chat.turn_cancelled()
        case TurnFinished():
            await chat.turn_finished()


def show_in_usage(
    usage: UsagePane, events: list[ShownEvent], conversation: Conversation | None
) -> None:
    """New rows for these events, then the conversation's totals as they are now."""
    reported: UsageReported | None = None
    for event in events:
        match event:
            case UsageReported():
                reported = event
                usage.request_row(event)
            case TurnFinished(turn=turn, usage=spent, cost=cost):
                usage.turn_row(turn, spent, cost)
    if reported is not None:
        usage.show_context(reported)
    usage.show_totals(conversation, reported)
