"""The chat: customer and agent messages as Markdown, the input line below.

Only the latest `MAX_MESSAGES` messages are on screen (the trace keeps everything), so
a long conversation does not slow the screen down. The list follows the newest message
unless the user scrolled away. Past that, a new message reuses the
oldest message's widgets, moved to the end: mounting new widgets and removing old ones
cost a layout more per message, and removed widgets are cyclic garbage that only a
full collection (a long pause after a long conversation) frees.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from airline_agent.redaction import Redactor, StreamRedactor
from airline_agent.terminal_text import escape_controls
from airline_agent.tui.widgets.chat_input import ChatInput

if TYPE_CHECKING:
    from airline_agent.tui.widgets.chat_message import ChatMessage, Speaker

MAX_MESSAGES = 10


class ChatPane(Vertical):
    # The messages are one stop of `tab`; enter there (not in the input, which sends)
    # shows or hides every reasoning block.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_reasoning", "Reasoning", tooltip="Show or hide the reasoning")
    ]

    class Submitted(Message):
        """The customer sent a message."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Chat"
        self._reply: ChatMessage | None = None  # the agent's message of the running turn
        self._by_request: dict[int, ChatMessage] = {}
        self._reasoned: set[int] = set()  # requests whose reasoning arrived as deltas
        self._hidden = 0
        self._hidden_note: Static | None = None
        self.redactor = Redactor()  # the app's, set by the screen once settings are read
        self._streams: dict[int, StreamRedactor] = {}  # request -> its text's redaction

    ALLOW_MAXIMIZE = True  # f3 zooms the chat, input included

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="messages")
        yield ChatInput(placeholder="Write as the customer, enter to send", id="chat-input")

    def on_mount(self) -> None:
        # Anchored: the list follows its newest message as it grows (a Markdown reply
        # grows after it is mounted, a resize re-wraps it), until the user scrolls up;
        # back at the bottom, it follows again (Textual's `Widget.anchor`).
        self.message_list.anchor()

    @property
    def message_list(self) -> VerticalScroll:
        return self.query_one("#messages", VerticalScroll)

    @property
    def input(self) -> ChatInput:
        return self.query_one(ChatInput)

    def messages(self) -> list[ChatMessage]:
        message = _message_class()
        # The list's children, not a query: a query walks every widget inside the messages.
        return [child for child in self.message_list.children if isinstance(child, message)]

    def action_toggle_reasoning(self) -> None:
        """Every reasoning block shown if one is collapsed, else every one collapsed."""
        messages = self.messages()
        expand = any(message.reasoning_collapsed for message in messages)
        for message in messages:
            message.show_reasoning(expand)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            return
        self.input.remember(text)
        self.input.value = ""
        self.post_message(self.Submitted(text))

    async def add_message(self, speaker: Speaker, text: str, **kwargs) -> ChatMessage:
        text = self._shown(text)
        mounted = self.messages()
        if len(mounted) < MAX_MESSAGES:
            message = _message_class()(speaker, text, **kwargs)
            await self.message_list.mount(message)
        else:
            message = mounted[0]
            self._forget(message)
            await message.reuse(speaker, text, **kwargs)
            self.message_list.move_child(message, after=mounted[-1])
            await self._note_hidden()
        return message

    def _shown(self, text: str) -> str:
        """Text from outside as the chat may show it: redacted, its control codes escaped."""
        return escape_controls(self.redactor.redact(text))

    def _forget(self, message: ChatMessage) -> None:
        """The oldest message is about to become a new one: no event may reach it now."""
        if self._reply is message:
            self._reply = None
        for request in [r for r, shown in self._by_request.items() if shown is message]:
            del self._by_request[request]

    async def _note_hidden(self) -> None:
        self._hidden += 1
        label = f"{self._hidden} earlier messages are in the trace"
        if self._hidden_note is not None:
            self._hidden_note.update(label, layout=False)
        else:
            self._hidden_note = Static(label, classes="hidden-note")
            await self.message_list.mount(self._hidden_note, before=0)

    async def add_note(self, text: str) -> None:
        """A note above the conversation (what a chosen scenario set): not a message of
        it, so it stays where it is while the messages come and go."""
        note = Static(self.redactor.redact(text), classes="chat-note", markup=False)
        await self.message_list.mount(note, before=0)

    def notes(self) -> list[str]:
        """The notes above the conversation, as text (tests read them)."""
        return [str(note.render()) for note in self.message_list.query(".chat-note")]

    async def clear(self) -> None:
        self._reply = None
        self._by_request.clear()
        self._reasoned.clear()
        self._streams.clear()
        self._hidden = 0
        self._hidden_note = None
        await self.message_list.remove_children()

    def streaming(self, request: int) -> bool:
        """Text or reasoning of this request is already shown as it streams."""
        return request in self._by_request or request in self._reasoned

    async def _agent_message(self) -> ChatMessage:
        if self._reply is None:
            self._reply = await self.add_message("agent", "")
        return self._reply

    # -- what a turn's events add (tui/shown.py says which event adds what) ---------
    async def customer_said(self, text: str) -> None:
        """The customer's message opens the turn: the agent's reply starts anew."""
        self._reply = None
        await self.add_message("customer", text)

    async def reasoning(self, request: int, fragment: str) -> None:
        self._reasoned.add(request)
        await (await self._agent_message()).add_reasoning(self._shown(fragment), request)

    async def reply_delta(self, request: int, fragment: str) -> None:
        reply = await self._agent_message()
        self._by_request[request] = reply
        stream = self._streams.setdefault(request, self.redactor.stream())
        # One character at a time: a sequence split across chunks is escaped too.
        await reply.append(escape_controls(stream.feed(fragment)))

    async def reply(self, request: int, content: str | None, reasoning: str | None) -> None:
        """The agent's whole message for `request` (shown already if it streamed)."""
        streamed = request in self._by_request
        if reasoning and request not in self._reasoned:
            reasoning = self._shown(reasoning)
            await (await self._agent_message()).add_reasoning(reasoning, request)
        if content and not streamed:
            reply = await self._agent_message()
            self._by_request[request] = reply
            await reply.set_text(self._shown(content))
        elif streamed:
            await self._finish_streamed(request)

    async def warn_reply(self, request: int, warning: str) -> None:
        """A warning about the reply to `request`, under it (or as a notice)."""
        target = self._by_request.get(request) or self._reply
        text = self._shown(warning)
        if target is not None:
            await target.add_warning(text)
        else:
            await self.add_message("notice", f"⚠ {text}")

    async def turn_finished(self) -> None:
        if self._reply is not None:
            await self._reply.finish_stream()

    async def _finish_streamed(self, request: int) -> None:
        """The reply's stream ended: what its redaction held back goes out, then it closes."""
        reply = self._by_request[request]
        stream = self._streams.pop(request, None)
        held = escape_controls(stream.flush()) if stream is not None else ""
        if held:
            await reply.append(held)
        await reply.finish_stream()

    async def turn_cancelled(self) -> None:
        if self._reply is not None:
            await self._reply.finish_stream()
        self._reply = None
        await self.add_message("notice", "Turn cancelled; the conversation can go on.")


def _message_class() -> type[ChatMessage]:
    """The chat's message widget, loaded with the first message rather than the first frame."""
    # Imported here: it brings Rich's Markdown and markdown-it (a tenth of a second), and
    # the first frame, the library over an empty chat, shows no message.
    from airline_agent.tui.widgets.chat_message import ChatMessage

    return ChatMessage
