"""The chat pane keeps the latest messages on screen, reusing the oldest message's widgets."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

import airline_agent.tui
from airline_agent.tui.widgets.chat_pane import MAX_MESSAGES, ChatPane


class ChatOnly(App[None]):
    CSS_PATH = Path(airline_agent.tui.__file__).parent / "app.tcss"

    def compose(self) -> ComposeResult:
        yield ChatPane(id="chat")


async def test_a_long_chat_keeps_the_latest_messages_and_counts_the_others() -> None:
    app = ChatOnly()
    async with app.run_test(size=(100, 40)) as pilot:
        chat = app.query_one(ChatPane)
        first = await chat.add_message("agent", "the first reply")
        await first.add_reasoning("thinking about the first reply")
        await first.add_warning("not found: 2024-05-04")
        widgets_at_start = None
        total = MAX_MESSAGES + 5
        for number in range(2, total + 1):
            speaker = "customer" if number % 2 else "agent"
            await chat.add_message(speaker, f"message {number}")
            if number == MAX_MESSAGES:
                widgets_at_start = set(chat.messages())
        await pilot.pause()
        shown = chat.messages()
        assert [m.text for m in shown] == [f"message {n}" for n in range(6, total + 1)]
        assert [m.speaker for m in shown] == [
            "customer" if n % 2 else "agent" for n in range(6, total + 1)
        ]
        assert set(shown) == widgets_at_start  # reused, none mounted past the limit
        assert all(m.has_class(f"-{m.speaker}") for m in shown)
        assert not any(m.reasoning or m.warnings for m in shown)
        # The reasoning and warning of the first reply went with it: one body each.
        assert all(len(m.children) == 1 for m in shown)
        note = chat.message_list.query_one(".hidden-note")
        assert "5 earlier messages" in str(note.render())
