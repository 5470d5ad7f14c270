"""One message of the chat: who said it, the Markdown body, collapsed reasoning, warnings."""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Label, Markdown, Static
from textual.widgets.markdown import MarkdownStream

Speaker = Literal["customer", "agent", "notice", "error"]
TITLES = {"customer": "Customer", "agent": "Agent", "notice": "", "error": "Error"}


class ChatMessage(Vertical):
    """A message; an agent reply grows by appending streamed Markdown, never re-rendered."""

    def __init__(self, speaker: Speaker, text: str = "", *, title: str | None = None) -> None:
        super().__init__(classes=f"message -{speaker}")
        self.speaker = speaker
        self.text = text
        self._title = TITLES[speaker] if title is None else title
        self._stream: MarkdownStream | None = None
        self._reasoning = ""
        self.warnings: list[str] = []

    def compose(self) -> ComposeResult:
        if self._title:
            yield Label(self._title, classes="speaker")
        yield Markdown(self.text, classes="body")

    @property
    def body(self) -> Markdown:
        return self.query_one(".body", Markdown)

    async def append(self, fragment: str) -> None:
        """Add streamed text at the end (coalesced by `MarkdownStream` when it arrives fast)."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self.body)
            if self.text:
                await self._stream.write("\n\n")
        self.text += fragment
        await self._stream.write(fragment)

    async def finish_stream(self) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None

    async def set_text(self, text: str) -> None:
        """Add a whole reply that was not streamed (a paragraph after any earlier one)."""
        await self.finish_stream()
        addition = text if not self.text else "\n\n" + text
        self.text += addition
        await self.body.append(addition)

    async def add_reasoning(self, fragment: str) -> None:
        self._reasoning += fragment
        try:
            self.query_one(".reasoning-text", Static).update(self._reasoning)
        except Exception:  # first fragment: the collapsed block does not exist yet
            block = Collapsible(
                Static(self._reasoning, classes="reasoning-text", markup=False),
                title="reasoning",
                collapsed=True,
                classes="reasoning",
            )
            await self.mount(block, before=self.body)

    @property
    def reasoning(self) -> str:
        return self._reasoning

    async def add_warning(self, text: str) -> None:
        self.warnings.append(text)
        await self.mount(Static(f"⚠ {text}", classes="warning", markup=False))
